// What replaces a detected span. Strategies are named so callers choose one per call: `mask`
// (separators kept), `hash` (SHA-256), `remove`, and `tokenize` (a reversible token: built per
// tenant by the service that stores the tokens, see `tokenizing`).
import { createHash, createHmac } from 'node:crypto';

export type RedactionStrategy = (match: string, category: string) => string;

/** Every letter and digit becomes '*', separators stay: 123-45-6789 -> ***-**-****. */
export const mask: RedactionStrategy = (match) => match.replace(/[\p{L}\p{N}]/gu, '*');

/** SHA-256 of the value: equal values stay equal (joins, counting) without showing the value. */
export const hash: RedactionStrategy = (match, category) =>
  `[${category}:sha256:${createHash('sha256').update(match, 'utf8').digest('hex')}]`;

/**
 * SHA-256 keyed per tenant (HMAC). A plain SHA-256 of an SSN or phone number is reversed by
 * hashing every possible number (10^9 SSNs take minutes); with a secret key it cannot be.
 */
export function keyedHash(key: Buffer | string): RedactionStrategy {
  return (match, category) => `[${category}:sha256:${createHmac('sha256', key).update(match, 'utf8').digest('hex')}]`;
}

/** The value goes, nothing is left in its place. */
export const remove: RedactionStrategy = () => '';

/**
 * A `tokenize` strategy from a minting function (value, category) -> token. The minting side
 * decides where tokens live and who may reverse them; the redactor only asks for one.
 */
export function tokenizing(mint: (match: string, category: string) => string): RedactionStrategy {
  return (match, category) => mint(match, category);
}

export const BUILT_IN_STRATEGIES: Readonly<Record<string, RedactionStrategy>> = Object.freeze({ mask });

/** Every strategy that needs no per-tenant state (tokenize does: build it with `tokenizing`). */
export const STATELESS_STRATEGIES: Readonly<Record<string, RedactionStrategy>> = Object.freeze({ mask, hash, remove });
