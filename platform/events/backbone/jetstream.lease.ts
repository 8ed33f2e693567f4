// A JetStream delivery as the lease id the events API hands out (a UUID-shaped string): the
// stream sequence, the consumer's delivery sequence and the delivery count, from which any process
// rebuilds the ack subject `$JS.ACK.<stream>.<consumer>.<count>.<stream seq>.<delivery seq>...`.
// Nothing is stored per lease, so an ack or nack may reach any process of the service.

/** The last group marks a JetStream lease; anything else is not one of ours. */
const MARK = 'e5e5';

export interface JetStreamLease {
  sseq: number;
  dseq: number;
  dc: number;
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

export function encodeLease(sseq: number, dseq: number, dc: number): string {
  const h = `${hex(sseq, 12)}${hex(dseq, 12)}${hex(Math.min(dc, 0xffff), 4)}`;
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 28)}${MARK}`;
}

export function decodeLease(id: string): JetStreamLease | null {
  const h = id.toLowerCase().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(h) || !h.endsWith(MARK)) return null;
  const lease = {
    sseq: parseInt(h.slice(0, 12), 16),
    dseq: parseInt(h.slice(12, 24), 16),
    dc: parseInt(h.slice(24, 28), 16),
  };
  return lease.sseq > 0 && lease.dseq > 0 && lease.dc > 0 ? lease : null;
}
