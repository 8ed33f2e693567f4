// Recording strict fakes for unit tests of a domain service (STYLE.md, "immich": tests build the
// service with strict fakes of its ports). Like strict-fake.ts, only the methods a test provides
// exist; in addition every call is recorded, in order, across all the fakes of one test, and a
// method may pin the arguments it accepts (`withArgs`). A call of a method the test did not give,
// or with other arguments, is a violation: thrown at the call, and kept, so `verify()` still fails
// the test when the domain caught the throw (a retry loop, a best-effort publish, a `.catch`).
import { inspect } from 'node:util';

export interface RecordedCall {
  fake: string;
  method: string;
  args: unknown[];
}

type AnyFn = (...args: never[]) => unknown;

/** The methods (and plain values) a fake has; everything else is a violation when used. */
export type FakeMethods<T> = { [K in keyof T]?: T[K] };

const PINNED = Symbol('pinned arguments');
/** Property names that libraries probe on any object (await, jest's equality, printing): never calls. */
const PROBES = new Set(['then', 'asymmetricMatch', '$$typeof', 'nodeType', 'toJSON', 'tagName', 'inspect']);

/**
 * `impl`, accepted only with arguments equal (jest's `toEqual`, asymmetric matchers allowed) to
 * `expected`: `withArgs(['tenant-a', expect.any(String)], async () => row)`.
 */
export function withArgs<F extends AnyFn>(expected: readonly unknown[], impl: F): F {
  const pinned = ((...args: Parameters<F>) => impl(...args)) as unknown as F;
  Object.defineProperty(pinned, PINNED, { value: expected });
  return pinned;
}

export class Fakes {
  /** Every call of every fake made here, in order. */
  readonly calls: RecordedCall[] = [];
  /** Unexpected calls and arguments; `verify()` fails on any. */
  readonly violations: string[] = [];

  /** A strict fake named `name` (calls are recorded as `name.method`). */
  make<T extends object>(name: string, methods: FakeMethods<T>): T {
    const target = methods as Record<string | symbol, unknown>;
    const wrapped = new Map<string, unknown>();
    return new Proxy(target, {
      get: (_t, prop) => {
        if (typeof prop === 'symbol' || PROBES.has(prop) || prop.startsWith('@@'))
          return prop in target ? target[prop] : undefined;
        if (!(prop in target)) return this.unexpected(name, prop);
        const value = target[prop];
        if (typeof value !== 'function' || Object.prototype.hasOwnProperty.call(Object.prototype, prop)) return value;
        let fn = wrapped.get(prop);
        if (!fn) {
          fn = (...args: unknown[]) => {
            this.calls.push({ fake: name, method: prop, args });
            // Read again at the call: a test may swap a method between calls.
            const current = target[prop] as ((...a: unknown[]) => unknown) & { [PINNED]?: unknown[] };
            const expected = current[PINNED];
            if (expected) {
              try {
                expect(args).toEqual(expected);
              } catch (err) {
                const message = `unexpected arguments: ${name}.${prop}(${args.map((a) => inspect(a, { depth: 3 })).join(', ')})\n${(err as Error).message}`;
                this.violations.push(message);
                throw new Error(message, { cause: err });
              }
            }
            return current.apply(target, args);
          };
          wrapped.set(prop, fn);
        }
        return fn;
      },
    }) as T;
  }

  private unexpected(name: string, prop: string) {
    return (...args: unknown[]) => {
      const message = `unexpected call: ${name}.${prop}(${args.map((a) => inspect(a, { depth: 2 })).join(', ')})`;
      this.violations.push(message);
      throw new Error(message);
    };
  }

  /** The arguments of each call of `name.method`, in order. */
  argsOf(name: string, method: string): unknown[][] {
    return this.calls.filter((c) => c.fake === name && c.method === method).map((c) => c.args);
  }

  /** `name.method` of every call (of one fake when named), in order: what the domain did. */
  trail(name?: string): string[] {
    return this.calls.filter((c) => name === undefined || c.fake === name).map((c) => `${c.fake}.${c.method}`);
  }

  /** Fails when any fake saw a call or arguments the test did not expect. */
  verify(): void {
    if (this.violations.length > 0)
      throw new Error(`strict fakes saw ${this.violations.length} unexpected call(s):\n${this.violations.join('\n')}`);
  }
}
