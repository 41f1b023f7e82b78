// BullMQ as a peer in the peers benchmark: producers add jobs to a queue on Redis, one BullMQ
// Worker with the benchmark's concurrency processes them in this process. Workers and producers
// talk to Redis directly over its own protocol, with no HTTP on either side.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { FlowSystem } from './job-flow.js';

export interface RedisAddress {
  host: string;
  port: number;
}

function redisPids(): number[] {
  try {
    return execFileSync('pgrep', ['redis-server'], { encoding: 'utf8' }).trim().split('\n').map(Number);
  } catch {
    return [];
  }
}

/** A BullMQ queue of its own (removed by `close`), driven like the HTTP systems. */
export function bullmqFlowSystem(connection: RedisAddress): FlowSystem & { close(): Promise<void> } {
  const name = `gantry-bench-${randomBytes(4).toString('hex')}`;
  const queue = new Queue(name, { connection });
  let worker: Worker | undefined;
  return {
    submit: async (_producer, submittedAt, count) => {
      if (count === 1) await queue.add('job', { submittedAt });
      else await queue.addBulk(Array.from({ length: count }, () => ({ name: 'job', data: { submittedAt } })));
    },
    runWorkers: async (workers, hooks) => {
      worker = new Worker(
        name,
        async (job) => {
          hooks.started((job.data as { submittedAt: number }).submittedAt);
          return { ok: true };
        },
        { connection, concurrency: workers },
      );
      worker.on('completed', () => hooks.completed());
      await new Promise<void>((resolve) => {
        const poll = setInterval(() => {
          if (!hooks.stopped()) return;
          clearInterval(poll);
          resolve();
        }, 5);
      });
      await worker.close();
    },
    wake: async () => undefined,
    cpuPids: redisPids,
    close: async () => {
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}
