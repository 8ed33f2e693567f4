// The bytes a rule pack is identified and signed by: its RFC 8785 canonical JSON (the contract of
// platform/clients/rulepack-registry.client.ts), and their SHA-256. The same digest names an
// inline pack in the audit trail, so a registry pack and an identical inline pack hash alike.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function canonicalBytes(value: unknown): Buffer {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return Buffer.from(text, 'utf8');
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
