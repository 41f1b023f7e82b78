// WebSocket tunnels through the balancer to a worker that ignores closes: a client's half-close
// ends the tunnel and frees the worker's slot, and a tunnel without traffic is closed after
// --lb-tunnel-idle-ms.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { eventually, startLive, type Live } from './support/live.js';
import { lbFetch } from './support/lb-client.js';
import { closedWithin, openRawTunnel } from './support/raw-tunnel.js';
import type { ConfigFlags } from '../src/config.js';

const STUBBORN_WORKER = { entrypoint: [process.execPath], cmd: [resolve('test/fixtures/workers/stubborn-websocket.mjs')] };
const SETTINGS: ConfigFlags = {
  workerProvider: 'process',
  scaleIntervalMs: '100',
  lbHealthIntervalMs: '100',
  lbHoldMs: '8000',
  workerStopGraceMs: '200',
};

const servers: Live[] = [];
after(() => Promise.all(servers.map((g) => g.close())));

/** A server with one stubborn worker taking `requestCount` requests at a time. */
async function stubbornEndpoint(flags: ConfigFlags, requestCount: number) {
  const g = await startLive({ ...SETTINGS, ...flags });
  servers.push(g);
  const created = await g.call('POST', '/v2/serverless', {
    name: 'stubborn',
    type: 'LOAD_BALANCER',
    image: 'local/stubborn',
    cpu: [{ id: 'cpu3c', vcpuCount: 2 }],
    scaling: { type: 'REQUEST_COUNT', requestCount },
    workers: { min: 1, max: 1 },
    ...STUBBORN_WORKER,
  });
  assert.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  const get = (path: string) => lbFetch({ url: g.url, path: `/v2/lb/${id}${path}`, headers: { authorization: `Bearer ${g.adminKey}` } });
  await eventually(async () => (await get('/ping')).json?.workers?.ready === 1, 20_000);
  return { g, get, tunnel: () => openRawTunnel(g.url, `/v2/lb/${id}/ws`, g.adminKey) };
}

test('tunnels the client half-closed end and free their slots, however the worker behaves', async () => {
  const { get, tunnel } = await stubbornEndpoint({}, 2);
  const tunnels = [await tunnel(), await tunnel()];
  assert.equal((await get('/ping')).json.requests.inFlight, 2, 'both tunnels hold a slot of the only worker');
  for (const { socket } of tunnels) socket.end();
  await Promise.all(tunnels.map(({ socket }) => closedWithin(socket, 6000)));
  const third = await get('/hello');
  assert.equal(third.status, 200, third.text);
  assert.equal((await get('/ping')).json.requests.inFlight, 0);
});

test('a tunnel with no traffic either way is closed after --lb-tunnel-idle-ms and its slot freed', async () => {
  const { get, tunnel } = await stubbornEndpoint({ lbTunnelIdleMs: '800' }, 1);
  const busy = await tunnel();
  // Traffic keeps a tunnel open past the idle time.
  for (let i = 0; i < 8; i++) {
    busy.socket.write('still here');
    await new Promise((done) => setTimeout(done, 250));
  }
  assert.equal(busy.socket.readableEnded || busy.socket.destroyed, false, 'a tunnel with traffic stays open');
  // Now quiet: closed after the idle time.
  await closedWithin(busy.socket, 5000);
  await eventually(async () => (await get('/ping')).json.requests.inFlight === 0, 2000);
  const next = await get('/hello');
  assert.equal(next.status, 200, next.text);
});
