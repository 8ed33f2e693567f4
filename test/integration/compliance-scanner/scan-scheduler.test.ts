// The scheduler over the real schedule table (PGlite, or PostgreSQL with DATABASE_URL) with an
// injected clock and a stand-in for the scan itself: a schedule runs when its time comes and
// then counts its next run from the run, not from the missed time; an event makes the schedules
// listening to it due (the tenant's, or every tenant's for a platform event), a burst of events
// is one scan, and a schedule not listening is left alone; two schedulers (two replicas) never
// run one due schedule twice; a failing scan is recorded on the schedule, which stays; `stop`
// waits for the scan under way and starts no other.
import type { Caller } from '../../../platform/auth/caller';
import { NotFoundError } from '../../../platform/errors/domain-errors';
import { ScanScheduler, SCHEDULER_ACTOR } from '../../../subgraphs/compliance-scanner/scan-scheduler';
import { scheduleStore } from '../../../subgraphs/compliance-scanner/schedule.store';
import type { Scan, ScanEventTrigger } from '../../../subgraphs/compliance-scanner/scanner.types';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(60_000);

let db: TestDatabase;
let clock = Date.parse('2026-03-01T00:00:00Z');
const now = () => new Date(clock);
const runs: { tenantId: string; targetId: string; trigger: string; scheduleId: string; by: string }[] = [];
let gate: Promise<void> | null = null;
let failWith: Error | null = null;

const scans = {
  async run(caller: Caller, input: { targetId: string; trigger?: string; scheduleId?: string }): Promise<Scan> {
    runs.push({
      tenantId: caller.auth!.tenantId,
      targetId: input.targetId,
      trigger: input.trigger!,
      scheduleId: input.scheduleId!,
      by: caller.auth!.username,
    });
    if (gate) await gate;
    if (failWith) throw failWith;
    return { id: `scan-${runs.length}` } as Scan;
  },
};

const scheduler = () => new ScanScheduler(db.sql, scans, now, { warn: () => undefined });

