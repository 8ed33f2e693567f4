// Opaque page cursors, one format for every service: base64url (no padding) of `<kind>:<value>`,
// where the kind says what the position is (`u` a username, `seq` a sequence number). Cursors come
// back from clients, so decoding is strict: anything this module did not (or could not) produce is
// an InputError naming the caller's argument, never a value that reaches a query. (A NUL that
// slipped through once made PostgreSQL refuse the query: a 500 instead of a 422.)
import { InputError } from '../errors/domain-errors';
import { unstorableText } from '../text';

/** Longer inputs are refused before decoding (REST routes also cap the parameter at this). */
export const MAX_CURSOR_LENGTH = 1024;

const KIND = /^[a-z][a-z0-9_]*$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const SEQ = /^(0|[1-9][0-9]*)$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A position of one kind: encodes it and decodes (strictly) what clients send back. */
export interface CursorCodec<T> {
  encode(value: T): string;
  /** `field` is the domain argument that carried the cursor (`after`); errors name it. */
  decode(cursor: string, field: string): T;
}

/** `encodeCursor('u', 'alice')`, `encodeCursor('seq', 42)`. Bad values are programming errors. */
export function encodeCursor(kind: string, value: string | number): string {
  if (!KIND.test(kind)) throw new Error(`cursor kind must match ${KIND}: '${kind}'`);
  const text = typeof value === 'number' ? seqText(value) : value;
  if (text.length === 0 || !isCleanText(text)) throw new Error(`cursor ${kind} value is empty or not clean text`);
  const cursor = Buffer.from(`${kind}:${text}`, 'utf8').toString('base64url');
  if (cursor.length > MAX_CURSOR_LENGTH) throw new Error(`cursor longer than ${MAX_CURSOR_LENGTH} characters`);
  return cursor;
}

/** A cursor whose position is a non-empty string (a username, a name). */
export function decodeTextCursor(cursor: string, kind: string, field: string): string {
  const text = payloadOf(cursor, kind);
  if (text === undefined) throw invalid(field);
  return text;
}

/** A cursor whose position is a non-negative safe integer (a sequence number). */
export function decodeSeqCursor(cursor: string, kind: string, field: string): number {
  const text = payloadOf(cursor, kind);
  if (text === undefined || !SEQ.test(text)) throw invalid(field);
  const seq = Number(text);
  if (!Number.isSafeInteger(seq)) throw invalid(field);
  return seq;
}

export function textCursor(kind: string): CursorCodec<string> {
  return {
    encode: (value) => encodeCursor(kind, value),
    decode: (cursor, field) => decodeTextCursor(cursor, kind, field),
  };
}

export function seqCursor(kind: string): CursorCodec<number> {
  return {
    encode: (value) => encodeCursor(kind, value),
    decode: (cursor, field) => decodeSeqCursor(cursor, kind, field),
  };
}

function invalid(field: string): InputError {
  return InputError.of([field], 'Invalid cursor', 'value_error');
}

function seqText(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`cursor sequence must be a non-negative safe integer: ${value}`);
  return String(value);
}

/** Well-formed UTF-16 (no lone surrogates) and no NUL, which PostgreSQL text cannot hold. */
function isCleanText(text: string): boolean {
  return unstorableText(text) === undefined;
}

/** The value after `<kind>:`, or undefined when the cursor is not exactly one this module makes. */
function payloadOf(cursor: unknown, kind: string): string | undefined {
  if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return undefined;
  if (!BASE64URL.test(cursor)) return undefined;
  const bytes = Buffer.from(cursor, 'base64url');
  // Canonical only: Node's decoder forgives stray bits and a dangling character; re-encoding
  // shows whether the input is exactly what encodeCursor would have written.
  if (bytes.toString('base64url') !== cursor) return undefined;
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return undefined; // invalid UTF-8 (including encoded surrogates)
  }
  const prefix = `${kind}:`;
  if (!text.startsWith(prefix)) return undefined;
  const value = text.slice(prefix.length);
  if (value.length === 0 || !isCleanText(value)) return undefined;
  return value;
}
