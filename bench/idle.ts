// What an idle Gantry costs the machine it runs on: CPU time and how often its event loop wakes
// up while no request comes (timers: the sweeper, the autoscaler, metrics sampling...). A server
// left running on a laptop should sleep between them.
// Run: npm run bench:idle -- [--seconds 60] [--settle 10]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './lib/measure.js';
import { startTarget, stopTarget } from './lib/queue-load.js';

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    settle: { type: 'string', default: '10' },
  },
});
const SECONDS = Number(opts.seconds);
const sleep = (s: number) => new Promise((resolve) => setTimeout(resolve, s * 1000));

/** Times the process's main thread gave up the CPU to wait (each one is followed by a wake-up). */
function mainThreadSleeps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)?.[1] ?? Number.NaN);
}

const gantry = await startTarget('gantry', 'bench/lib/gantry-server.ts', false);
const pid = gantry.nodes[0]!.child.pid!;
await sleep(Number(opts.settle)); // past start-up and its first sweeps
const [cpuBefore, sleepsBefore] = [cpuSeconds(pid), mainThreadSleeps(pid)];
await sleep(SECONDS);
const [cpuAfter, sleepsAfter] = [cpuSeconds(pid), mainThreadSleeps(pid)];
await stopTarget(gantry);

console.log(`idle Gantry (SQLite, one endpoint, no worker), ${SECONDS} s after ${opts.settle} s to settle`);
console.log(`CPU, ms per minute               ${(((cpuAfter - cpuBefore) * 1000 * 60) / SECONDS).toFixed(0).padStart(8)}`);
console.log(`event-loop wake-ups per second   ${((sleepsAfter - sleepsBefore) / SECONDS).toFixed(1).padStart(8)}`);
