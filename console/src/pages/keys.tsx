// The account's API keys: the signed-in one, the list (never a secret), creating one (its secret
// shown this once, with a copy button) and revoking with confirmation. Revoking the signed-in key
// ends this session at the next call.
import { useState } from 'preact/hooks';
import { api, Problem } from '../api';
import { usePoll } from '../live';
import { canWrite, session, useStore } from '../state';
import { Table } from '../table';
import { CopyButton, ErrorNote, Page } from '../ui';
import { errorsByPath } from './resource-errors';

interface ApiKey {
  id: string;
  name: string;
  permission: 'full' | 'read' | 'endpoints';
  endpointIds: string[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  status: 'ACTIVE' | 'EXPIRED' | 'REVOKED';
}

const MEANING: Record<string, string> = {
  full: 'everything this account can do',
  read: 'read only: nothing can be created, changed, run or deleted',
  endpoints: 'only the queues of some endpoints',
};

const date = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '—');

export function KeysPage() {
  const current = useStore(session);
  const writer = canWrite(current);
  const signedInId = current?.key.split('_')[1];
  const { data, error, reload } = usePoll(() => api<{ keys: ApiKey[] }>('GET', '/v2/account/keys').then((a) => a.keys), 10_000, []);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const revoke = async (key: ApiKey) => {
    const self = key.id === signedInId;
    const warning = self ? ' This is the key you are signed in with: the console signs out.' : '';
    if (!confirm(`Revoke API key ${key.name}? Every request with it is refused from now on.${warning}`)) return;
    setActionError(undefined);
    try {
      await api('DELETE', `/v2/account/keys/${encodeURIComponent(key.id)}`);
      if (self) session.set(null);
      else reload();
    } catch (err) {
      setActionError(err);
    }
  };
  return (
    <Page
      title="API keys"
      actions={
        writer &&
        !creating && (
          <button
            type="button"
            class="primary"
            onClick={() => {
              setSecret(null);
              setCreating(true);
            }}
          >
            New API key
          </button>
        )
      }
    >
      {current && (
        <p class="summary">
          Signed in with <strong>{current.name}</strong>: {current.permission}, {MEANING[current.permission]}.
        </p>
      )}
      {secret && (
        <div class="card secret" role="status" aria-label="New API key">
          <p>
            <strong>{secret.name}</strong> was created. Copy its key now: it is not shown again.
          </p>
          <div class="inline">
            <code class="secret-value">{secret.key}</code> <CopyButton text={secret.key} label="Copy key" />
          </div>
          <button type="button" class="small" onClick={() => setSecret(null)}>
            Done
          </button>
        </div>
      )}
      {creating && (
        <KeyForm
          onCreated={(name, key) => {
            setCreating(false);
            setSecret({ name, key });
            reload();
          }}
          onCancel={() => setCreating(false)}
        />
      )}
      <ErrorNote error={error ?? actionError} />
      {data && (
        <Table
          caption="API keys"
          rows={data}
          rowKey={(k) => k.id}
          columns={[
            {
              label: 'Name',
              cell: (k) => (
                <>
                  {k.name}
                  {k.id === signedInId && <span class="hint"> (this session)</span>}
                </>
              ),
            },
            { label: 'Id', cell: (k) => <code>{k.id}</code> },
            { label: 'Permission', cell: (k) => (k.permission === 'endpoints' ? `endpoints: ${k.endpointIds.join(', ')}` : k.permission) },
            { label: 'Created', cell: (k) => date(k.createdAt) },
            { label: 'Expires', cell: (k) => (k.expiresAt ? date(k.expiresAt) : 'never') },
            {
              label: 'Status',
              cell: (k) => (k.status === 'ACTIVE' ? 'active' : k.status === 'EXPIRED' ? 'expired' : `revoked ${date(k.revokedAt)}`),
            },
            {
              label: 'Actions',
              labelHidden: true,
              class: 'row-actions',
              cell: (k) =>
                writer &&
                k.status !== 'REVOKED' && (
                  <button type="button" class="small danger" aria-label={`Revoke ${k.name}`} onClick={() => void revoke(k)}>
                    Revoke
                  </button>
                ),
            },
          ]}
        />
      )}
      <p class="hint">
        Gantry keeps only a hash of each key's secret: a lost key cannot be shown again, only revoked and replaced. A key never makes one
        with more than it has. Operators also manage keys with <code>gantry keys</code>.
      </p>
    </Page>
  );
}

function KeyForm({ onCreated, onCancel }: { onCreated: (name: string, key: string) => void; onCancel: () => void }) {
  const [name, setName] = useState('');
  const [permission, setPermission] = useState('read');
  const [expires, setExpires] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [failure, setFailure] = useState<unknown>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { name, permission };
    if (expires !== '') body.expiresAt = new Date(expires).toISOString();
    try {
      const created = await api<{ name: string; key: string }>('POST', '/v2/account/keys', body);
      onCreated(created.name, created.key);
    } catch (err) {
      setErrors(err instanceof Problem ? errorsByPath(err.errors, ['name', 'permission', 'expiresAt']) : {});
      setFailure(err);
    }
  };
  const fieldError = (field: string) =>
    errors[field] && (
      <p class="field-error" id={`key-${field}-error`}>
        {errors[field].join('; ')}
      </p>
    );
  return (
    <form class="form card" noValidate onSubmit={(e) => void submit(e)} aria-label="New API key">
      <ErrorNote error={failure} />
      <div class={`field${errors.name ? ' invalid' : ''}`}>
        <label for="key-name">Name</label>
        <input
          id="key-name"
          autocomplete="off"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          aria-invalid={errors.name ? 'true' : undefined}
          aria-describedby={errors.name ? 'key-name-error' : undefined}
        />
        {fieldError('name')}
      </div>
      <div class={`field${errors.permission ? ' invalid' : ''}`}>
        <label for="key-permission">Permission</label>
        <select id="key-permission" value={permission} onChange={(e) => setPermission(e.currentTarget.value)}>
          <option value="read">read — {MEANING.read}</option>
          <option value="full">full — {MEANING.full}</option>
        </select>
        {fieldError('permission')}
      </div>
      <div class={`field${errors.expiresAt ? ' invalid' : ''}`}>
        <label for="key-expires">Expires (optional)</label>
        <input
          id="key-expires"
          type="datetime-local"
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
          aria-invalid={errors.expiresAt ? 'true' : undefined}
          aria-describedby={errors.expiresAt ? 'key-expiresAt-error' : 'key-expires-hint'}
        />
        <p class="hint" id="key-expires-hint">
          Never, when left empty. A key that expires can only make keys that expire no later.
        </p>
        {fieldError('expiresAt')}
      </div>
      <div class="actions">
        <button type="submit" class="primary">
          Create
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
