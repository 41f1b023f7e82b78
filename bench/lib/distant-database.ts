// Child process of `bench:stores --database-rtt-ms`: a TCP relay in front of PostgreSQL that holds
// what the database sends for the given milliseconds before passing it on, so every round trip
// through it is that much longer, as to a database on another machine. (Loopback cannot be given a
// delay here: the kernel has no netem.) Node's timers count whole milliseconds, so the delay does
// too. It prints one JSON line with its port.
// Run: node --import tsx bench/lib/distant-database.ts <postgres host> <postgres port> <delay ms>
import { connect, createServer, type Socket } from 'node:net';

const [host, port, delayText] = process.argv.slice(2);
const DELAY_MS = Number(delayText);
if (!host || !port || !(Number.isInteger(DELAY_MS) && DELAY_MS >= 1)) {
  throw new Error('usage: distant-database.ts <host> <port> <delay ms, a whole number from 1>');
}

/** Writes what `from` sends to `to` once it is DELAY_MS old, in order, with one timer at a time. */
function delayed(from: Socket, to: Socket): void {
  const held: { chunk: Buffer; due: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    timer = undefined;
    const now = performance.now();
    while (held.length > 0 && held[0]!.due <= now) to.write(held.shift()!.chunk);
    if (held.length > 0) timer = setTimeout(release, Math.max(1, Math.ceil(held[0]!.due - now)));
  };
  from.on('data', (chunk: Buffer) => {
    held.push({ chunk, due: performance.now() + DELAY_MS });
    timer ??= setTimeout(release, DELAY_MS);
  });
  from.on('end', () => {
    if (timer) clearTimeout(timer);
    for (const { chunk } of held.splice(0)) to.write(chunk);
    to.end();
  });
}

const relay = createServer({ noDelay: true }, (client) => {
  const database = connect({ host, port: Number(port), noDelay: true });
  client.pipe(database);
  delayed(database, client);
  const close = () => {
    client.destroy();
    database.destroy();
  };
  client.on('error', close);
  database.on('error', close);
});
relay.listen(0, '127.0.0.1', () => {
  const address = relay.address();
  if (address === null || typeof address === 'string') throw new Error('the relay has no TCP port');
  process.stdout.write(`${JSON.stringify({ port: address.port, pid: process.pid })}\n`);
});
