// Every scenario prints its figures as one grep-able line, `chaos: <scenario> key=value ...`,
// on stdout and as a test diagnostic, so a CI log and docs/reliability.md can quote them.
import type { TestContext } from 'node:test';

export type Figures = Record<string, string | number | boolean>;

export function formatFigures(scenario: string, figures: Figures): string {
  return `chaos: ${scenario} ${Object.entries(figures)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ')}`;
}

export function report(t: TestContext, scenario: string, figures: Figures): void {
  const line = formatFigures(scenario, figures);
  console.log(line);
  t.diagnostic(line);
}

/** Counts of answers by status, in ascending order: `200=12 503=4 0=1` (0 = no answer). */
export class StatusTally {
  private readonly counts = new Map<string, number>();

  add(status: number | string): void {
    const key = String(status);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  get total(): number {
    let sum = 0;
    for (const count of this.counts.values()) sum += count;
    return sum;
  }

  count(status: number | string): number {
    return this.counts.get(String(status)) ?? 0;
  }

  toFigures(prefix = 'status_'): Figures {
    const sorted = [...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    return Object.fromEntries(sorted.map(([status, count]) => [`${prefix}${status}`, count]));
  }
}
