// The change log's order past nine changes, and the rollout poller on a real database. The
// benchmark's rapid loop stopped at its 8th promotion, which was the tenth change of the log:
// `seq` is read as text, and an unqualified `ORDER BY seq` sorted that text ("9" after "10"), so
// the newest change looked older than the ninth and the service's in-memory view stopped moving
// (docs/config.md, "The stalled promotion"). These tests drive the domain (store, rollout service,
// effective configuration) over the test database well past ten changes.
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../../../platform/auth/auth-context';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import type { WorkflowClient } from '../../../platform/clients/workflow.client';
import { ConfigSigner } from '../../../subgraphs/config/config-signer';
import { createConfigStore, OPERATOR_VIEW } from '../../../subgraphs/config/config.store';
import type { Bundle, ConfigCaller, Rollout } from '../../../subgraphs/config/config.types';
import { EffectiveService } from '../../../subgraphs/config/effective.service';
import { RolloutService } from '../../../subgraphs/config/rollout.service';
import { createTestDatabase, type TestDatabase } from '../../support/database';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

const admin: AuthContext = {
  username: 'first',
  tenantId: 'default',
  roles: ['admin', 'user'],
  scopes: ['read', 'write'],
  isService: false,
};
const caller: ConfigCaller = { auth: admin, correlationId: 'test' } as ConfigCaller;

/** A workflow whose every approval task was approved by a second person. */
const approved: Pick<WorkflowClient, 'execute' | 'status'> = {
  execute: async () => {
    throw new Error('not used');
  },
  status: async (_c, workflowId) =>
    ({
      status: 'completed',
      approval_tasks: [
        { approval_task_id: `task-${workflowId}`, status: 'approved', decision: 'approve', reviewer: 'second' },
      ],
    }) as never,
};

function domain() {
  const access = new TenantAccess(async () => {});
  const effective = new EffectiveService(db, access, { envPrefixes: ['CONFIG_SECRET_'], fileRoots: ['/run/secrets'] });
  const signer = new ConfigSigner(db.sql);
  const rollouts = new RolloutService(db, access, approved, signer, { changed: (c) => effective.refresh(c) });
  return { effective, signer, rollouts };
}

async function publish(namespace: string, content: Record<string, unknown>): Promise<Bundle> {
  return createConfigStore(db.sql).insertBundle({
    id: randomUUID(),
    tenantId: 'default',
    layer: 'tenant',
    scope: 'default',
    namespace,
    content,
    sha256: randomUUID().replace(/-/g, '').padEnd(64, '0'),
    schemaVersion: null,
    author: 'first',
  });
}

async function requestPromotion(bundle: Bundle): Promise<Rollout> {
  const workflowId = `wf-${randomUUID()}`;
  return createConfigStore(db.sql).insertRollout({
    id: randomUUID(),
    tenantId: 'default',
    bundleId: bundle.id,
    percentage: 100,
    hashBy: 'tenant',
    status: 'pending_approval',
    requestedBy: 'first',
    workflowId,
    approvalTaskId: `task-${workflowId}`,
    scheduledAt: null,
  });
}

it('applies twelve promotions in a row through the poller, and the effective configuration follows each one', async () => {
  const { effective, signer, rollouts } = domain();
  await signer.ensureKey();
  await effective.load();
  const seqs: number[] = [];
  for (let round = 0; round < 12; round++) {
    const rollout = await requestPromotion(await publish('service', { round }));
    await rollouts.syncOpen();
    const moved = await createConfigStore(db.sql).rollout('default', rollout.id);
    expect(moved?.status).toBe('applied');
    const answer = await effective.effective(caller, { tenantId: 'default' });
    // Before the fix, from the tenth change on, the answer stayed at seq 9 and round 8.
    expect(answer.seq).toBe(moved!.changeSeq);
    expect(answer.config.service).toEqual({ round });
    // The same question again is the same kept answer, whichever question came between; after
    // the next change it is a new one (the loop's next round).
    expect(effective.current(caller, { tenantId: 'default' })).toBe(answer);
    const inModule = effective.current(caller, { tenantId: 'default', module: 'm' });
    expect(inModule).not.toBe(answer);
    expect(inModule?.config.service).toEqual({ round });
    expect(effective.current(caller, { tenantId: 'default' })).toBe(answer);
    expect(effective.current(caller, { tenantId: 'default', module: 'm' })).toBe(inModule);
    seqs.push(answer.seq);
  }
  expect(seqs[11]! - seqs[0]!).toBe(11);

  const store = createConfigStore(db.sql);
  const target = { layer: 'tenant' as const, scope: 'default', namespace: 'service' };
  const last = seqs[11]!;
  expect((await store.latestChange(target))?.seq).toBe(last);
  const history = (await store.changes(OPERATOR_VIEW, target)).map((c) => c.seq);
  expect(history).toEqual([...history].sort((a, b) => a - b));
  expect((await store.allInForce()).find((c) => c.namespace === 'service')?.seq).toBe(last);
  const inForce = (asOf?: number) =>
    store.changesInForce([{ layer: 'tenant', scope: 'default' }], asOf === undefined ? {} : { seq: asOf });
  expect((await inForce()).find((c) => c.namespace === 'service')?.seq).toBe(last);
  expect((await inForce(seqs[9])).find((c) => c.namespace === 'service')?.seq).toBe(seqs[9]);

  // A fresh process (start-up load) sees the newest change too.
  const restarted = domain();
  await restarted.effective.load();
  expect((await restarted.effective.effective(caller, { tenantId: 'default' })).config.service).toEqual({ round: 11 });
});

it('a rollout that cannot be applied is reported and does not hold back the ones after it', async () => {
  const { effective, signer, rollouts } = domain();
  await signer.ensureKey();
  await effective.load();
  // Its bundle is gone (the apply fails inside its transaction), and it is first in line.
  const broken = await requestPromotion(await publish('broken', { x: 1 }));
  await db.sql.query('DELETE FROM config_bundles WHERE id = $1::uuid', [broken.bundleId]);
  const good = await requestPromotion(await publish('other', { ok: true }));
  const failed: string[] = [];
  await rollouts.syncOpen(new Date(), (r) => failed.push(r.id));
  expect(failed).toEqual([broken.id]);
  const store = createConfigStore(db.sql);
  expect((await store.rollout('default', good.id))?.status).toBe('applied');
  // Nothing half-applied: the broken one is still waiting, with no change written for it.
  expect((await store.rollout('default', broken.id))?.status).toBe('pending_approval');
  const { rows } = await db.sql.query('SELECT 1 FROM config_changes WHERE rollout_id = $1::uuid', [broken.id]);
  expect(rows).toHaveLength(0);
  expect((await effective.effective(caller, { tenantId: 'default' })).config.other).toEqual({ ok: true });
  // The next pass tries it again (and fails again), still without stopping.
  await rollouts.syncOpen(new Date(), (r) => failed.push(r.id));
  expect(failed).toEqual([broken.id, broken.id]);
});
