// The endpoint list: status, workers by state, queue depth and the last hour's requests.
import { api } from '../api';
import { usePoll } from '../live';
import { Link } from '../router';
import { canWrite, session, useStore } from '../state';
import type { Endpoint, Health, Series } from '../types';
import { ErrorNote, Page } from '../ui';

interface Row {
  endpoint: Endpoint;
  health?: Health;
  lastHour?: number;
}

async function loadRows(): Promise<Row[]> {
  const { endpoints } = await api<{ endpoints: Endpoint[] }>('GET', '/v2/serverless');
  return Promise.all(
    endpoints.map(async (endpoint) => {
      const [health, series] = await Promise.all([
        api<Health>('GET', `/v2/${endpoint.id}/health`).catch(() => undefined),
        api<Series>('GET', `/v2/serverless/${endpoint.id}/series?minutes=60&step=3600`).catch(() => undefined),
      ]);
      return { endpoint, health, lastHour: series?.points.reduce((n, p) => n + p.submitted, 0) };
    }),
  );
}

function status(row: Row): string {
  const w = row.health?.workers;
  if (!w) return 'unknown';
  if (w.unhealthy > 0) return 'unhealthy';
  if (w.throttled > 0 && w.running + w.idle === 0) return 'throttled';
  if (w.running + w.idle > 0) return 'ready';
  if (w.initializing > 0) return 'starting';
  return 'scaled to zero';
}

export function EndpointList() {
  const writer = canWrite(useStore(session));
  const { data, error } = usePoll(loadRows, 5000);
  return (
    <Page
      title="Endpoints"
      actions={
        writer && (
          <Link to="/endpoints/new" class="button primary">
            New endpoint
          </Link>
        )
      }
    >
      <ErrorNote error={error} />
      {data && data.length === 0 && <p class="empty">No endpoints yet.{writer && ' Create one to run jobs on workers.'}</p>}
      {data && data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Endpoints of this account</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Running</th>
                <th scope="col">Idle</th>
                <th scope="col">Initializing</th>
                <th scope="col">Throttled</th>
                <th scope="col">In queue</th>
                <th scope="col">Requests (1 h)</th>
              </tr>
            </thead>
            <tbody>
              {data.map((row) => (
                <tr key={row.endpoint.id}>
                  <th scope="row">
                    <Link to={`/endpoints/${row.endpoint.id}`}>{row.endpoint.name}</Link>
                    <div class="sub">
                      {row.endpoint.id} · {row.endpoint.type === 'QUEUE' ? 'queue' : 'load balancer'}
                    </div>
                  </th>
                  <td>{status(row)}</td>
                  <td>{row.health?.workers.running ?? '—'}</td>
                  <td>{row.health?.workers.idle ?? '—'}</td>
                  <td>{row.health?.workers.initializing ?? '—'}</td>
                  <td>{row.health?.workers.throttled ?? '—'}</td>
                  <td>{row.health?.jobs.inQueue ?? '—'}</td>
                  <td>{row.lastHour ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Page>
  );
}
