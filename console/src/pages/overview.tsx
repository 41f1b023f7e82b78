// The endpoint's settings at a glance and how to call it: curl, and the RunPod SDKs pointed here.
import type { Endpoint } from '../types';
import { Code, ms } from '../ui';

export function Overview({ endpoint: e }: { endpoint: Endpoint }) {
  const base = `${location.origin}/v2`;
  const compute = e.gpu
    ? `GPU ${e.gpu.pools.join(', ')} × ${e.gpu.count}`
    : (e.cpu ?? []).map((c) => `${c.id} · ${c.vcpuCount} vCPU`).join(', ');
  const scaling =
    e.scaling.type === 'QUEUE_DELAY' ? `queue delay ${e.scaling.queueDelay} s` : `${e.scaling.requestCount} requests per worker`;
  const curl = `curl -X POST ${base}/${e.id}/runsync \\
  -H "Authorization: Bearer $RUNPOD_API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"input": {"prompt": "Hello"}}'`;
  const python = `import os, runpod

runpod.api_key = os.environ["RUNPOD_API_KEY"]
runpod.endpoint_url_base = "${base}"

endpoint = runpod.Endpoint("${e.id}")
print(endpoint.run_sync({"prompt": "Hello"}, timeout=60))`;
  const js = `import runpodSdk from "runpod-sdk";

const runpod = runpodSdk(process.env.RUNPOD_API_KEY, { baseUrl: "${base}" });
const endpoint = runpod.endpoint("${e.id}");
console.log(await endpoint.runSync({ input: { prompt: "Hello" } }));`;
  return (
    <div class="stack">
      <dl class="facts">
        <dt>Endpoint id</dt>
        <dd>
          <code>{e.id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{e.type === 'QUEUE' ? 'Queue' : 'Load balancer'}</dd>
        <dt>Image</dt>
        <dd>
          <code>{e.image}</code>
        </dd>
        <dt>Compute</dt>
        <dd>{compute}</dd>
        <dt>Workers</dt>
        <dd>
          {e.workers.min}–{e.workers.max}, idle timeout {e.workers.idleTimeout ?? '—'} s
        </dd>
        <dt>Scaling</dt>
        <dd>{scaling}</dd>
        <dt>Execution timeout</dt>
        <dd>{ms(e.timeout)}</dd>
        <dt>FlashBoot</dt>
        <dd>{e.flashboot}</dd>
        <dt>Version</dt>
        <dd>{e.version}</dd>
      </dl>
      <h2>Request URLs</h2>
      <ul class="urls">
        {Object.entries(e.requestUrls).map(([name, url]) => (
          <li key={name}>
            <span class="url-name">{name}</span> <code>{url}</code>
          </li>
        ))}
      </ul>
      {e.type === 'QUEUE' && (
        <>
          <h2>Call it</h2>
          <Code label="curl">{curl}</Code>
          <Code label="Python">{python}</Code>
          <Code label="JavaScript">{js}</Code>
        </>
      )}
    </div>
  );
}
