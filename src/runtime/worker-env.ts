// The environment that lets a RunPod SDK worker (or Gantry's own) serve an endpoint:
// URL templates with the placeholders the SDKs substitute, its credential and its ids.
import type { GantryConfig } from '../config.js';
import { randomId } from '../domain/ids.js';

export function workerEnvironment(
  config: GantryConfig,
  endpointId: string,
  credential: string,
  workerId = `worker-${randomId(10)}`,
  /** Where the worker calls: the public worker API, or the replica that started it. */
  baseUrl = config.workerApiUrl,
): Record<string, string> {
  const base = `${baseUrl}/v2/${endpointId}`;
  // Take, done and stream URLs must already hold a `?`: the SDKs append `&name=value`.
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?runtime=gantry`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?runtime=gantry`,
    RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?runtime=gantry`,
    RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
    RUNPOD_PING_INTERVAL: String(config.workerPingIntervalMs),
    RUNPOD_POD_ID: workerId,
    RUNPOD_ENDPOINT_ID: endpointId,
    RUNPOD_AI_API_KEY: credential,
    RUNPOD_SKIP_AUTO_SYSTEM_CHECKS: 'true',
  };
}

/** `KEY='value'` lines a shell can `eval` or a `.env` file can hold. */
export function formatEnvironment(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([key, value]) => `${key}='${value.replace(/'/g, `'\\''`)}'`)
    .join('\n');
}