async function schedule(
  tenantId: string,
  id: string,
  every: number | null,
  onEvents: ScanEventTrigger[] = [],
): Promise<void> {
  await scheduleStore.insert(db.sql, tenantId, {
    id,
    targetId: `target-${id}`,
    packId: 'platform-baseline',
    everySeconds: every,
    onEvents,
    dueAt: every === null ? null : new Date(clock + every * 1000),
    createdBy: 'alice',
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db?.drop();
});

beforeEach(() => {
  runs.length = 0;
  gate = null;
  failWith = null;
});

it('runs a schedule when its time comes, as the scanner, and counts the next run from the run', async () => {
  await schedule('sch-a', 'hourly', 3600);
  const s = scheduler();
  expect(await s.tick()).toBe(0);
  clock += 3600_000 * 3 + 5_000; // down for three intervals
  expect(await s.tick()).toBe(1);
  expect(runs).toEqual([
    { tenantId: 'sch-a', targetId: 'target-hourly', trigger: 'schedule', scheduleId: 'hourly', by: SCHEDULER_ACTOR },
  ]);
  const after = (await scheduleStore.get(db.sql, 'sch-a', 'hourly'))!;
  expect(after.dueAt!.getTime()).toBe(clock + 3600_000);
  expect([after.lastRunAt!.getTime(), after.lastScanId, after.lastError]).toEqual([clock, 'scan-1', null]);
  expect(await s.tick()).toBe(0);
  await scheduleStore.remove(db.sql, 'sch-a', 'hourly');
});

it('runs the schedules listening to an event, once for a burst, and leaves the others alone', async () => {
  await schedule('sch-a', 'on-config', null, ['config.changed']);
  await schedule('sch-a', 'on-ingest', null, ['ingestion.completed']);
  await schedule('sch-b', 'b-on-config', 86_400, ['config.changed']);
  const s = scheduler();
  // The tenant's event: only its listening schedule.
  gate = new Promise((r) => setTimeout(r, 50));
  const first = s.onEvent('config.changed', 'sch-a');
  // More of the same event while the scan runs: it is due already or running, one more scan at most.
  await s.onEvent('config.changed', 'sch-a');
  await first;
  gate = null;
  await s.tick();
  const ofA = runs.filter((r) => r.scheduleId === 'on-config');
  expect(ofA.length).toBeGreaterThanOrEqual(1);
  expect(ofA.length).toBeLessThanOrEqual(2);
  expect(ofA[0]).toMatchObject({ tenantId: 'sch-a', trigger: 'config.changed' });
  expect(runs.some((r) => r.scheduleId === 'on-ingest' || r.scheduleId === 'b-on-config')).toBe(false);
  // An event-only schedule is not due again until the next event.
  expect((await scheduleStore.get(db.sql, 'sch-a', 'on-config'))!.dueAt).toBeNull();

  // A platform event (a config change at an operator layer) reaches every tenant's listening schedule.
  runs.length = 0;
  await s.onEvent('config.changed', null);
  expect(runs.map((r) => `${r.tenantId}/${r.scheduleId}/${r.trigger}`).sort()).toEqual([
    'sch-a/on-config/config.changed',
    'sch-b/b-on-config/config.changed',
  ]);
  // The one with an interval keeps it: its next run is an interval from this one.
  expect((await scheduleStore.get(db.sql, 'sch-b', 'b-on-config'))!.dueAt!.getTime()).toBe(clock + 86_400_000);

  runs.length = 0;
  await s.onEvent('ingestion.completed', 'sch-a');
  expect(runs.map((r) => r.scheduleId)).toEqual(['on-ingest']);
  for (const [t, id] of [
    ['sch-a', 'on-config'],
    ['sch-a', 'on-ingest'],
    ['sch-b', 'b-on-config'],
  ] as const)
    await scheduleStore.remove(db.sql, t, id);
});

it('never runs one due schedule twice from two replicas', async () => {
  await schedule('sch-a', 'shared', 600);
  clock += 601_000;
  gate = new Promise((r) => setTimeout(r, 30));
  const [x, y] = await Promise.all([scheduler().tick(), scheduler().tick()]);
  expect(x + y).toBe(1);
  expect(runs.filter((r) => r.scheduleId === 'shared')).toHaveLength(1);
  await scheduleStore.remove(db.sql, 'sch-a', 'shared');
});

it('keeps a failing schedule, with the reason', async () => {
  await schedule('sch-a', 'failing', 600);
  clock += 601_000;
  failWith = new NotFoundError('Scanner pack platform-baseline not found');
  expect(await scheduler().tick()).toBe(1);
  const s = (await scheduleStore.get(db.sql, 'sch-a', 'failing'))!;
  expect([s.lastError, s.lastScanId, s.dueAt!.getTime()]).toEqual([
    'Scanner pack platform-baseline not found',
    null,
    clock + 600_000,
  ]);
  await scheduleStore.remove(db.sql, 'sch-a', 'failing');
});

it('stops cleanly: waits for the scan under way, starts no other', async () => {
  await schedule('sch-a', 'slow', 600);
  await schedule('sch-a', 'slow-2', 600);
  clock += 601_000;
  let release!: () => void;
  gate = new Promise((r) => (release = r));
  const s = scheduler();
  const ticking = s.tick();
  while (runs.length === 0) await new Promise((r) => setTimeout(r, 5));
  let stopped = false;
  const stopping = s.stop().then(() => (stopped = true));
  await new Promise((r) => setTimeout(r, 20));
  expect(stopped).toBe(false);
  release();
  await stopping;
  await ticking;
  // The second due schedule was not started after stop, and the first was recorded.
  expect(runs).toHaveLength(1);
  expect((await scheduleStore.get(db.sql, 'sch-a', runs[0]!.scheduleId))!.lastScanId).toBe('scan-1');
  expect(await s.tick()).toBe(0);
  expect(await s.onEvent('config.changed', 'sch-a')).toBe(0);
});
