// One endpoint: its tabs, each a page of its own under /endpoints/<id>/<tab>.
import { useState } from 'preact/hooks';
import { api, apiPath } from '../api';
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

/** A load-balancing endpoint has no job queue: its requests go straight to its workers. */
const QUEUE_TABS = new Set(['requests', 'playground', 'health']);
/** None until the endpoint is read: a load balancer's page must not offer queue tabs meanwhile. */
const tabsOf = (endpoint: Endpoint | undefined) =>
  !endpoint ? [] : endpoint.type === 'LOAD_BALANCER' ? TABS.filter(([key]) => !QUEUE_TABS.has(key)) : TABS;

export function EndpointPage({ id, tab }: { id: string; tab: string }) {
  const writer = canWrite(useStore(session));
  const { data: endpoint, error } = usePoll(() => api<Endpoint>('GET', apiPath`/v2/serverless/${id}`), 15_000, [id]);
  const [removeError, setRemoveError] = useState<unknown>(undefined);
  const remove = async () => {
    if (!endpoint || !confirm(`Delete endpoint ${endpoint.name}? Its queued and running jobs are dropped.`)) return;
    try {
      await api('DELETE', apiPath`/v2/serverless/${id}`);
      navigate('/');
    } catch (err) {
      setRemoveError(err);
    }
  };
  const shown = endpoint && tabsOf(endpoint).some(([key]) => key === tab) ? tab : 'overview';
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
      <ErrorNote error={error ?? removeError} />
      <nav class="tabs" aria-label="Endpoint">
        {tabsOf(endpoint).map(([key, label]) => (
          <Link key={key} to={`/endpoints/${id}/${key}`} aria-current={shown === key ? 'page' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      {endpoint && (
        <div class="tab-body">
          {shown === 'overview' && <Overview endpoint={endpoint} />}
          {shown === 'requests' && <Requests endpoint={endpoint} />}
          {shown === 'playground' && <Playground endpoint={endpoint} />}
          {shown === 'workers' && <Workers endpoint={endpoint} />}
          {shown === 'releases' && <Releases endpoint={endpoint} />}
          {shown === 'metrics' && <Metrics endpoint={endpoint} />}
          {shown === 'health' && <HealthTab endpoint={endpoint} />}
        </div>
      )}
    </Page>
  );
}
