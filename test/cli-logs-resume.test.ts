// `gantry logs --follow` against a server whose stream breaks mid-way: the CLI asks again after
// the last line it showed (Last-Event-ID), so no line is shown twice; a 404 ends it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cli } from './support/processes.js';

let server: Server;
let url: string;
const askedAfter: (string | undefined)[] = [];

const event = (id: number, line: string) =>
  `id: ${id}\nevent: log\ndata: ${JSON.stringify({ source: 'container', line, ts: new Date(id).toISOString() })}\n\n`;

before(async () => {
  server = createServer((req, res) => {
    askedAfter.push(req.headers['last-event-id'] as string | undefined);
    const attempt = askedAfter.length;
    if (attempt === 3) {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      return void res.end(JSON.stringify({ title: 'Not Found', status: 404, detail: 'worker w1 not found' }));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    if (attempt === 1) {
      res.write(event(1, 'first'));
      res.write(event(2, 'second'));
      // Cut off mid-stream, as a restarting server or a dropped connection does.
      setTimeout(() => res.socket?.destroy(), 100);
    } else {
      res.end(event(3, 'third'));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => server.close());

test('a stream cut off mid-way resumes after the last line shown: no line twice', async () => {
  const ran = await cli(['logs', 'ep1', 'w1', '--follow', '--url', url, '--api-key', 'gantry_aaaaaaaaaaaa_x']);
  assert.equal(ran.status, 1, ran.stderr);
  assert.deepEqual(ran.stdout.trim().split('\n'), ['first', 'second', 'third']);
  assert.deepEqual(askedAfter, [undefined, '2', '3']);
});
