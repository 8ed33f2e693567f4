// A redactor: detectors (what is PII) and strategies (what replaces it), fixed at creation. The
// platform's default covers ssn, card, email and phone with the mask strategy; a service that
// needs more (a tenant's own patterns, addresses, hashing) builds its own redactor from the
// built-ins plus its additions, so nothing global changes under another tenant.
import type { PiiDetector } from './pii-detectors';
import type { RedactionStrategy } from './redaction-strategies';

export interface RedactionOptions<C extends string = string> {
  /** Only these categories (default: all the redactor knows). */
  categories?: readonly C[];
  /** A strategy name the redactor knows (default 'mask'). */
  strategy?: string;
  /**
   * A strategy for this call only, instead of a named one: for strategies bound to one request
   * (a tokenizer that records the tokens it mints for the caller's tenant).
   */
  replace?: RedactionStrategy;
}

export interface RedactedText<C extends string = string> {
  text: string;
  /** Spans replaced, per category (every known category present, zero when none). */
  counts: Record<C, number>;
}

export interface Redactor<C extends string = string> {
  readonly categories: readonly C[];
  redactText(text: string, options?: RedactionOptions<C>): RedactedText<C>;
  /** A copy of a JSON-like value with every string redacted (keys are left as they are). */
  redactValue(value: unknown, options?: RedactionOptions<C>): unknown;
  /** redactValue, with the spans replaced counted per category over the whole value. */
  redactValueCounted(value: unknown, options?: RedactionOptions<C>): { value: unknown; counts: Record<C, number> };
}

export interface RedactorConfig<C extends string> {
  /** In priority order: where spans overlap, the earlier detector's span wins. */
  detectors: readonly PiiDetector<C>[];
  strategies: Readonly<Record<string, RedactionStrategy>>;
  defaultStrategy?: string;
}

/** Whether [start, end) overlaps a span of `sorted` (sorted by start, disjoint). */
function overlaps(sorted: readonly { start: number; end: number }[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.end <= start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && sorted[lo]!.start < end;
}

export function createRedactor<C extends string>(config: RedactorConfig<C>): Redactor<C> {
  const categories = config.detectors.map((d) => d.category);
  const defaultStrategy = config.defaultStrategy ?? 'mask';

  function strategyOf(name: string | undefined): RedactionStrategy {
    const strategy = config.strategies[name ?? defaultStrategy];
    if (!strategy || !Object.hasOwn(config.strategies, name ?? defaultStrategy))
      throw new Error(`unknown redaction strategy ${JSON.stringify(name)}`);
    return strategy;
  }

  function redactText(text: string, options?: RedactionOptions<C>): RedactedText<C> {
    const counts = Object.fromEntries(categories.map((c) => [c, 0])) as Record<C, number>;
    const strategy = options?.replace ?? strategyOf(options?.strategy);
    const only = options?.categories;
    // Spans already claimed (by earlier detectors), sorted and disjoint: an overlap check is a
    // binary search, so a long text with many values stays O(n log n).
    let spans: { start: number; end: number; category: C }[] = [];
    for (const detector of config.detectors) {
      if (only && !only.includes(detector.category)) continue;
      const claimed = spans;
      const found: typeof spans = [];
      detector.find(text, (start, end) => {
        if (overlaps(claimed, start, end)) return;
        for (let i = found.length - 1; i >= 0 && found[i]!.end > start; i--) if (found[i]!.start < end) return;
        found.push({ start, end, category: detector.category });
      });
      if (found.length > 0) spans = [...claimed, ...found].sort((a, b) => a.start - b.start);
    }
    if (spans.length === 0) return { text, counts };
    let out = '';
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + strategy(text.slice(s.start, s.end), s.category);
      at = s.end;
      counts[s.category] += 1;
    }
    return { text: out + text.slice(at), counts };
  }

  function deep(
    value: unknown,
    options: RedactionOptions<C> | undefined,
    counts: Record<C, number> | undefined,
  ): unknown {
    if (typeof value === 'string') {
      const r = redactText(value, options);
      if (counts) for (const c of categories) counts[c] += r.counts[c];
      return r.text;
    }
    if (Array.isArray(value)) return value.map((v) => deep(v, options, counts));
    if (typeof value === 'object' && value !== null) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        // defineProperty: a "__proto__" key stays an ordinary key of the copy.
        Object.defineProperty(out, k, {
          value: deep(v, options, counts),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return value;
  }

  function redactValue(value: unknown, options?: RedactionOptions<C>): unknown {
    return deep(value, options, undefined);
  }

  function redactValueCounted(
    value: unknown,
    options?: RedactionOptions<C>,
  ): { value: unknown; counts: Record<C, number> } {
    const counts = Object.fromEntries(categories.map((c) => [c, 0])) as Record<C, number>;
    return { value: deep(value, options, counts), counts };
  }

  return { categories, redactText, redactValue, redactValueCounted };
}
