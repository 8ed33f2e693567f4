// PII scrubbing per field, as the pipeline's policy names it, with the platform's redaction
// strategies (platform/redaction): `mask` (letters and digits become '*'), `hash` (HMAC-SHA-256
// under the tenant's key, so values stay joinable within a tenant and cannot be reversed by
// hashing every SSN), `remove` (the field is dropped), `tokenize` (a deterministic token minted
// under the tenant's key: equal values give equal tokens). Applied to the normalised record
// before it is written anywhere: the raw value never reaches staging or the quarantine.
import { createHmac } from 'node:crypto';
import { keyedHash, mask, tokenizing, type RedactionStrategy } from '../../platform/redaction';
import type { PiiAction } from './pipeline.types';

export type Scrub = (record: Record<string, unknown>) => Record<string, unknown>;

/** The tenant's key, derived from the service's PII secret: one tenant's tokens and hashes say nothing of another's. */
export function tenantPiiKey(secret: string, tenantId: string): Buffer {
  return createHmac('sha256', secret).update(`ingestion-pii:${tenantId}`).digest();
}

/** The scrub of a policy naming no field: the record as it is. */
const KEEP: Scrub = (record) => record;
export const scrubsNothing = (scrub: Scrub) => scrub === KEEP;

export function piiScrubber(policy: Record<string, PiiAction> | undefined, tenantKey: Buffer): Scrub {
  const entries = Object.entries(policy ?? {});
  if (entries.length === 0) return KEEP;
  const strategies: Record<Exclude<PiiAction, 'remove'>, RedactionStrategy> = {
    mask,
    hash: keyedHash(tenantKey),
    tokenize: tokenizing(
      (value, category) =>
        `tok_${createHmac('sha256', tenantKey).update(`${category}\u0000${value}`).digest('hex').slice(0, 32)}`,
    ),
  };
  return (record) => {
    const out = { ...record };
    for (const [field, action] of entries) {
      if (!(field in out)) continue;
      const value = out[field];
      if (action === 'remove') {
        delete out[field];
        continue;
      }
      if (value === null || value === undefined) continue;
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      out[field] = strategies[action](text, field);
    }
    return out;
  };
}
