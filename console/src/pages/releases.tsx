// Configuration versions, newest first, with what changed and how far the rollout is.
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import type { Endpoint } from '../types';
import { ErrorNote } from '../ui';

interface Releases {
  endpointVersion: number;
  rollout: { inProgress: boolean; workersOnLatest: number; workersTotal: number; percentOnLatest: number };
  releases: {
    id: string;
    version: number;
    source: string;
    workerCount: number;
    createdAt: string;
    diff: { field: string; old: unknown; new: unknown }[];
  }[];
}

export function Releases({ endpoint }: { endpoint: Endpoint }) {
  const { data, error } = usePoll(() => api<Releases>('GET', apiPath`/v2/serverless/${endpoint.id}/releases`), 5000, [endpoint.id]);
  return (
    <div class="stack">
      <ErrorNote error={error} />
      {data && (
        <p>
          Version {data.endpointVersion}.{' '}
          {data.rollout.inProgress
            ? `Rolling out: ${data.rollout.workersOnLatest} of ${data.rollout.workersTotal} workers on it (${data.rollout.percentOnLatest}%).`
            : 'No rollout in progress.'}
        </p>
      )}
      {data?.releases.map((r) => (
        <details key={r.id} open={r.version === data.endpointVersion}>
          <summary>
            Version {r.version} · {new Date(r.createdAt).toLocaleString()} · {r.workerCount} workers
          </summary>
          <table>
            <caption class="sr-only">Changes in version {r.version}</caption>
            <thead>
              <tr>
                <th scope="col">Field</th>
                <th scope="col">Before</th>
                <th scope="col">After</th>
              </tr>
            </thead>
            <tbody>
              {r.diff.map((d) => (
                <tr key={d.field}>
                  <th scope="row">{d.field}</th>
                  <td class="mono">{JSON.stringify(d.old)}</td>
                  <td class="mono">{JSON.stringify(d.new)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      ))}
    </div>
  );
}
