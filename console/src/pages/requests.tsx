// Recent jobs of the endpoint, live: status, delay and execution time, a detail view, cancel and retry.
import { useState } from 'preact/hooks';
import { api, apiPath } from '../api';
import { usePoll } from '../live';
import { canWrite, session, useStore } from '../state';
import type { Endpoint, JobDetail, JobSummary } from '../types';
import { Table } from '../table';
import { Badge, ErrorNote, json, ms, when } from '../ui';

const STATUSES = ['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];
const PAGE = 25;

export function Requests({ endpoint }: { endpoint: Endpoint }) {
  const writer = canWrite(useStore(session));
  const [status, setStatus] = useState('');
  const [before, setBefore] = useState<number[]>([]);
  const [open, setOpen] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const cursor = before.at(-1);
  const query = `limit=${PAGE}${status ? `&status=${status}` : ''}${cursor ? `&before=${cursor}` : ''}`;
  const { data, error, reload } = usePoll(
    () => api<{ jobs: JobSummary[]; next: number | null }>('GET', `${apiPath`/v2/serverless/${endpoint.id}/jobs`}?${query}`),
    3000,
    [endpoint.id, query],
  );
  const act = async (action: 'cancel' | 'retry', id: string) => {
    setActionError(undefined);
    try {
      await api('POST', apiPath`/v2/${endpoint.id}/${action}/${id}`);
      reload();
    } catch (e) {
      setActionError(e);
    }
  };
  return (
    <div class="stack">
      <div class="toolbar">
        <label for="status-filter">Status</label>
        <select
          id="status-filter"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            setBefore([]);
          }}
        >
          <option value="">All</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        {before.length > 0 && (
          <button type="button" class="small" onClick={() => setBefore(before.slice(0, -1))}>
            Newer
          </button>
        )}
        {data?.next && (
          <button type="button" class="small" onClick={() => setBefore([...before, data.next!])}>
            Older
          </button>
        )}
      </div>
      <ErrorNote error={error ?? actionError} />
      {data && (
        <Table
          caption="Recent requests"
          rows={data.jobs}
          rowKey={(job) => job.id}
          rowData={(job) => ({ 'data-job': job.id })}
          empty={`No requests${status ? ` with status ${status}` : ''} kept right now.`}
          columns={[
            {
              label: 'Job',
              rowHeader: true,
              cell: (job) => (
                <button type="button" class="link" aria-expanded={open === job.id} onClick={() => setOpen(open === job.id ? null : job.id)}>
                  {job.id}
                </button>
              ),
            },
            {
              label: 'Status',
              cell: (job) => (
                <>
                  <Badge status={job.status} />
                  {job.retries > 0 && <span class="sub"> · {job.retries} retries</span>}
                </>
              ),
            },
            { label: 'Submitted', cell: (job) => when(job.submittedAt) },
            { label: 'Delay', cell: (job) => ms(job.delayTime) },
            { label: 'Execution', cell: (job) => ms(job.executionTime) },
            { label: 'Worker', class: 'mono', cell: (job) => job.workerId ?? '—' },
            {
              label: 'Actions',
              labelHidden: true,
              class: 'row-actions',
              cell: (job) => (
                <>
                  {writer && (job.status === 'IN_QUEUE' || job.status === 'IN_PROGRESS') && (
                    <button type="button" class="small" aria-label={`Cancel job ${job.id}`} onClick={() => void act('cancel', job.id)}>
                      Cancel
                    </button>
                  )}
                  {writer && (job.status === 'FAILED' || job.status === 'TIMED_OUT') && (
                    <button type="button" class="small" aria-label={`Retry job ${job.id}`} onClick={() => void act('retry', job.id)}>
                      Retry
                    </button>
                  )}
                </>
              ),
            },
          ]}
        />
      )}
      {open && <JobView endpointId={endpoint.id} jobId={open} onClose={() => setOpen(null)} />}
    </div>
  );
}

export function JobView({ endpointId, jobId, onClose }: { endpointId: string; jobId: string; onClose: () => void }) {
  const { data, error } = usePoll(() => api<JobDetail>('GET', apiPath`/v2/serverless/${endpointId}/jobs/${jobId}`), 2000, [
    endpointId,
    jobId,
  ]);
  return (
    <section class="detail" aria-label={`Job ${jobId}`}>
      <header class="page-head">
        <h2>Job {jobId}</h2>
        <button type="button" class="small" onClick={onClose}>
          Close
        </button>
      </header>
      <ErrorNote error={error} />
      {data && (
        <>
          <p>
            <Badge status={data.status} /> delay {ms(data.delayTime)} · execution {ms(data.executionTime)} · worker {data.workerId ?? '—'}
          </p>
          <h3>Input</h3>
          <pre tabIndex={0}>{json(data.input)}</pre>
          {data.output !== undefined && (
            <>
              <h3>Output</h3>
              <pre tabIndex={0}>{json(data.output)}</pre>
            </>
          )}
          {data.error && (
            <>
              <h3>Error</h3>
              <pre tabIndex={0} class="bad-text">
                {data.error}
              </pre>
            </>
          )}
          {data.stream.length > 0 && (
            <>
              <h3>Stream ({data.stream.length} chunks)</h3>
              <pre tabIndex={0}>{data.stream.map((c) => JSON.stringify(c)).join('\n')}</pre>
            </>
          )}
        </>
      )}
    </section>
  );
}
