// The bytes a rule pack is identified and signed by: its RFC 8785 canonical JSON (the contract of
// platform/clients/rulepack-registry.client.ts), and their SHA-256. The same digest names an
// inline pack in the audit trail, so a registry pack and an identical inline pack hash alike.
import { hash } from 'node:crypto';
import canonicalize from 'canonicalize';

export function canonicalText(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON form');
  return text;
}

export function canonicalBytes(value: unknown): Buffer {
  return Buffer.from(canonicalText(value), 'utf8');
}

/** SHA-256 (hex) of the bytes, or of a string's UTF-8: one call, no Hash object (a run digests its input). */
export function sha256Hex(bytes: Buffer | string): string {
  return hash('sha256', bytes, 'hex');
}
