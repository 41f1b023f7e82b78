// One endpoint: its tabs, each a page of its own under /endpoints/<id>/<tab>.
import { api } from '../api';
import { usePoll } from '../live';
import { Link, navigate } from '../router';
import { canWrite, session, useStore } from '../state';
import type { Endpoint } from '../types';
import { ErrorNote, Page } from '../ui';
import { Overview } from './overview';
import { Requests } from './requests';
import { Playground } from './playground';
import { Workers } from './workers';
import { Releases } from './releases';
import { Metrics } from './metrics';
import { HealthTab } from './health';

const TABS = [
  ['overview', 'Overview'],
  ['requests', 'Requests'],
  ['playground', 'Playground'],
  ['workers', 'Workers'],
  ['releases', 'Releases'],
  ['metrics', 'Metrics'],
  ['health', 'Health'],
] as const;

export function EndpointPage({ id, tab }: { id: string; tab: string }) {
  const writer = canWrite(useStore(session));
  const { data: endpoint, error } = usePoll(() => api<Endpoint>('GET', `/v2/serverless/${id}`), 15_000, [id]);
  const remove = async () => {
    if (!endpoint || !confirm(`Delete endpoint ${endpoint.name}? Its queued and running jobs are dropped.`)) return;
    await api('DELETE', `/v2/serverless/${id}`);
    navigate('/');
  };
  return (
    <Page
      title={endpoint?.name ?? id}
      actions={
        writer &&
        endpoint && (
          <>
            <Link to={`/endpoints/${id}/edit`} class="button">
              Edit
            </Link>
            <button type="button" class="danger" onClick={() => void remove()}>
              Delete
            </button>
          </>
        )
      }
    >
      <ErrorNote error={error} />
      <nav class="tabs" aria-label="Endpoint">
        {TABS.map(([key, label]) => (
          <Link key={key} to={`/endpoints/${id}/${key}`} aria-current={tab === key ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      {endpoint && (
        <div class="tab-body">
          {tab === 'overview' && <Overview endpoint={endpoint} />}
          {tab === 'requests' && <Requests endpoint={endpoint} />}
          {tab === 'playground' && <Playground endpoint={endpoint} />}
          {tab === 'workers' && <Workers endpoint={endpoint} />}
          {tab === 'releases' && <Releases endpoint={endpoint} />}
          {tab === 'metrics' && <Metrics endpoint={endpoint} />}
          {tab === 'health' && <HealthTab endpoint={endpoint} />}
        </div>
      )}
    </Page>
  );
}
