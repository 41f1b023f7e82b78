// One account's resources for the cross-account scenario: an endpoint with a second release, a
// template, jobs in three states, a known worker with a credential, and extra API keys.
import { callJson, describeAnswer, request } from './http.js';
import { createEndpoint, queueEndpointBody } from './endpoints.js';
import { createWorkerCredential, type StoreLocation } from './store-access.js';

export interface Tenant {
  name: string;
  apiKey: string;
  endpointId: string;
  templateId: string;
  workerId: string;
  workerCredential: string;
  /** Job ids by state: queued, running (held by the worker), completed. */
  jobs: { queued: string; running: string; completed: string };
}

async function expectOk(what: string, answer: Promise<{ status: number; text: string; json: any }>): Promise<any> {
  const settled = await answer;
  if (settled.status < 200 || settled.status >= 300) throw new Error(`${what} answered ${settled.status}: ${settled.text}`);
  return settled.json;
}

export async function createTenant(base: string, store: StoreLocation, name: string, apiKey: string): Promise<Tenant> {
  const endpointId = await createEndpoint(base, apiKey, queueEndpointBody(`${name}-endpoint`));
  // A change makes release 2, so the releases route has history to leak.
  await expectOk('endpoint update', callJson(base, apiKey, 'PATCH', `/v2/serverless/${endpointId}`, { env: { OWNER: name } }));
  const template = await expectOk(
    'template create',
    callJson(base, apiKey, 'POST', '/v2/templates', { name: `${name}-template`, image: `${name}/t:1` }),
  );
  const workerCredential = await createWorkerCredential(store, endpointId);
  const workerId = `${name}-worker`;
  const take = async () => {
    const taken = await request(`${base}/v2/${endpointId}/job-take/${workerId}`, { headers: { authorization: workerCredential } });
    if (taken.status !== 200) throw new Error(`${name}'s worker could not take a job: ${taken.status} ${taken.text}`);
    return taken.json.id as string;
  };
  const submit = async (tag: string) =>
    (await expectOk('run', callJson(base, apiKey, 'POST', `/v2/${endpointId}/run`, { input: { owner: name, tag } }))).id as string;

  const completed = await submit('completed');
  await take();
  await expectOk(
    'job-done',
    request(`${base}/v2/${endpointId}/job-done/${workerId}/${completed}`, {
      method: 'POST',
      headers: { authorization: workerCredential, 'content-type': 'application/json' },
      body: JSON.stringify({ output: `${name}-secret-output` }),
    }),
  );
  const running = await submit('running');
  await take();
  const queued = await submit('queued');
  return { name, apiKey, endpointId, templateId: template.id, workerId, workerCredential, jobs: { queued, running, completed } };
}

/** What must not change when another account probes: read with the owner's own key. */
export async function snapshot(base: string, tenant: Tenant): Promise<unknown> {
  const get = async (path: string) => {
    const answer = await callJson(base, tenant.apiKey, 'GET', path);
    // The owner's own reads must answer in JSON; anything else is not a snapshot to compare.
    if (answer.json === undefined) throw new Error(`${tenant.name}'s GET ${path} answered ${describeAnswer(answer)}`);
    return { status: answer.status, body: answer.json };
  };
  const job = async (id: string) => {
    const { status, body } = await get(`/v2/${tenant.endpointId}/status/${id}`);
    return { status, state: body?.status, output: body?.output, retries: body?.retries };
  };
  const workers = await get(`/v2/serverless/${tenant.endpointId}/workers`);
  const releases = await get(`/v2/serverless/${tenant.endpointId}/releases`);
  return {
    endpoint: await get(`/v2/serverless/${tenant.endpointId}`),
    template: await get(`/v2/templates/${tenant.templateId}`),
    jobs: { queued: await job(tenant.jobs.queued), running: await job(tenant.jobs.running), completed: await job(tenant.jobs.completed) },
    workerIds: JSON.stringify(workers.body).match(new RegExp(`${tenant.workerId}`, 'g'))?.length ?? 0,
    releaseCount: JSON.stringify(releases.body).match(/"version"/g)?.length ?? 0,
    keyStillWorks: workers.status,
  };
}
