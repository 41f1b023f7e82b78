// Where a worker finds its queue, read from the RunPod worker environment, and the URLs it calls.

export interface WorkerEnvironment {
  workerId: string;
  endpointId: string | undefined;
  credential: string;
  pingIntervalMs: number;
  takeUrl(batchSize: number, jobInProgress: boolean): string;
  stopUrl(): string;
  doneUrl(jobId: string, isStream: boolean): string;
  /** Gantry's route for several results at once, beside job-done; '' when the done URL has no place for it. */
  doneBatchUrl(): string;
  streamUrl(jobId: string): string;
  /** '' when RUNPOD_WEBHOOK_PING is not set: the worker then does not ping. */
  pingUrl(jobIds: string[]): string;
}

export class WorkerConfigError extends Error {
  override name = 'WorkerConfigError';
}

type Env = Record<string, string | undefined>;

/** Sent as `runpod_version` on pings so the server can tell which SDK a worker runs. */
export const SDK_VERSION = 'gantry-worker/1';

function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new WorkerConfigError(`${name} is not set; a worker needs the environment 'gantry worker-env <endpointId>' prints`);
  return value;
}

/** The SDK appends `&name=value`, so a template without `?` would produce a broken URL. */
function template(env: Env, name: string, fallback?: string): string {
  const value = env[name] || fallback;
  if (!value) return required(env, name);
  if (!value.includes('?')) throw new WorkerConfigError(`${name} must contain '?' (the worker appends its parameters with '&'): ${value}`);
  return value;
}

export function readEnvironment(env: Env): WorkerEnvironment {
  const takeTemplate = template(env, 'RUNPOD_WEBHOOK_GET_JOB');
  const doneTemplate = template(env, 'RUNPOD_WEBHOOK_POST_OUTPUT');
  // Older environments leave the stream URL out; it sits beside job-done.
  const streamTemplate = template(env, 'RUNPOD_WEBHOOK_POST_STREAM', doneTemplate.replace('/job-done/', '/job-stream/'));
  const workerId = required(env, 'RUNPOD_POD_ID');
  const credential = required(env, 'RUNPOD_AI_API_KEY');
  const interval = Number(env.RUNPOD_PING_INTERVAL || 10_000);
  if (!Number.isFinite(interval) || interval <= 0)
    throw new WorkerConfigError(`RUNPOD_PING_INTERVAL must be a positive number of milliseconds, not '${env.RUNPOD_PING_INTERVAL}'`);

  const forWorker = (url: string) => url.replaceAll('$RUNPOD_POD_ID', workerId);
  const take = forWorker(takeTemplate).replaceAll('$ID', workerId);
  const done = forWorker(doneTemplate);
  const stream = forWorker(streamTemplate);
  const ping = forWorker(env.RUNPOD_WEBHOOK_PING ?? '');
  const inProgress = (yes: boolean) => `job_in_progress=${yes ? 1 : 0}`;

  return {
    workerId,
    endpointId: env.RUNPOD_ENDPOINT_ID,
    credential,
    pingIntervalMs: interval,
    takeUrl: (batchSize, jobInProgress) =>
      batchSize > 1
        ? `${take.replace('/job-take/', '/job-take-batch/')}&${inProgress(jobInProgress)}&batch_size=${batchSize}`
        : `${take}&${inProgress(jobInProgress)}`,
    stopUrl: () => take.replace('/job-take/', '/job-stop/'),
    doneUrl: (jobId, isStream) => `${done.replaceAll('$ID', encodeURIComponent(jobId))}&isStream=${isStream}`,
    doneBatchUrl: () => {
      const [path, query = ''] = done.split('?');
      const batch = path!.replace(/\/job-done\/([^/]+)\/\$ID$/, '/job-done-batch/$1');
      return batch === path ? '' : `${batch}${query ? `?${query}` : ''}`;
    },
    streamUrl: (jobId) => `${stream.replaceAll('$ID', encodeURIComponent(jobId))}&isStream=false`,
    pingUrl: (jobIds) => {
      if (!ping) return '';
      const params = [
        ...(jobIds.length > 0 ? [`job_id=${jobIds.map(encodeURIComponent).join(',')}`] : []),
        `runpod_version=${encodeURIComponent(SDK_VERSION)}`,
      ];
      return `${ping}${ping.includes('?') ? '&' : '?'}${params.join('&')}`;
    },
  };
}
