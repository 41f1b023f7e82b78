// Everything a scenario creates (processes, temporary directories, databases) is registered here
// as it is made, and undone in reverse order from the scenario's `after` hook, even on failure.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export class Cleanup {
  private readonly actions: { what: string; undo: () => Promise<void> | void }[] = [];

  add(what: string, undo: () => Promise<void> | void): void {
    this.actions.push({ what, undo });
  }

  /** A fresh temporary directory, removed at cleanup. */
  tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), `gantry-chaos-${prefix}-`));
    this.add(`remove ${dir}`, () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  /** Undoes everything; one failing step does not keep the others from running. */
  async run(): Promise<void> {
    const failures: string[] = [];
    for (const { what, undo } of this.actions.splice(0).reverse()) {
      try {
        await undo();
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0) throw new Error(`cleanup failed: ${failures.join('; ')}`);
  }
}
