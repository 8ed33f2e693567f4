// One idempotency key from the two places a REST client may put it: the `Idempotency-Key` header
// (what the AI broker takes and the workflow sends its callees) and, on the routes that had it
// first (the ledger's appends), the body member `idempotency_key`. Both may be sent when they
// agree. A client that retries with the header after a 502 must hit the same key as its first
// try, so a header is never ignored: when the two disagree the request is refused (422 at the
// header, FastAPI's shape) rather than one of them being picked in silence.
import type { FastifyRequest } from 'fastify';
import { InputError } from '../errors/domain-errors';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
const LOC = ['header', IDEMPOTENCY_KEY_HEADER];

/**
 * The request's idempotency key: the header's when sent (checked against `bodyKey`), else
 * `bodyKey` as it came (undefined or null: none). `maxLength` bounds the header as the body
 * member's schema bounds it.
 */
export function idempotencyKeyOf(
  request: FastifyRequest,
  bodyKey: string | null | undefined,
  options: { maxLength: number },
): string | null | undefined {
  const header = request.raw.headers[IDEMPOTENCY_KEY_HEADER]; // raw: Fastify's accessor is slow at a shared site (issue 35)
  if (header === undefined) return bodyKey;
  if (Array.isArray(header)) throw InputError.of(LOC, 'Send one Idempotency-Key', 'value_error');
  if (header.length === 0) throw InputError.of(LOC, 'String should have at least 1 character', 'string_too_short');
  if (header.length > options.maxLength)
    throw InputError.of(LOC, `String should have at most ${options.maxLength} characters`, 'string_too_long');
  if (bodyKey !== undefined && bodyKey !== null && bodyKey !== header) {
    throw InputError.of(LOC, 'Idempotency-Key header and body idempotency_key differ; send one key', 'value_error');
  }
  return header;
}
