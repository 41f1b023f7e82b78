// Registry credentials for tests that need an endpoint or template to name one.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

let counter = 0;

/** Stores a credential in the account of `key` (the admin key by default); its id. */
export async function addRegistry(h: Pick<Harness, 'call'>, key?: string, login = { username: 'user', password: 'pass' }): Promise<string> {
  const res = await h.call('POST', '/v2/registries', { name: `registry-${process.pid}-${++counter}`, ...login }, key);
  assert.equal(res.statusCode, 201, res.body);
  return (res.json() as { id: string }).id;
}
