// The endpoint list: status, workers by state, queue depth and the last hour's requests.
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import { Link } from '../router';
import { canWrite, session, useStore } from '../state';
import type { Endpoint, Health, Series, WorkersAnswer } from '../types';
import { Table } from '../table';
import { ErrorNote, Page } from '../ui';

interface Row {
  endpoint: Endpoint;
  health?: Health;
  lastHour?: number;
}

/** A load-balancing endpoint has no queue, so no /health: its workers are counted from its list. */
async function healthOf(endpoint: Endpoint): Promise<Health> {
  if (endpoint.type !== 'LOAD_BALANCER') return api<Health>('GET', apiPath`/v2/${endpoint.id}/health`);
  const { summary } = await api<WorkersAnswer>('GET', apiPath`/v2/serverless/${endpoint.id}/workers`);
  return {
    jobs: { completed: 0, failed: 0, inProgress: 0, inQueue: 0, retried: 0 },
    workers: { ...summary, ready: summary.idle + summary.running },
  };
}

async function loadRows(): Promise<Row[]> {
  const { endpoints } = await api<{ endpoints: Endpoint[] }>('GET', '/v2/serverless');
  return Promise.all(
    endpoints.map(async (endpoint) => {
      const [health, series] = await Promise.all([
        healthOf(endpoint).catch(() => undefined),
        api<Series>('GET', `${apiPath`/v2/serverless/${endpoint.id}/series`}?minutes=60&step=3600`).catch(() => undefined),
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
      {data && (
        <Table
          caption="Endpoints of this account"
          rows={data}
          rowKey={(row) => row.endpoint.id}
          empty={<>No endpoints yet.{writer && ' Create one to run jobs on workers.'}</>}
          columns={[
            {
              label: 'Name',
              rowHeader: true,
              cell: (row) => (
                <>
                  <Link to={`/endpoints/${row.endpoint.id}`}>{row.endpoint.name}</Link>
                  <div class="sub">
                    {row.endpoint.id} · {row.endpoint.type === 'QUEUE' ? 'queue' : 'load balancer'}
                  </div>
                </>
              ),
            },
            { label: 'Status', cell: status },
            { label: 'Running', cell: (row) => row.health?.workers.running ?? '—' },
            { label: 'Idle', cell: (row) => row.health?.workers.idle ?? '—' },
            { label: 'Initializing', cell: (row) => row.health?.workers.initializing ?? '—' },
            { label: 'Throttled', cell: (row) => row.health?.workers.throttled ?? '—' },
            { label: 'In queue', cell: (row) => (row.endpoint.type === 'QUEUE' ? (row.health?.jobs.inQueue ?? '—') : '—') },
            { label: 'Requests (1 h)', cell: (row) => row.lastHour ?? '—' },
          ]}
        />
      )}
    </Page>
  );
}
