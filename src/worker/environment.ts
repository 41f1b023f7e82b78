// Where a worker finds Gantry, read from the RunPod worker environment.

export interface WorkerEnvironment {
  workerId: string;
  endpointId: string | undefined;
  credential: string;
  pingIntervalMs: number;
  takeUrl(batchSize: number, jobInProgress: boolean): string;
  stopUrl(): string;
  doneUrl(jobId: string, isStream: boolean): string;
  streamUrl(jobId: string): string;
  pingUrl(jobIds: string[]): string;
}

export class WorkerConfigError extends Error {}

type Env = Record<string, string | undefined>;

function required(env: Env, name: string): string {
  const value = env[name];
  if (!value) throw new WorkerConfigError(`${name} is not set; a worker needs the environment from 'gantry worker-env <endpointId>'`);
  return value;
}

function withQuery(name: string, template: string): string {
  if (!template.includes('?')) throw new WorkerConfigError(`${name} must contain '?' (parameters are appended with '&')`);
  return template;
}

export function readEnvironment(env: Env, version = 'gantry-worker/1'): WorkerEnvironment {
  const workerId = required(env, 'RUNPOD_POD_ID');
  const take = withQuery('RUNPOD_WEBHOOK_GET_JOB', required(env, 'RUNPOD_WEBHOOK_GET_JOB')).replaceAll('$ID', workerId);
  const done = withQuery('RUNPOD_WEBHOOK_POST_OUTPUT', required(env, 'RUNPOD_WEBHOOK_POST_OUTPUT')).replaceAll('$RUNPOD_POD_ID', workerId);
  const stream = withQuery('RUNPOD_WEBHOOK_POST_STREAM', env.RUNPOD_WEBHOOK_POST_STREAM ?? done.replace('/job-done/', '/job-stream/')).replaceAll('$RUNPOD_POD_ID', workerId);
  const ping = (env.RUNPOD_WEBHOOK_PING ?? '').replaceAll('$RUNPOD_POD_ID', workerId);
  const interval = Number(env.RUNPOD_PING_INTERVAL ?? 10_000);
  if (!Number.isFinite(interval) || interval <= 0) throw new WorkerConfigError('RUNPOD_PING_INTERVAL must be a positive number of milliseconds');
  return {
    workerId,
    endpointId: env.RUNPOD_ENDPOINT_ID,
    credential: required(env, 'RUNPOD_AI_API_KEY'),
    pingIntervalMs: interval,
    takeUrl: (batchSize, jobInProgress) =>
      batchSize > 1
        ? `${take.replace('/job-take/', '/job-take-batch/')}&job_in_progress=${jobInProgress ? 1 : 0}&batch_size=${batchSize}`
        : `${take}&job_in_progress=${jobInProgress ? 1 : 0}`,
    stopUrl: () => take.replace('/job-take/', '/job-stop/'),
    doneUrl: (jobId, isStream) => `${done.replaceAll('$ID', jobId)}&isStream=${isStream}`,
    streamUrl: (jobId) => `${stream.replaceAll('$ID', jobId)}&isStream=false`,
    pingUrl: (jobIds) => {
      if (!ping) return '';
      const params = new URLSearchParams({ runpod_version: version });
      if (jobIds.length > 0) params.set('job_id', jobIds.join(','));
      return `${ping}${ping.includes('?') ? '&' : '?'}${params.toString()}`;
    },
  };
}
