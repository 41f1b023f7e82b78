// What the GraphQL operation tests share: a Gantry for the file, `data` to send a document as the
// Python SDK does and read its answer the way the SDK indexes it, and `firstError` for the error
// the SDK would raise. A test file calls useGraphqlHarness() at its top; its tests then read `h`.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, type Harness } from './harness.js';
import { graphql, sdkRead } from './graphql-clients.js';

export let h: Harness;
let counter = 0;
export const unique = (prefix: string) => `${prefix}-${++counter}`;

/** Starts `h` before the file's tests and closes it after them. */
export function useGraphqlHarness(): void {
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());
}

export interface Row {
  [field: string]: unknown;
}
export const data = async (query: string, options: Parameters<typeof graphql>[2] = {}) => sdkRead(await graphql(h, query, options));

export function firstError(body: { errors?: { message: string; path?: string[]; extensions: { code: string; errors?: string[] } }[] }) {
  assert.ok(body.errors?.[0], JSON.stringify(body));
  return body.errors[0];
}
