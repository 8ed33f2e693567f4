// The compliance intake over the events backbone (PGlite, or PostgreSQL with DATABASE_URL):
// validation runs stored in any tenant's stream reach the intake with their CloudEvents id, also
// those stored before the compliance service first started (its groups start at the streams'
// beginning); an event the intake fails on comes again; a payload that breaks its contract rests
// in the group's dead-letter queue and holds back nothing else.
import { randomUUID } from 'node:crypto';
import { COMPLIANCE_RULE_EXECUTION } from '../../../platform/contracts/compliance.events';
import { createEventsStore, type EventsStore } from '../../../platform/events/backbone/backbone.store';
import { platformDeadLetters } from '../../../platform/events/backbone/platform-group.store';
import { seedPlatformTopics } from '../../../platform/events/backbone/platform-topics';
import { consumeIntake, INTAKE_GROUPS } from '../../../subgraphs/compliance/compliance.intake';
import type { ComplianceEventInput } from '../../../subgraphs/compliance/compliance.types';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { until } from '../../support/waiting';

jest.setTimeout(120_000);

const quiet = { warn: () => {}, info: () => {} };
let db: TestDatabase;
let store: EventsStore;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  db = await createTestDatabase();
  store = createEventsStore(db.sql);
  await seedPlatformTopics(db.sql);
});
afterEach(async () => {
  await stop?.();
  stop = undefined;
});
afterAll(async () => {
  await db?.drop();
});

const run = (tenantId: string, result: 'passed' | 'failed' = 'passed') => ({
  rulepack_id: 'payments',
  rules_executed: 3,
  violations: result === 'failed' ? 1 : 0,
  result,
  input_sha256: 'a'.repeat(64),
  pack_sha256: 'b'.repeat(64),
  pack_source: 'registry',
  rule_pack_version: '1.0.0',
  validation_type: 'payment',
  payload_format: 'json',
  strict_mode: false,
  records: 1,
  tenant_id: tenantId,
  user_id: 'u1',
  correlation_id: randomUUID(),
  occurred_at: new Date().toISOString(),
});

async function append(tenantId: string, data: unknown, id = randomUUID()) {
  const out = await store.publish(
    tenantId,
    {
      id,
      tenantId,
      topic: COMPLIANCE_RULE_EXECUTION.topic,
      source: '/services/validation',
      type: COMPLIANCE_RULE_EXECUTION.topic,
      time: new Date().toISOString(),
      subject: 'payments',
      traceparent: null,
      data,
      size: 100,
    },
    1e12,
  );
  return out.kind === 'over-quota' ? null : out.event;
}

it("takes every tenant's runs with their event ids, including those stored before it started", async () => {
  const before = await append('intake-a', run('intake-a'));
  const taken: ComplianceEventInput[] = [];
  stop = await consumeIntake(
    db,
    async (e) => {
      taken.push(e);
      return { created: true } as never;
    },
    { logger: quiet, pollMs: 20 },
  );
  const after = await append('intake-b', run('intake-b', 'failed'));
  await until(() => taken.length >= 2, 'both runs taken');
  expect(taken.map((e) => [e.tenantId, e.id]).sort()).toEqual(
    [
      ['intake-a', before!.id],
      ['intake-b', after!.id],
    ].sort(),
  );
  expect(taken.find((e) => e.tenantId === 'intake-b')).toMatchObject({
    topic: 'compliance.rule_execution',
    types: ['rule_execution', 'compliance.rule_execution'],
    rulePackId: 'payments',
  });
});

it('an event the intake fails on comes again; a payload that breaks its contract rests in the DLQ and stops nothing', async () => {
  let failures = 0;
  const taken: string[] = [];
  stop = await consumeIntake(
    db,
    async (e) => {
      if (e.tenantId === 'intake-c' && failures++ === 0) throw new Error('database busy');
      taken.push(e.id);
      return { created: true } as never;
    },
    { logger: quiet, pollMs: 20, backoffMs: 10 },
  );
  const retried = await append('intake-c', run('intake-c'));
  const poison = await append('intake-d', { tenant_id: 'intake-d', not: 'a run' });
  const next = await append('intake-d', run('intake-d'));
  await until(() => taken.includes(retried!.id) && taken.includes(next!.id), 'the retried run and the next one');
  expect(failures).toBe(2);
  expect(taken).not.toContain(poison!.id);
  await until(
    async () =>
      (await platformDeadLetters(db.sql, INTAKE_GROUPS[COMPLIANCE_RULE_EXECUTION.topic])).some(
        (d) => d.event.id === poison!.id,
      ),
    'the malformed payload in the dead-letter queue',
  );
});
