// Correlation ids: taken from `X-Correlation-ID` when it is a sane token, else created, and
// echoed on the response so clients and logs can be joined.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function correlationIdFor(req: IncomingMessage): string {
  const header = req.headers['x-correlation-id'];
  const value = Array.isArray(header) ? header[0] : header;
  return value && SAFE_ID.test(value) ? value : randomUUID();
}
