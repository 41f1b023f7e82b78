// Counts the HTTP requests a benchmark server receives, through node's diagnostics channel (no
// hook in Gantry itself). The benchmark asks over the child's IPC channel, as for statements.
import { subscribe } from 'node:diagnostics_channel';

export function countRequests(): void {
  let total = 0;
  subscribe('http.server.request.start', () => void total++);
  process.on('message', (message) => {
    if (message === 'requests') process.send?.({ requests: total });
  });
}
