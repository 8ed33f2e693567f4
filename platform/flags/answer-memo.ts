// A flag's answers by the values its rule reads (targeting-inputs.ts): one Map level per input,
// keyed by the context's value there, so a lookup hashes the values the caller already holds
// instead of building a key string. Map keys compare by SameValueZero: "1" and 1, null and
// undefined stay apart; -0 (which would meet 0) and objects (whose contents would have to be
// part of the key) are not kept.

/** A context that cannot be keyed: evaluate it, keep nothing. */
export const UNKEYED = Symbol('unkeyed');

type Level = Map<unknown, unknown>;

export class AnswerMemo<T> {
  private root: Level = new Map();
  private entries = 0;

  constructor(
    private readonly inputs: readonly string[],
    private readonly maxEntries: number,
  ) {}

  /** The kept answer for `context`, undefined when none is kept, UNKEYED when none can be. */
  get(context: Record<string, unknown>): T | undefined | typeof UNKEYED {
    let level: Level = this.root;
    const last = this.inputs.length - 1;
    for (let i = 0; i < last; i++) {
      const value = keyOf(context, this.inputs[i]!);
      if (value === UNKEYED) return UNKEYED;
      const next = level.get(value) as Level | undefined;
      if (next === undefined) return this.keyable(context, i + 1) ? undefined : UNKEYED;
      level = next;
    }
    const value = last < 0 ? undefined : keyOf(context, this.inputs[last]!);
    return value === UNKEYED ? UNKEYED : (level.get(value) as T | undefined);
  }

  /** Keeps `answer` for `context` (a context get() answered undefined for); a full memo starts again empty. */
  set(context: Record<string, unknown>, answer: T): void {
    if (this.entries >= this.maxEntries) {
      this.root = new Map();
      this.entries = 0;
    }
    let level = this.root;
    const last = this.inputs.length - 1;
    for (let i = 0; i < last; i++) {
      const value = keyOf(context, this.inputs[i]!);
      let next = level.get(value) as Level | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    level.set(last < 0 ? undefined : keyOf(context, this.inputs[last]!), answer);
    this.entries += 1;
  }

  private keyable(context: Record<string, unknown>, from: number): boolean {
    for (let i = from; i < this.inputs.length; i++) if (keyOf(context, this.inputs[i]!) === UNKEYED) return false;
    return true;
  }
}

/** The context's own value at `name` when it can be a key (only own enumerable properties reach flagd-core's copy). */
function keyOf(context: Record<string, unknown>, name: string): unknown {
  if (!Object.prototype.propertyIsEnumerable.call(context, name)) return undefined;
  const value = context[name];
  if (value === null || value === undefined) return value;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Object.is(value, -0) ? UNKEYED : value;
    default:
      return UNKEYED;
  }
}
