// The last lines a worker printed, kept in a ring so memory stays bounded, with live followers.
// Every line's timestamp is unique and increasing (microsecond digits count lines within a
// millisecond), so a reader can resume after the last line it saw (SSE Last-Event-ID).
import type { LogLine } from './provider.js';

export class LogBuffer {
  private readonly lines: LogLine[] = [];
  private readonly followers = new Set<(line: LogLine) => void>();
  private partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };
  private lastMs = 0;
  private sameMs = 0;

  constructor(private readonly capacity: number) {}

  /** Splits a chunk of output into lines; an unfinished last line waits for the rest. */
  write(source: 'stdout' | 'stderr', chunk: string): void {
    const text = this.partial[source] + chunk;
    const parts = text.split('\n');
    this.partial[source] = parts.pop() ?? '';
    for (const line of parts) this.push({ ts: this.stamp(), source, line: line.replace(/\r$/, '') });
  }

  system(line: string): void {
    this.push({ ts: this.stamp(), source: 'system', line });
  }

  flush(): void {
    for (const source of ['stdout', 'stderr'] as const) {
      if (this.partial[source] !== '') this.push({ ts: this.stamp(), source, line: this.partial[source] });
      this.partial[source] = '';
    }
  }

  tail(count: number): LogLine[] {
    return count <= 0 ? [] : this.lines.slice(-count);
  }

  follow(listener: (line: LogLine) => void): () => void {
    this.followers.add(listener);
    return () => this.followers.delete(listener);
  }

  /** `2026-11-23T18:50:01.123004Z`: the millisecond, then the line's place within it. */
  private stamp(): string {
    const now = Math.max(Date.now(), this.lastMs);
    this.sameMs = now === this.lastMs ? this.sameMs + 1 : 0;
    // More than a thousand lines in one millisecond borrow the next one.
    if (this.sameMs > 999) return this.stampAt(now + 1);
    this.lastMs = now;
    return `${new Date(now).toISOString().slice(0, -1)}${String(this.sameMs).padStart(3, '0')}Z`;
  }

  private stampAt(ms: number): string {
    this.lastMs = ms;
    this.sameMs = 0;
    return `${new Date(ms).toISOString().slice(0, -1)}000Z`;
  }

  private push(line: LogLine): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
    for (const follower of this.followers) follower(line);
  }
}
