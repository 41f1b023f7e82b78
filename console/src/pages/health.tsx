// The queue's /health answer: jobs and workers by state, as RunPod clients see it.
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import type { Endpoint, Health } from '../types';
import { ErrorNote } from '../ui';

export function HealthTab({ endpoint }: { endpoint: Endpoint }) {
  const { data, error } = usePoll(() => api<Health>('GET', apiPath`/v2/${endpoint.id}/health`), 3000, [endpoint.id]);
  return (
    <div class="stack">
      <ErrorNote error={error} />
      {data && (
        <div class="cards">
          <div class="card">
            <h2>Jobs</h2>
            <dl>
              {Object.entries(data.jobs).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          </div>
          <div class="card">
            <h2>Workers</h2>
            <dl>
              {Object.entries(data.workers).map(([k, v]) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          </div>
        </div>
      )}
    </div>
  );
}
