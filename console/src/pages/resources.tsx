// Account resources that share one shape: a list, a create form and delete with confirmation.
// Templates, registry credentials, network volumes and secrets.
import { useState } from 'preact/hooks';
import { api, Problem } from '../api';
import { usePoll } from '../live';
import { canWrite, session, useStore } from '../state';
import { ErrorNote, Page } from '../ui';
import { errorsByPath } from './resource-errors';

interface Input {
  name: string;
  label: string;
  type?: 'text' | 'number' | 'password' | 'checkbox';
  hint?: string;
}
export interface Resource {
  path: string;
  title: string;
  singular: string;
  api: string;
  listKey: string;
  /** The row's id in URLs (secrets are named, the rest have ids). */
  key: string;
  columns: { label: string; value: (row: Record<string, unknown>) => string }[];
  inputs: Input[];
}

const text = (k: string) => (row: Record<string, unknown>) => (row[k] === undefined || row[k] === null ? '—' : String(row[k]));

export const RESOURCES: Resource[] = [
  {
    path: 'templates',
    title: 'Templates',
    singular: 'template',
    api: '/v2/templates',
    listKey: 'templates',
    key: 'id',
    columns: [
      { label: 'Name', value: text('name') },
      { label: 'Image', value: text('image') },
      { label: 'Serverless', value: (r) => (r.serverless ? 'yes' : 'no') },
    ],
    inputs: [
      { name: 'name', label: 'Name' },
      { name: 'image', label: 'Container image' },
      { name: 'serverless', label: 'For serverless endpoints', type: 'checkbox' },
    ],
  },
  {
    path: 'registries',
    title: 'Registries',
    singular: 'registry credential',
    api: '/v2/registries',
    listKey: 'registries',
    key: 'id',
    columns: [
      { label: 'Name', value: text('name') },
      { label: 'Id', value: text('id') },
    ],
    inputs: [
      { name: 'name', label: 'Name' },
      { name: 'username', label: 'Username' },
      { name: 'password', label: 'Password or token', type: 'password', hint: 'Write-only: never shown again' },
    ],
  },
  {
    path: 'volumes',
    title: 'Network volumes',
    singular: 'network volume',
    api: '/v2/network-volumes',
    listKey: 'networkVolumes',
    key: 'id',
    columns: [
      { label: 'Name', value: text('name') },
      { label: 'Data center', value: text('dataCenterId') },
      { label: 'Size (GB)', value: text('size') },
    ],
    inputs: [
      { name: 'name', label: 'Name' },
      { name: 'size', label: 'Size (GB)', type: 'number' },
      { name: 'dataCenter', label: 'Data center', hint: 'LOCAL unless this deployment lists others' },
    ],
  },
  {
    path: 'secrets',
    title: 'Secrets',
    singular: 'secret',
    api: '/v2/secrets',
    listKey: 'secrets',
    key: 'name',
    columns: [
      { label: 'Name', value: text('name') },
      { label: 'Updated', value: (r) => new Date(String(r.updatedAt)).toLocaleString() },
    ],
    inputs: [
      { name: 'name', label: 'Name' },
      { name: 'value', label: 'Value', type: 'password', hint: 'Write-only; endpoints refer to it as {{ RUNPOD_SECRET_name }}' },
    ],
  },
];

export function ResourcePage({ resource: r }: { resource: Resource }) {
  const writer = canWrite(useStore(session));
  const { data, error, reload } = usePoll(
    () => api<Record<string, Record<string, unknown>[]>>('GET', r.api).then((a) => a[r.listKey] ?? []),
    10_000,
    [r.api],
  );
  const [creating, setCreating] = useState(false);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const remove = async (row: Record<string, unknown>) => {
    if (!confirm(`Delete ${r.singular} ${String(row.name ?? row[r.key])}?`)) return;
    setActionError(undefined);
    await api('DELETE', `${r.api}/${encodeURIComponent(String(row[r.key]))}`).catch(setActionError);
    reload();
  };
  return (
    <Page
      key={r.path}
      title={r.title}
      actions={
        writer &&
        !creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New {r.singular}
          </button>
        )
      }
    >
      {creating && (
        <CreateForm
          resource={r}
          onDone={() => {
            setCreating(false);
            reload();
          }}
        />
      )}
      <ErrorNote error={error ?? actionError} />
      {data && data.length === 0 && <p class="empty">None yet.</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">{r.title}</caption>
            <thead>
              <tr>
                {r.columns.map((c) => (
                  <th key={c.label} scope="col">
                    {c.label}
                  </th>
                ))}
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.map((row) => (
                <tr key={String(row[r.key])}>
                  {r.columns.map((c) => (
                    <td key={c.label}>{c.value(row)}</td>
                  ))}
                  <td class="row-actions">
                    {writer && (
                      <button
                        type="button"
                        class="small danger"
                        aria-label={`Delete ${String(row.name ?? row[r.key])}`}
                        onClick={() => void remove(row)}
                      >
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}

function CreateForm({ resource: r, onDone }: { resource: Resource; onDone: () => void }) {
  const [values, setValues] = useState<Record<string, string | boolean>>({});
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    const body = Object.fromEntries(
      r.inputs
        .filter((i) => values[i.name] !== undefined)
        .map((i) => [i.name, i.type === 'number' ? Number(values[i.name]) : values[i.name]]),
    );
    try {
      await api('POST', r.api, body);
      onDone();
    } catch (err) {
      const byPath =
        err instanceof Problem
          ? errorsByPath(
              err.errors,
              r.inputs.map((i) => i.name),
            )
          : {};
      setErrors(byPath);
      setFailure(err);
    }
  };
  return (
    <form class="form card" noValidate onSubmit={(e) => void submit(e)} aria-label={`New ${r.singular}`}>
      <ErrorNote error={failure} />
      {r.inputs.map((i) => {
        const id = `new-${i.name}`;
        const messages = errors[i.name];
        const described = [i.hint ? `${id}-hint` : '', messages ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        return (
          <div key={i.name} class={`field${messages ? ' invalid' : ''}`}>
            {i.type === 'checkbox' ? (
              <label class="check">
                <input
                  id={id}
                  type="checkbox"
                  checked={Boolean(values[i.name])}
                  onChange={(e) => setValues({ ...values, [i.name]: e.currentTarget.checked })}
                />{' '}
                {i.label}
              </label>
            ) : (
              <>
                <label for={id}>{i.label}</label>
                <input
                  id={id}
                  type={(i.type ?? 'text') as 'text'}
                  autocomplete="off"
                  value={String(values[i.name] ?? '')}
                  onInput={(e) => setValues({ ...values, [i.name]: e.currentTarget.value })}
                  aria-invalid={messages ? 'true' : undefined}
                  aria-describedby={described}
                />
              </>
            )}
            {i.hint && (
              <p class="hint" id={`${id}-hint`}>
                {i.hint}
              </p>
            )}
            {messages && (
              <p class="field-error" id={`${id}-error`}>
                {messages.join('; ')}
              </p>
            )}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" class="primary">
          Create
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
