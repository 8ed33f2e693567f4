// RFC 8785 canonical JSON of a value as JSON.parse gives it (plain objects and arrays of strings,
// finite numbers, booleans and null): keys sorted by UTF-16 code units, strings and numbers as
// JSON.stringify writes them. The same text the `canonicalize` package writes, by construction
// (it too sorts with Array.prototype.sort and writes scalars with JSON.stringify), without its
// `reduce` and template string per member: every run digests its input, and that package took
// ~2.5% of the service's main thread under load (docs/benchmarks.md, Speed pass, branch val round 5).
// Anything else (toJSON, undefined, symbols, NaN, class instances) returns undefined and is left
// to the package, whose rules for those cases stay the reference.

// What JSON.stringify escapes in a string: quote, backslash, control characters, lone surrogates
// (paired ones match too and simply take JSON.stringify).
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

const quote = (s: string): string => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

/** Thrown inside the walk when a value is not plain JSON data: the caller falls back. */
const NOT_PLAIN = Symbol('not plain JSON');

function write(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      if (!Number.isFinite(value)) throw NOT_PLAIN;
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) text += (i === 0 ? '' : ',') + write(value[i]);
        return `${text}]`;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
      const o = value as Record<string, unknown>;
      if (typeof o.toJSON === 'function') throw NOT_PLAIN;
      const keys = Object.keys(o).sort();
      let text = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i]!;
        text += `${i === 0 ? '' : ','}${quote(k)}:${write(o[k])}`;
      }
      return `${text}}`;
    }
    default:
      throw NOT_PLAIN;
  }
}

/** The canonical text of plain JSON data, or undefined for anything else. */
export function canonicalJsonOfData(value: unknown): string | undefined {
  try {
    return write(value);
  } catch (err) {
    if (err === NOT_PLAIN) return undefined;
    throw err;
  }
}
