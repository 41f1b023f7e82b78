// Each request's logger, with its request id bound, made only when the request logs a line at an
// enabled level. Fastify otherwise makes a pino child per request, serialising its bindings, and
// most requests of a busy queue never log anything: their own lines are at debug by default.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString } from 'pino';

type LineLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

class RequestLogger implements FastifyBaseLogger {
  private made: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  get level(): LevelWithSilentOrString {
    return this.made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.logger().level = level;
  }

  // Methods, not arrow properties: a request that never logs allocates nothing for them.
  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.write('error', args);
  }

  warn(...args: unknown[]): void {
    this.write('warn', args);
  }

  info(...args: unknown[]): void {
    this.write('info', args);
  }

  debug(...args: unknown[]): void {
    this.write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private write(level: LineLevel, args: unknown[]): void {
    if (this.made === undefined && !enabled(level, this.level)) return;
    (this.logger()[level] as (...line: unknown[]) => void)(...args);
  }

  private logger(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }
}

/** pino's level numbers: a line is written when its level is at least the logger's. */
const LEVEL_VALUES: Record<string, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

/** Whether a logger at `threshold` writes a line at `line`. */
export function enabled(line: string, threshold: string): boolean {
  return (LEVEL_VALUES[line] ?? 0) >= (LEVEL_VALUES[threshold] ?? 0);
}

/** Fastify's `childLoggerFactory`. */
export function requestLogger(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new RequestLogger(parent, bindings, options);
}
