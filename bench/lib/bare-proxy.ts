// Child process of the load-balancer benchmark: the least a node HTTP proxy can do (no
// authentication, no routing, no timeouts), as a reference for what this machine allows.
// Prints its port; forwards everything to the host and port given as arguments.
import { Agent, createServer, request } from 'node:http';

const [host, port] = [process.argv[2]!, Number(process.argv[3])];
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const server = createServer((req, res) => {
  const upstream = request({ host, port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as { port: number }).port}\n`));
