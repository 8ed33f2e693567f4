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
// The 48 bits are kept as two 24-bit halves, small integers: the high half lives in the prefix
// string (rebuilt once every 16.7M ids), the low half is written through a table of byte pairs.
// One 48-bit number's `toString(16)` took V8's slow double-to-radix path: ~0.35 µs a request.
const seed = randomUUID();
const HALF = 0x1000000;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));
let high = Number.parseInt(seed.slice(24, 30), 16);
let low = Number.parseInt(seed.slice(30), 16);
let prefix = seed.slice(0, 30);

function createdId(): string {
  low += 1;
  if (low === HALF) {
    low = 0;
    high = (high + 1) % HALF;
    prefix = seed.slice(0, 24) + high.toString(16).padStart(6, '0');
  }
  return prefix + HEX[low >>> 16]! + HEX[(low >>> 8) & 255]! + HEX[low & 255]!;
}

export function correlationIdFor(req: IncomingMessage): string {
  const header = req.headers['x-correlation-id'];
  const value = Array.isArray(header) ? header[0] : header;
  return value && SAFE_ID.test(value) ? value : createdId();
}
