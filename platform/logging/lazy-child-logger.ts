// Fastify makes a child logger for every request (bound to its correlation id). pino builds a
// child's bindings eagerly (serialised and redacted), which cost about 5% of a cheap route's CPU
// in `npm start` (issue 35's profile of GET /v1/auth/verify) although at the default level most
// requests never write a line. This child defers pino's: it asks the parent whether a level is
// enabled and makes the real child only for the first line actually written.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogFn = (...args: unknown[]) => void;
type Parent = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };

class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Parent,
    private readonly ownBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private materialise(): FastifyBaseLogger {
    return (this.real ??= this.parent.child(this.ownBindings, this.options));
  }

  private write(level: LevelName, args: unknown[]): void {
    if (this.real) (this.real[level] as LogFn)(...args);
    else if (this.isLevelEnabled(level)) (this.materialise()[level] as LogFn)(...args);
  }

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.materialise().level = level;
  }

  isLevelEnabled(level: string): boolean {
    const check = (this.real as Parent | undefined)?.isLevelEnabled ?? this.parent.isLevelEnabled;
    return check ? check.call(this.real ?? this.parent, level) : true;
  }

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

  bindings(): Bindings {
    return this.real ? (this.real as unknown as { bindings(): Bindings }).bindings() : { ...this.ownBindings };
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.materialise().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: a per-request logger that costs nothing until it writes. A route
 * with its own log level or serializers gets pino's child at once (they change what is enabled).
 */
export function lazyChildLoggerFactory(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new LazyChildLogger(logger as Parent, bindings, options) as unknown as FastifyBaseLogger;
}
