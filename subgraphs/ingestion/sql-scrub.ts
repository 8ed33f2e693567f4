// PII scrubbing (pii-scrubber.ts) as SQL over a value's text, for the whole-CSV COPY path
// (csv-staging.store.ts), so a scrubbed pipeline need not leave PostgreSQL's path. Each expression
// gives exactly what the record path writes, or NULL where it cannot (the batch then runs record by
// record), proved against pii-scrubber.ts by test/integration/ingestion/ingestion-sql-scrub.test.ts:
// - hash and tokenize are HMAC-SHA-256 under the tenant's key. PostgreSQL has `sha256()` built in
//   (pgcrypto's `hmac()` is not assumed), so HMAC is written out as RFC 2104 defines it:
//   sha256((K ^ opad) || sha256((K ^ ipad) || message)). The two padded keys are computed here and
//   sent as bind parameters, never in the statement's text (which a server log may keep);
// - mask (letters and digits become '*', Unicode's \p{L}\p{N}) only for ASCII values, where it is
//   exactly [A-Za-z0-9] whatever the server's locale; any other value is NULL.
import { createHash } from 'node:crypto';
import type { SqlScrub } from './sql-mapping';

const BLOCK = 64; // SHA-256's block size in bytes

/** The HMAC key padded and XORed with ipad (0x36) and opad (0x5c), as HMAC's two hashes take it. */
export function hmacPads(key: Buffer): { inner: Buffer; outer: Buffer } {
  const k = Buffer.alloc(BLOCK);
  (key.length > BLOCK ? createHash('sha256').update(key).digest() : key).copy(k);
  return { inner: Buffer.from(k.map((b) => b ^ 0x36)), outer: Buffer.from(k.map((b) => b ^ 0x5c)) };
}

/**
 * `value`: an SQL text expression (the field's text as pii-scrubber.ts sees it: a string itself, a
 * number as JSON writes it), used more than once: pass a column, not a computation. `field` is an
 * identifier (sql-mapping.ts checks), so it is safe inside a literal. `inner`/`outer`: the bind
 * parameters holding hmacPads' buffers.
 */
export function scrubSql(action: SqlScrub, field: string, value: string, inner: string, outer: string): string {
  const hmac = (message: string) => `encode(sha256(${outer}::bytea || sha256(${inner}::bytea || ${message})), 'hex')`;
  switch (action) {
    case 'mask':
      // A regular expression: translate() of 62 letters and digits measured about twice its cost.
      return `(CASE WHEN octet_length(${value}) = char_length(${value}) THEN regexp_replace(${value}, '[A-Za-z0-9]', '*', 'g') END)`;
    case 'hash':
      // platform/redaction keyedHash: `[category:sha256:<hex>]`, the category being the field's name.
      return `('[${field}:sha256:' || ${hmac(`convert_to(${value}, 'UTF8')`)} || ']')`;
    case 'tokenize':
      // pii-scrubber.ts: `tok_` and the first 32 hex digits of HMAC(`${field}\0${value}`).
      return `('tok_' || left(${hmac(`convert_to('${field}', 'UTF8') || '\\x00'::bytea || convert_to(${value}, 'UTF8')`)}, 32))`;
  }
}
