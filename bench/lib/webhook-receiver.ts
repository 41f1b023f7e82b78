// A webhook receiver for the benchmarks: an HTTP server on loopback that answers every delivery
// 200 at once and notes the job it names and when it arrived.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookReceiver {
  url: string;
  /** Deliveries received so far. */
  count(): number;
  /** Resolves with the time (performance.now()) the job's webhook arrived, once it has. */
  delivered(jobId: string): Promise<number>;
  close(): void;
}

export async function webhookReceiver(): Promise<WebhookReceiver> {
  const arrived = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      res.end();
      const { id } = JSON.parse(Buffer.concat(chunks).toString()) as { id: string };
      arrived.set(id, at);
      waiting.get(id)?.(at);
      waiting.delete(id);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => arrived.size,
    delivered: (jobId) => {
      const at = arrived.get(jobId);
      return at !== undefined ? Promise.resolve(at) : new Promise((resolve) => waiting.set(jobId, resolve));
    },
    close: () => server.close(),
  };
}
