// A Gantry replica whose PostgreSQL goes away and comes back: while the database cannot be
// reached, requests get a 503 problem with Retry-After (not a 500, not a hang), and once it is
// back the same process serves again without a restart. The outage is a real TCP proxy that
// is cut and restored between Gantry and PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callApi, runCli, serve, stop, type ServeProcess } from './support/processes.js';
import { createPostgresSchema, NO_POSTGRES } from './support/test-store.js';
import { settles } from './support/live.js';

if (NO_POSTGRES) console.log(`# ${NO_POSTGRES} (database outage)`);
const skip = NO_POSTGRES ?? false;

/** A TCP proxy to PostgreSQL that can be cut (connections dropped, new ones refused) and restored on the same port. */
class CuttableProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = createConnection(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'gantry-outage-'));
let schema: Awaited<ReturnType<typeof createPostgresSchema>>;
let proxy: CuttableProxy;
let replica: ServeProcess;
let key: string;

before(async () => {
  if (skip) return;
  schema = await createPostgresSchema();
  const direct = new URL(schema.url);
  proxy = new CuttableProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  await proxy.open();
  const viaProxy = new URL(schema.url);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  key = runCli(['keys', 'create', '--database', schema.url]).trim();
  replica = await serve(['--database', viaProxy.toString(), '--data-dir', dataDir, '--worker-provider', 'none']);
});
after(async () => {
  if (replica) await stop(replica.child);
  await proxy?.cut();
  await schema?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

const call = (method: string, path: string, body?: unknown) => callApi(replica.url, key, method, path, body);

test('while PostgreSQL is unreachable requests answer 503 to retry; once it is back the replica serves again', { skip }, async () => {
  const endpoint = await call('POST', '/v2/serverless', {
    name: 'outage',
    type: 'QUEUE',
    scaling: { type: 'QUEUE_DELAY', queueDelay: 4 },
    image: 'acme/echo:1',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
  });
  assert.equal(endpoint.status, 201, JSON.stringify(endpoint.json));

  await proxy.cut();
  for (const [method, path, body] of [
    ['GET', '/v2/serverless'],
    ['POST', `/v2/${endpoint.json.id}/run`, { input: {} }],
  ] as const) {
    const down = await call(method, path, body);
    assert.equal(down.status, 503, `${method} ${path}: ${JSON.stringify(down.json)}`);
    assert.match(String(down.headers.get('content-type')), /^application\/problem\+json/);
    assert.equal(down.headers.get('retry-after'), '2');
    assert.equal(down.json.detail, 'the database is unavailable right now; retry shortly');
  }

  await proxy.open();
  await settles(async () => assert.equal((await call('GET', '/v2/serverless')).status, 200), 10_000, 100);
  const job = await call('POST', `/v2/${endpoint.json.id}/run`, { input: { after: 'outage' } });
  assert.equal(job.status, 200, JSON.stringify(job.json));
  assert.equal((await call('GET', `/v2/${endpoint.json.id}/status/${job.json.id}`)).json.status, 'IN_QUEUE');
});
