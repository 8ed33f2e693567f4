// router/subscriptions/upstream.pool.ts: one socket per (subgraph, token, tenant), shared and
// reference-counted; the last share closes it; different callers never share.
import type { Client } from 'graphql-ws';
import { UpstreamPool, type UpstreamKey } from '../../../router/subscriptions/upstream.pool';

function recordingPool() {
  const opened: { key: UpstreamKey; eager: boolean; disposed: boolean }[] = [];
  const pool = new UpstreamPool((key, eager) => {
    const entry = { key, eager, disposed: false };
    opened.push(entry);
    return {
      dispose: () => {
        entry.disposed = true;
      },
    } as unknown as Client;
  });
  return { pool, opened };
}

const ledger = (token: string, tenantId = 'default'): UpstreamKey => ({ subgraph: 'ledger', token, tenantId });

describe('UpstreamPool', () => {
  it('shares one socket between connections of one caller and closes it with the last', () => {
    const { pool, opened } = recordingPool();
    const a = pool.acquire(ledger('t1'), true);
    const b = pool.acquire(ledger('t1'));
    expect(a).toBe(b);
    expect(opened).toHaveLength(1);
    expect(opened[0]!.eager).toBe(true);
    pool.release(ledger('t1'));
    expect(opened[0]!.disposed).toBe(false);
    expect(pool.size).toBe(1);
    pool.release(ledger('t1'));
    expect(opened[0]!.disposed).toBe(true);
    expect(pool.size).toBe(0);
    pool.release(ledger('t1')); // a second release of a closed key changes nothing
    expect(pool.acquire(ledger('t1'))).not.toBe(a); // a new share opens a new socket
    expect(opened).toHaveLength(2);
  });

  it('never shares between tokens, tenants or subgraphs', () => {
    const { pool, opened } = recordingPool();
    pool.acquire(ledger('t1'));
    pool.acquire(ledger('t2'));
    pool.acquire(ledger('t1', 'acme'));
    pool.acquire({ subgraph: 'workflow', token: 't1', tenantId: 'default' });
    expect(opened).toHaveLength(4);
    pool.release(ledger('t2'));
    expect(opened.map((o) => o.disposed)).toEqual([false, true, false, false]);
  });
});
