// The benchmarks' server processes stop on SIGTERM and take their temporary data directory with
// them: a benchmark makes one per run, with up to a million jobs in it.
import { rmSync } from 'node:fs';

export function stopOnSigterm(server: { close(): Promise<unknown> }, dataDir: string): void {
  process.on('SIGTERM', () => {
    void server.close().then(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
}
