// groupedOutboxWriter: appends that arrive while a write is in flight share one multi-row insert,
// each append resolves only once its own row is committed, and a failed insert fails exactly the
// appends it carried.
import type { PrismaLike } from '../../../platform/db/prisma-like';
import { groupedOutboxWriter, type AuditEventInput } from '../../../platform/outbox/outbox.writer';

const event = (n: number): AuditEventInput => ({
  tenantId: 't',
  eventType: 'rule_execution',
  eventData: { n },
  userId: null,
  correlationId: `c${n}`,
  idempotencyKey: `k${n}`,
});

function fakeDb(fail: (batch: unknown[]) => boolean = () => false) {
  const inserts: { rows: unknown[]; commit(): void; fail(): void }[] = [];
  const db = {
    outboxEvent: {
      createMany: ({ data }: { data: unknown[] }) =>
        new Promise<void>((resolve, reject) => {
          inserts.push({
            rows: data,
            commit: () => (fail(data) ? reject(new Error('insert failed')) : resolve()),
            fail: () => reject(new Error('insert failed')),
          });
        }),
    },
  } as unknown as PrismaLike;
  return { db, inserts };
}

const settledState = (p: Promise<void>) => {
  const s = { done: false, error: undefined as unknown };
  p.then(
    () => (s.done = true),
    (e) => {
      s.done = true;
      s.error = e;
    },
  );
  return s;
};
const tick = () => new Promise((r) => setImmediate(r));

describe('groupedOutboxWriter', () => {
  it('writes a lone event at once and groups the ones that arrive meanwhile', async () => {
    const { db, inserts } = fakeDb();
    const writer = groupedOutboxWriter(db, 'validation');
    const first = settledState(writer.append(event(1)));
    await tick();
    expect(inserts.map((i) => i.rows.length)).toEqual([1]);
    const rest = [2, 3, 4].map((n) => settledState(writer.append(event(n))));
    await tick();
    expect(inserts).toHaveLength(1); // waiting for the first write
    expect(first.done).toBe(false);
    inserts[0]!.commit();
    await tick();
    expect(first.done).toBe(true);
    expect(inserts.map((i) => i.rows.length)).toEqual([1, 3]);
    expect(rest.some((r) => r.done)).toBe(false); // not before their own rows commit
    inserts[1]!.commit();
    await tick();
    expect(rest.every((r) => r.done && r.error === undefined)).toBe(true);
    expect(
      (inserts[1]!.rows as { correlationId: string; service: string }[]).map((r) => [r.service, r.correlationId]),
    ).toEqual([
      ['validation', 'c2'],
      ['validation', 'c3'],
      ['validation', 'c4'],
    ]);
  });

  it('fails exactly the appends of a failed insert, and keeps writing', async () => {
    const { db, inserts } = fakeDb();
    const writer = groupedOutboxWriter(db, 'validation');
    const first = settledState(writer.append(event(1)));
    await tick();
    const grouped = [2, 3].map((n) => settledState(writer.append(event(n))));
    inserts[0]!.fail();
    await tick();
    expect(first.error).toBeInstanceOf(Error);
    inserts[1]!.commit();
    await tick();
    expect(grouped.every((g) => g.done && g.error === undefined)).toBe(true);
    const later = settledState(writer.append(event(4)));
    await tick();
    inserts[2]!.commit();
    await tick();
    expect(later.done && later.error === undefined).toBe(true);
  });
});
