// Account resources that share one shape: a list, a create form and delete with confirmation.
// Templates, registry credentials, network volumes and secrets.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { usePoll } from '../live';
import { canWrite, session, useStore } from '../state';
import { Table } from '../table';
import { ErrorNote, Page } from '../ui';
import { ResourceForm, type Input } from './resource-form';

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
  /** Fields its PATCH takes, when it has one; only those changed are sent. */
  editable?: Input[];
  /** Said under the title: how the resource is changed when it cannot be edited. */
  note?: string;
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
    editable: [
      { name: 'name', label: 'Name' },
      { name: 'image', label: 'Container image' },
      { name: 'disk', label: 'Container disk (GB)', type: 'number' },
      { name: 'serverless', label: 'For serverless endpoints', type: 'checkbox' },
      { name: 'public', label: 'Public: other accounts may read and use it', type: 'checkbox' },
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
    note: 'A credential cannot be changed. To replace one, create a new credential, point the endpoints and templates that use the old one at it, then delete the old one.',
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
      { label: 'Data center', value: text('dataCenter') },
      { label: 'Size (GB)', value: text('size') },
    ],
    inputs: [
      { name: 'name', label: 'Name' },
      { name: 'size', label: 'Size (GB)', type: 'number' },
      { name: 'dataCenter', label: 'Data center', hint: 'LOCAL unless this deployment lists others' },
    ],
    editable: [
      { name: 'name', label: 'Name' },
      { name: 'size', label: 'Size (GB)', type: 'number', hint: 'A volume can grow, never shrink' },
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
  const [editing, setEditing] = useState<Record<string, unknown> | null>(null);
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
        !creating &&
        !editing && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New {r.singular}
          </button>
        )
      }
    >
      {r.note && <p class="hint">{r.note}</p>}
      {creating && (
        <ResourceForm
          label={`New ${r.singular}`}
          inputs={r.inputs}
          submitLabel="Create"
          send={(body) => api('POST', r.api, body)}
          onDone={() => {
            setCreating(false);
            reload();
          }}
        />
      )}
      {editing && r.editable && (
        <ResourceForm
          key={String(editing[r.key])}
          label={`Edit ${r.singular} ${String(editing.name ?? editing[r.key])}`}
          inputs={r.editable}
          initial={editing}
          submitLabel="Save"
          send={(body) => api('PATCH', `${r.api}/${encodeURIComponent(String(editing[r.key]))}`, body)}
          onDone={() => {
            setEditing(null);
            reload();
          }}
        />
      )}
      <ErrorNote error={error ?? actionError} />
      {data && (
        <Table
          caption={r.title}
          rows={data}
          rowKey={(row) => String(row[r.key])}
          empty="None yet."
          columns={[
            ...r.columns.map((c) => ({ label: c.label, cell: c.value })),
            {
              label: 'Actions',
              labelHidden: true,
              class: 'row-actions',
              cell: (row) => (
                <>
                  {writer && r.editable && (
                    <button
                      type="button"
                      class="small"
                      aria-label={`Edit ${String(row.name ?? row[r.key])}`}
                      onClick={() => {
                        setCreating(false);
                        setEditing(row);
                      }}
                    >
                      Edit
                    </button>
                  )}{' '}
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
                </>
              ),
            },
          ]}
        />
      )}
    </Page>
  );
}
