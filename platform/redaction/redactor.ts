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

export function createRedactor<C extends string>(config: RedactorConfig<C>): Redactor<C> {
  const categories = config.detectors.map((d) => d.category);
  const defaultStrategy = config.defaultStrategy ?? 'mask';

  function strategyOf(name: string | undefined): RedactionStrategy {
    const strategy = config.strategies[name ?? defaultStrategy];
    if (!strategy || !Object.hasOwn(config.strategies, name ?? defaultStrategy)) throw new Error(`unknown redaction strategy ${JSON.stringify(name)}`);
    return strategy;
  }

  function redactText(text: string, options?: RedactionOptions<C>): RedactedText<C> {
    const counts = Object.fromEntries(categories.map((c) => [c, 0])) as Record<C, number>;
    const strategy = options?.replace ?? strategyOf(options?.strategy);
    const only = options?.categories;
    const spans: { start: number; end: number; category: C }[] = [];
    for (const detector of config.detectors) {
      if (only && !only.includes(detector.category)) continue;
      detector.find(text, (start, end) => {
        for (const s of spans) if (start < s.end && s.start < end) return;
        spans.push({ start, end, category: detector.category });
      });
    }
    if (spans.length === 0) return { text, counts };
    spans.sort((a, b) => a.start - b.start);
    let out = '';
    let at = 0;
    for (const s of spans) {
      out += text.slice(at, s.start) + strategy(text.slice(s.start, s.end), s.category);
      at = s.end;
      counts[s.category] += 1;
    }
    return { text: out + text.slice(at), counts };
  }

  function deep(value: unknown, options: RedactionOptions<C> | undefined, counts: Record<C, number> | undefined): unknown {
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
        Object.defineProperty(out, k, { value: deep(v, options, counts), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    return value;
  }

  function redactValue(value: unknown, options?: RedactionOptions<C>): unknown {
    return deep(value, options, undefined);
  }

  function redactValueCounted(value: unknown, options?: RedactionOptions<C>): { value: unknown; counts: Record<C, number> } {
    const counts = Object.fromEntries(categories.map((c) => [c, 0])) as Record<C, number>;
    return { value: deep(value, options, counts), counts };
  }

  return { categories, redactText, redactValue, redactValueCounted };
}
