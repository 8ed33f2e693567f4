// The notice relays of one process share the idle poll's read (notice-due-probe.ts): relays asking
// within the answer's age get one statement between them, each relay reads its own services from
// it, and a failed read is not kept as an answer.
import type { SqlExecutor } from '../../../platform/db/sql';
import { sharedDueProbe } from '../../../platform/outbox/notice-due-probe';

/** A database whose notice outbox has due rows of `due` (the probe's one statement), counting reads. */
function fakeDatabase(due: string[]) {
  const asked: string[][] = [];
  let failNext = false;
  const sql = {
    async query(_text: string, params?: unknown[]) {
      const services = params![0] as string[];
      asked.push(services);
      if (failNext) {
        failNext = false;
        throw new Error('connection lost');
      }
      return { rows: services.filter((s) => due.includes(s)).map((service) => ({ service })), rowCount: 0 };
    },
  } as unknown as SqlExecutor;
  return { sql, asked, failNext: () => (failNext = true) };
}

describe('sharedDueProbe', () => {
  it('answers every relay of one database from one read while the answer is fresh', async () => {
    const db = fakeDatabase(['config']);
    const config = sharedDueProbe(db.sql, ['config']);
    const ledger = sharedDueProbe(db.sql, ['workflow']);
    expect(await config.hasDue(['config'], 60_000)).toBe(true);
    expect(await ledger.hasDue(['workflow'], 60_000)).toBe(false);
    expect(await config.hasDue(['config'], 60_000)).toBe(true);
    // One statement, asking for every service registered on this database.
    expect(db.asked).toEqual([['config', 'workflow']]);
  });

  it('reads again once the answer is as old as the poll interval', async () => {
    const db = fakeDatabase([]);
    const probe = sharedDueProbe(db.sql, ['rag']);
    await probe.hasDue(['rag'], 0);
    await probe.hasDue(['rag'], 0);
    expect(db.asked).toHaveLength(2);
  });

  it('keeps no failed read: the next relay asks again', async () => {
    const db = fakeDatabase(['ocr']);
    const probe = sharedDueProbe(db.sql, ['ocr']);
    db.failNext();
    await expect(probe.hasDue(['ocr'], 60_000)).rejects.toThrow('connection lost');
    expect(await probe.hasDue(['ocr'], 60_000)).toBe(true);
    expect(db.asked).toHaveLength(2);
  });

  it('does not share between databases', async () => {
    const a = fakeDatabase(['config']);
    const b = fakeDatabase([]);
    expect(await sharedDueProbe(a.sql, ['config']).hasDue(['config'], 60_000)).toBe(true);
    expect(await sharedDueProbe(b.sql, ['config']).hasDue(['config'], 60_000)).toBe(false);
  });
});
