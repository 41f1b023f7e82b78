// Child process of the load-balancer benchmark: the least a node HTTP proxy can do (no
// authentication, no routing, no timeouts), as a reference for what this machine allows. Like the
// balancer, it reaches the worker through undici's dispatcher, the cheaper of node's HTTP clients.
// Prints its port; forwards everything to the host and port given as arguments.
import { createServer } from 'node:http';
import { Pool } from 'undici';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);
const [host, port] = [process.argv[2]!, Number(process.argv[3])];
const pool = new Pool(`http://${host}:${port}`);
const server = createServer((req, res) => {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
  const bodiless = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined;
  pool.dispatch(
    { method: req.method as 'GET', path: req.url ?? '/', headers, body: bodiless ? null : req },
    {
      // Present so undici treats these as its current handler callbacks, not the legacy ones.
      onRequestStart() {},
      onResponseStart(controller, statusCode, _headers, statusMessage) {
        const raw = (controller.rawHeaders as Buffer[]).map((item) => item.toString('latin1'));
        const kept: string[] = [];
        for (let i = 0; i < raw.length; i += 2) if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) kept.push(raw[i]!, raw[i + 1]!);
        res.writeHead(statusCode, statusMessage, kept);
      },
      onResponseData(controller, chunk) {
        if (!res.write(chunk)) controller.pause();
      },
      onResponseEnd() {
        res.end();
      },
      onResponseError() {
        res.destroy();
      },
    },
  );
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
// The benchmark ends it with SIGTERM: exiting normally lets --cpu-prof write its profile.
process.on('SIGTERM', () => process.exit(0));
