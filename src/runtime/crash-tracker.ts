// Remembers why an endpoint's workers keep dying and how long to wait before the next start,
// so a broken worker image shows its reason instead of being restarted in a tight loop.

export interface CrashReport {
  /** Unexpected exits in a row, reset by a worker that starts taking jobs. */
  consecutive: number;
  lastReason: string;
  lastAt: string;
  lastLogLines: string[];
  /** No new worker starts before this instant. */
  nextStartAt: string;
}

export class CrashTracker {
  private readonly reports = new Map<string, CrashReport & { nextStartMs: number }>();

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
  ) {}

  record(endpointId: string, reason: string, lastLogLines: string[], now: number): void {
    const previous = this.reports.get(endpointId);
    const consecutive = (previous?.consecutive ?? 0) + 1;
    const delay = Math.min(this.maxMs, this.baseMs * 2 ** (consecutive - 1));
    this.reports.set(endpointId, {
      consecutive,
      lastReason: reason,
      lastAt: new Date(now).toISOString(),
      lastLogLines,
      nextStartAt: new Date(now + delay).toISOString(),
      nextStartMs: now + delay,
    });
  }

  /** A worker of the endpoint got as far as taking jobs: the endpoint is healthy again. */
  recovered(endpointId: string): void {
    this.reports.delete(endpointId);
  }

  mayStart(endpointId: string, now: number): boolean {
    const report = this.reports.get(endpointId);
    return !report || now >= report.nextStartMs;
  }

  report(endpointId: string): CrashReport | undefined {
    const report = this.reports.get(endpointId);
    if (!report) return undefined;
    const { nextStartMs: _hidden, ...visible } = report;
    return visible;
  }

  forget(endpointId: string): void {
    this.reports.delete(endpointId);
  }
}
