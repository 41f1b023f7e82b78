// The published OpenAPI document is valid 3.1 and describes the routes the server serves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startHarness } from './support/harness.js';

test('GET /v2/openapi.json is a valid OpenAPI 3.1 document of the management API', async () => {
  const h = await startHarness();
  try {
    const res = await h.app.inject({ method: 'GET', url: '/v2/openapi.json' });
    assert.equal(res.statusCode, 200, 'served without a key');
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const result = await new Validator().validate(doc);
    assert.deepEqual(result.errors ?? [], [], JSON.stringify(result.errors, null, 1));
    assert.equal(result.valid, true);
    const operations = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((methods) =>
      Object.values(methods).map((op) => op.operationId),
    );
    for (const id of ['listEndpoints', 'createEndpoint', 'getEndpoint', 'updateEndpoint', 'deleteEndpoint']) {
      assert.ok(operations.includes(id), `${id} is documented`);
    }
    assert.ok(doc.paths['/v2/serverless/{id}'], 'path parameters use OpenAPI syntax');
    assert.ok(!doc.paths['/v2/openapi.json'], 'the document does not list itself');
  } finally {
    await h.close();
  }
});
