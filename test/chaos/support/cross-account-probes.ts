// The requests another account makes against a tenant's resources: every read, write and delete
// route, on the owner's paths and on the prober's own paths carrying the owner's ids.
import type { Tenant } from './tenant.js';

export interface Probe {
  method: string;
  path: string;
  body?: unknown;
}

export function apiProbes(owner: Tenant, prober: Tenant): Probe[] {
  const ep = owner.endpointId;
  const jobIds = Object.values(owner.jobs);
  const onOwnerPaths: Probe[] = [
    { method: 'GET', path: `/v2/serverless/${ep}` },
    { method: 'PATCH', path: `/v2/serverless/${ep}`, body: { name: 'taken-over' } },
    { method: 'DELETE', path: `/v2/serverless/${ep}` },
    { method: 'GET', path: `/v2/serverless/${ep}/workers` },
    { method: 'GET', path: `/v2/serverless/${ep}/releases` },
    { method: 'GET', path: `/v2/serverless/${ep}/jobs` },
    { method: 'GET', path: `/v2/serverless/${ep}/series` },
    { method: 'GET', path: `/v2/serverless/${ep}/workers/${owner.workerId}/logs?follow=false` },
    { method: 'GET', path: `/v2/templates/${owner.templateId}` },
    { method: 'PATCH', path: `/v2/templates/${owner.templateId}`, body: { name: 'taken-over' } },
    { method: 'DELETE', path: `/v2/templates/${owner.templateId}` },
    { method: 'POST', path: `/v2/${ep}/run`, body: { input: { intruder: true } } },
    { method: 'POST', path: `/v2/${ep}/runsync?wait=1000`, body: { input: { intruder: true } } },
    { method: 'POST', path: `/v2/${ep}/purge-queue` },
    { method: 'GET', path: `/v2/${ep}/health` },
    { method: 'GET', path: `/v2/lb/${ep}/anything` },
    // The owner's key, by its id (the part of the token before the secret).
    { method: 'DELETE', path: `/v2/account/keys/${owner.apiKey.split('_')[1]}` },
    ...jobIds.flatMap((id): Probe[] => [
      { method: 'GET', path: `/v2/${ep}/status/${id}` },
      { method: 'POST', path: `/v2/${ep}/status/${id}?ttl=1000` },
      { method: 'GET', path: `/v2/${ep}/status-sync/${id}?wait=1000` },
      { method: 'GET', path: `/v2/${ep}/stream/${id}` },
      { method: 'POST', path: `/v2/${ep}/cancel/${id}` },
      { method: 'POST', path: `/v2/${ep}/retry/${id}` },
      { method: 'GET', path: `/v2/serverless/${ep}/jobs/${id}` },
    ]),
  ];
  const own = prober.endpointId;
  const onProberPaths: Probe[] = [
    { method: 'GET', path: `/v2/serverless/${own}/workers/${owner.workerId}/logs?follow=false` },
    ...jobIds.flatMap((id): Probe[] => [
      { method: 'GET', path: `/v2/${own}/status/${id}` },
      { method: 'GET', path: `/v2/${own}/status-sync/${id}?wait=1000` },
      { method: 'GET', path: `/v2/${own}/stream/${id}` },
      { method: 'POST', path: `/v2/${own}/cancel/${id}` },
      { method: 'POST', path: `/v2/${own}/retry/${id}` },
      { method: 'GET', path: `/v2/serverless/${own}/jobs/${id}` },
    ]),
  ];
  return [...onOwnerPaths, ...onProberPaths];
}

/** A worker credential of `intruder` used on `victim`'s endpoint and worker ids, and on its own endpoint with the victim's worker id. */
export function workerProbes(intruder: Tenant, victim: Tenant): Probe[] {
  const theirs = victim.endpointId;
  const mine = intruder.endpointId;
  const job = victim.jobs.running;
  return [
    { method: 'GET', path: `/v2/${theirs}/job-take/${intruder.workerId}` },
    { method: 'GET', path: `/v2/${theirs}/job-take/${victim.workerId}` },
    { method: 'GET', path: `/v2/${theirs}/job-take-batch/${victim.workerId}?batch_size=5` },
    { method: 'GET', path: `/v2/${theirs}/ping/${victim.workerId}?job_id=${job}` },
    { method: 'GET', path: `/v2/${theirs}/job-stop/${victim.workerId}` },
    { method: 'POST', path: `/v2/${theirs}/job-done/${victim.workerId}/${job}`, body: { output: 'forged' } },
    { method: 'POST', path: `/v2/${theirs}/job-stream/${victim.workerId}/${job}`, body: { output: 'forged' } },
    { method: 'GET', path: `/v2/${mine}/job-take/${victim.workerId}` },
    { method: 'GET', path: `/v2/${mine}/ping/${victim.workerId}?job_id=${job}` },
    { method: 'POST', path: `/v2/${mine}/job-done/${victim.workerId}/${job}`, body: { output: 'forged' } },
    { method: 'POST', path: `/v2/${mine}/job-done/${intruder.workerId}/${job}`, body: { output: 'forged' } },
    { method: 'GET', path: '/v2/serverless' },
    { method: 'GET', path: `/v2/serverless/${theirs}` },
  ];
}
