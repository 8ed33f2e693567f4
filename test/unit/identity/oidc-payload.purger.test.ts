// The purge of expired oidc_payloads rows: the clock is an argument (no sleeps), each run is
// bounded, and it stops at the first short batch.
import { OidcPayloadPurger } from '../../../subgraphs/identity/oidc/oidc-payload.purger';
import type { OidcPayloadStore } from '../../../subgraphs/identity/oidc/oidc.types';
import { strictFake } from '../../support/strict-fake';

function storeWith(backlog: number) {
  const calls: { before: Date; limit: number }[] = [];
  let left = backlog;
  const store = strictFake<OidcPayloadStore>({
    async purgeExpired(before, limit) {
      calls.push({ before, limit });
      const n = Math.min(left, limit);
      left -= n;
      return n;
    },
  });
  return { store, calls, left: () => left };
}

it('deletes what expired at the given time, batch by batch, until a batch comes back short', async () => {
  const { store, calls } = storeWith(25);
  const purger = new OidcPayloadPurger(store, { intervalMs: 0, batchSize: 10, maxBatches: 5 });
  const at = new Date('2026-01-01T00:00:00Z');
  expect(await purger.runOnce(at)).toBe(25);
  expect(calls).toEqual([
    { before: at, limit: 10 },
    { before: at, limit: 10 },
    { before: at, limit: 10 },
  ]);
});

it('is bounded: a backlog larger than one run is left for the next runs', async () => {
  const { store, calls, left } = storeWith(1000);
  const purger = new OidcPayloadPurger(store, { intervalMs: 0, batchSize: 10, maxBatches: 3 });
  expect(await purger.runOnce(new Date())).toBe(30);
  expect(calls).toHaveLength(3);
  expect(left()).toBe(970);
});

it('uses its clock when no time is given, and the timer stays off at interval 0', async () => {
  const { store, calls } = storeWith(0);
  const at = new Date('2030-05-05T05:05:05Z');
  const purger = new OidcPayloadPurger(store, { intervalMs: 0, now: () => at });
  purger.start();
  expect(await purger.runOnce()).toBe(0);
  expect(calls).toEqual([{ before: at, limit: 500 }]);
  await purger.stop();
});

it('a running timer runs the purge and stop() waits for the run under way', async () => {
  jest.useFakeTimers();
  try {
    const { store, calls } = storeWith(3);
    const purger = new OidcPayloadPurger(store, { intervalMs: 60_000, now: () => new Date(0) });
    purger.start();
    expect(calls).toHaveLength(0);
    jest.advanceTimersByTime(60_000);
    await purger.stop();
    expect(calls).toEqual([{ before: new Date(0), limit: 500 }]);
    jest.advanceTimersByTime(600_000);
    expect(calls).toHaveLength(1);
  } finally {
    jest.useRealTimers();
  }
});
