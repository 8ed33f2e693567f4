// The notice outbox on a real database (PGlite, or PostgreSQL with DATABASE_URL): the writer's
// notice exists only if its transaction commits (Prisma and raw SQL alike), and several relays over
// one table publish every notice at least once, each subject in the order it was written, with a
// failing publish holding back only its own subject.
import { CloudEvent } from 'cloudevents';
import { RULEPACK_CERTIFIED } from '../../../platform/contracts/rulepack.events';
import { WORKFLOW_CHANGED } from '../../../platform/contracts/workflow.events';
import { startNoticeRelay, type NoticeRelay } from '../../../platform/outbox/notice-relay';
import { noticeWriter, pendingNotice, sqlInsertNotices, sqlNoticeWriter } from '../../../platform/outbox/notice.writer';
import type { NoticeEnvelope } from '../../../platform/outbox/notice.envelope';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(120_000);

const quiet = { warn: () => {}, info: () => {} };
let db: TestDatabase;
const relays: NoticeRelay[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const r of relays) await r.stop();
  await db?.drop();
});

const notice = (packId: string) => ({ pack_id: packId, version: '1.0.0', owner_tenant: 't-writer', replacement: null });
const count = async (where: string, params: unknown[]) =>
  Number(
    (await db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM notice_outbox WHERE ${where}`, params)).rows[0]!
      .n,
  );

describe('notice writer', () => {
  it('a rolled-back Prisma transaction writes no notice; a committed one writes a valid CloudEvent', async () => {
    await expect(
      db.prisma.$transaction(async (tx) => {
        await noticeWriter(tx, 'rulepack-registry').append(RULEPACK_CERTIFIED, notice('rolled-back'), {
          tenantId: 't-writer',
          subject: 'rolled-back@1.0.0',
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await count(`envelope->'data'->>'pack_id' = $1`, ['rolled-back'])).toBe(0);

    const written = await db.prisma.$transaction((tx) =>
      noticeWriter(tx, 'rulepack-registry').append(RULEPACK_CERTIFIED, notice('kept'), {
        tenantId: 't-writer',
        subject: 'kept@1.0.0',
        correlationId: 'corr-1',
      }),
    );
    const row = (
      await db.sql.query<{ envelope: NoticeEnvelope; topic: string; subject: string; tenant_id: string }>(
        'SELECT envelope, topic, subject, tenant_id FROM notice_outbox WHERE event_id = $1',
        [written.id],
      )
    ).rows[0]!;
    expect(row).toMatchObject({ topic: 'rulepack.certified', subject: 'kept@1.0.0', tenant_id: 't-writer' });
    expect(row.envelope).toMatchObject({
      specversion: '1.0',
      id: written.id,
      type: 'rulepack.certified',
      source: 'urn:platform:service:rulepack-registry',
      subject: 'kept@1.0.0',
      tenantid: 't-writer',
      data: notice('kept'),
    });
    // What a consumer's CloudEvents SDK makes of it: valid, with the same trace for one correlation id.
    expect(new CloudEvent(row.envelope as never).validate()).toBe(true);
    const again = pendingNotice('x', RULEPACK_CERTIFIED, notice('k2'), {
      tenantId: 't',
      subject: 's',
      correlationId: 'corr-1',
    });
    expect(again.envelope.traceparent.split('-')[1]).toBe(row.envelope.traceparent.split('-')[1]);
  });

  it('a rolled-back raw-SQL transaction writes no notice either', async () => {
    await expect(
      db.sql.transaction(async (q) => {
        await sqlNoticeWriter(q, 'workflow').append(RULEPACK_CERTIFIED, notice('sql-rolled-back'), {
          tenantId: 't-writer',
          subject: 'sql@1.0.0',
        });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await count(`envelope->'data'->>'pack_id' = $1`, ['sql-rolled-back'])).toBe(0);
  });
});

describe('notice relay', () => {
  it('several relays publish every notice at least once, in order per subject, a failure holding back only its subject', async () => {
    const tenant = 't-relay';
    const subjects = ['wf-a', 'wf-b', 'wf-c', 'wf-d'];
    const written = new Map<string, string[]>(subjects.map((s) => [s, []]));
    // Interleaved across subjects, in several transactions, as concurrent executions would write them.
    for (let round = 0; round < 10; round++) {
      await db.sql.transaction(async (q) => {
        const batch = subjects.map((s) =>
          pendingNotice(
            'relay-test',
            WORKFLOW_CHANGED,
            { tenant_id: tenant, workflow_id: s, version: round + 1, seq: round, event: 'step.completed' },
            {
              tenantId: tenant,
              subject: s,
            },
          ),
        );
        await sqlInsertNotices(q, batch);
        for (const n of batch) written.get(n.envelope.subject)!.push(n.envelope.id);
      });
    }
    const deliveries: NoticeEnvelope[] = [];
    const failOnce = new Set([written.get('wf-b')![3]!]);
    const bus = {
      async publish(_topic: string, envelope: unknown) {
        const e = envelope as NoticeEnvelope;
        // Let the other relays run meanwhile.
        await new Promise((r) => setImmediate(r));
        if (failOnce.delete(e.id)) throw new Error('bus unavailable');
        deliveries.push(e);
      },
    };
    for (let i = 0; i < 3; i++)
      relays.push(
        startNoticeRelay({
          db,
          bus,
          logger: quiet,
          services: ['relay-test'],
          pollMs: 20,
          batch: 7,
          backoff: { baseMs: 30, maxMs: 100 },
        }),
      );
    const all = [...written.values()].flat();
    await until(() => all.every((id) => deliveries.some((d) => d.id === id)), 'every notice published', {
      tries: 1000,
      everyMs: 20,
    });
    for (const [subject, ids] of written) {
      const firsts: string[] = [];
      for (const d of deliveries) if (d.subject === subject && !firsts.includes(d.id)) firsts.push(d.id);
      expect(firsts).toEqual(ids);
    }
    expect(failOnce.size).toBe(0); // the failing notice was retried
    // A delivery is seen before its pass's mark commits (the mark follows the publishes): wait for it.
    await until(async () => (await count(`service = 'relay-test' AND published_at IS NULL`, [])) === 0, 'every mark');
    const retried = await db.sql.query<{ attempts: number }>('SELECT attempts FROM notice_outbox WHERE event_id = $1', [
      written.get('wf-b')![3],
    ]);
    expect(retried.rows[0]!.attempts).toBe(2);
  });
});
