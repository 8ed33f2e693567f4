// Correlation ids: taken from `X-Correlation-ID` when it is a sane token, else created, and
// echoed on the response so clients and logs can be joined.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// A created id keeps the UUID's shape (clients and tests read it as one) but is this process's
// random UUID with its last 48 bits counting up from a random start: unique within the process,
// random across processes, and one short string per request where crypto.randomUUID builds ~20
// (about 0.6 KB of garbage a request, a tenth of the kernel's: issue 35). A correlation id only
// joins logs; it is sent back to the caller and authorises nothing, so it need not be unguessable.
const seed = randomUUID();
const prefix = seed.slice(0, 24);
const COUNTER_SPAN = 2 ** 48;
let counter = Number.parseInt(seed.slice(24), 16);

function createdId(): string {
  counter = (counter + 1) % COUNTER_SPAN;
  return prefix + counter.toString(16).padStart(12, '0');
}

export function correlationIdFor(req: IncomingMessage): string {
  const header = req.headers['x-correlation-id'];
  const value = Array.isArray(header) ? header[0] : header;
  return value && SAFE_ID.test(value) ? value : createdId();
}
