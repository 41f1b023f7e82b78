import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness, problem } from './support/harness.js';

test('unknown route is a problem+json 404', async () => {
  const h = await startHarness();
  try {
    const res = await h.call('GET', '/v2/nothing-here');
    assert.equal(res.statusCode, 404);
    assert.equal(problem(res).title, 'Not Found');
  } finally {
    await h.close();
  }
});
