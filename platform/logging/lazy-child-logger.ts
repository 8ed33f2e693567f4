// Fastify makes a child logger for every request (bound to its correlation id). pino builds a
// child's bindings eagerly (serialised and redacted), which cost about 5% of a cheap route's CPU
// in `npm start` (issue 35's profile of GET /v1/auth/verify) although at the default level most
// requests never write a line. This child defers pino's: it asks the parent whether a level is
// enabled and makes the real child only for the first line actually written. It is installed as
// the root logger's own `child` (deferRequestChildren), not as Fastify's `childLoggerFactory`:
// Fastify checks every child a custom factory returns (`validateLogger`: an array, a filter and a
// closure per request), but not the ones its default factory gets from `logger.child`.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type LogFn = (...args: unknown[]) => void;
type ChildFn = (bindings: Bindings, options?: ChildLoggerOptions) => FastifyBaseLogger;
/** pino's own `child`, kept on a root whose `child` now answers lazy children. */
const REAL_CHILD = Symbol('pino child');
type Parent = FastifyBaseLogger & { isLevelEnabled?(level: string): boolean; [REAL_CHILD]?: ChildFn };

/** A real pino child of `parent`, whether or not its `child` was replaced by deferRequestChildren. */
function realChild(parent: Parent, bindings: Bindings, options: ChildLoggerOptions | undefined): FastifyBaseLogger {
  return (parent[REAL_CHILD] ?? parent.child).call(parent, bindings, options);
}

class LazyChildLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Parent,
    private readonly ownBindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  private materialise(): FastifyBaseLogger {
    return (this.real ??= realChild(this.parent, this.ownBindings, this.options));
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
 * A child logger that costs nothing until it writes (Fastify's per-request one, through
 * deferRequestChildren). One with its own level or serializers is pino's child at once (they
 * change what is enabled).
 */
export function lazyChildLoggerFactory(
  this: unknown,
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return realChild(logger, bindings, options);
  return new LazyChildLogger(logger as Parent, bindings, options) as unknown as FastifyBaseLogger;
}

/**
 * Makes every child of `root` (Fastify's application logger: one child per request) lazy, through
 * Fastify's default child factory. A child asked for with its own level or serializers (a plugin's
 * or route's `logLevel`) is pino's at once, as above. Idempotent.
 */
export function deferRequestChildren(root: FastifyBaseLogger): void {
  const parent = root as Parent;
  if (parent[REAL_CHILD]) return;
  parent[REAL_CHILD] = parent.child;
  // `this`, not `root`: pino's children inherit from their parent, this method included, so a real
  // child's own children keep its bindings.
  parent.child = function (this: Parent, bindings: Bindings, options?: ChildLoggerOptions) {
    return lazyChildLoggerFactory(this, bindings, options ?? {});
  };
}
