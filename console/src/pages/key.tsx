// The signed-in API key: what it may do. Keys are created and revoked with `gantry keys`.
import { api } from '../api';
import { usePoll } from '../live';
import { ErrorNote, Page } from '../ui';

interface CurrentKey {
  id: string;
  name: string;
  accountId: string;
  permission: string;
  endpointIds: string[];
  expiresAt: string | null;
  createdAt: string;
}

const MEANING: Record<string, string> = {
  full: 'Everything this account can do.',
  read: 'Read only: nothing can be created, changed, run or deleted.',
  endpoints: 'Only the queues of some endpoints.',
};

export function KeyPage() {
  const { data, error } = usePoll(() => api<CurrentKey>('GET', '/v2/account/key'), 0);
  return (
    <Page title="API key">
      <ErrorNote error={error} />
      {data && (
        <dl class="facts">
          <dt>Name</dt>
          <dd>{data.name}</dd>
          <dt>Key id</dt>
          <dd>
            <code>{data.id}</code>
          </dd>
          <dt>Account</dt>
          <dd>
            <code>{data.accountId}</code>
          </dd>
          <dt>Permission</dt>
          <dd>
            {data.permission} — {MEANING[data.permission]}
          </dd>
          <dt>Created</dt>
          <dd>{new Date(data.createdAt).toLocaleString()}</dd>
          <dt>Expires</dt>
          <dd>{data.expiresAt ? new Date(data.expiresAt).toLocaleString() : 'never'}</dd>
        </dl>
      )}
      <p class="hint">
        API keys are created, listed and revoked by the operator with <code>gantry keys</code>; the REST API has no key management.
      </p>
    </Page>
  );
}
