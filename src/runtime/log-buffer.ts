// The last lines a worker printed, kept in a ring so memory stays bounded, with live followers.
import type { LogLine } from './provider.js';

export class LogBuffer {
  private readonly lines: LogLine[] = [];
  private readonly followers = new Set<(line: LogLine) => void>();
  private partial: Record<'stdout' | 'stderr', string> = { stdout: '', stderr: '' };

  constructor(private readonly capacity: number) {}

  /** Splits a chunk of output into lines; an unfinished last line waits for the rest. */
  write(source: 'stdout' | 'stderr', chunk: string): void {
    const text = this.partial[source] + chunk;
    const parts = text.split('\n');
    this.partial[source] = parts.pop() ?? '';
    for (const line of parts) this.push({ ts: new Date().toISOString(), source, line: line.replace(/\r$/, '') });
  }

  system(line: string): void {
    this.push({ ts: new Date().toISOString(), source: 'system', line });
  }

  flush(): void {
    for (const source of ['stdout', 'stderr'] as const) {
      if (this.partial[source] !== '') this.push({ ts: new Date().toISOString(), source, line: this.partial[source] });
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

  private push(line: LogLine): void {
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
    for (const follower of this.followers) follower(line);
  }
}
