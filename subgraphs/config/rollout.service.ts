// Rollouts: putting a bundle in force. A promotion (a percentage of tenants or users, up to 100)
// is requested by one person and approved by another through a workflow human task: the request
// starts the workflow with the requester's own credentials (so the workflow's four-eyes rule
// knows who asked), and the change is applied once the workflow reports the task approved by
// someone else, at `scheduled_at` if one was given. Applying writes one signed row of the change
// log, its audit event and its `config.changed` notice in one transaction. A rollback puts an
// earlier version that was in force before back at 100% in one call (docs/decisions.md).
import { randomUUID } from 'node:crypto';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { requireAuth } from '../../platform/auth/caller';
import { ServiceCallError } from '../../platform/clients/service-request';
import type { WorkflowClient } from '../../platform/clients/workflow.client';
import { CONFIG_CHANGED } from '../../platform/contracts/config.events';
import type { Database } from '../../platform/db/database';
import type { SqlQuery } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError, UnavailableError } from '../../platform/errors/domain-errors';
import { sqlInsertNotices, pendingNotice } from '../../platform/outbox/notice.writer';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { viewerOf, writerTenant } from './config.access';
import { CONFIG_AUDIT } from './config.audit';
import type { ConfigSigner } from './config-signer';
import { createConfigStore, OPERATOR_VIEW } from './config.store';
import { clampLimit, type Bundle, type Change, type ConfigCaller, type HashBy, type Rollout } from './config.types';

export interface PromoteInput {
  percentage?: number;
  hashBy?: HashBy;
  scheduledAt?: string;
}

/**
 * Promotions run the workflow's built-in pack of this type, whose first step is a human approval
 * (docs/workflow.md, "Human approval"); no registry pack is needed.
 */
export const PROMOTION_WORKFLOW_TYPE = 'compliance';

export interface RolloutHooks {
  /** After a change committed: refresh what this process serves, wake the notice relay. */
  changed(change: Change): Promise<void>;
}

export class RolloutService {
  constructor(
    private readonly db: Database,
    private readonly access: TenantAccess,
    private readonly workflow: Pick<WorkflowClient, 'execute' | 'status'>,
    private readonly signer: ConfigSigner,
    private readonly hooks: RolloutHooks,
  ) {}

  private async visibleBundle(caller: ConfigCaller, bundleId: string): Promise<Bundle> {
    const auth = requireAuth(caller);
    const [bundle] = await createConfigStore(this.db.sql).bundles(viewerOf(auth), [bundleId]);
    if (!bundle) throw new NotFoundError('Bundle not found');
    return bundle;
  }

  /** Requests a promotion: a rollout waiting for a second person's approval in the workflow service. */
  async promote(caller: ConfigCaller, bundleId: string, input: PromoteInput): Promise<Rollout> {
    const bundle = await this.visibleBundle(caller, bundleId);
    const { auth } = await writerTenant(
      this.access,
      caller,
      bundle.layer,
      bundle.tenantId ?? undefined,
      'config.rollouts.promote',
    );
    const percentage = input.percentage ?? 100;
    if (!Number.isInteger(percentage) || percentage < 1 || percentage > 100)
      throw InputError.of(['body', 'percentage'], 'an integer from 1 to 100', 'value_error.number');
    let scheduledAt: Date | null = null;
    if (input.scheduledAt !== undefined) {
      scheduledAt = new Date(input.scheduledAt);
      if (Number.isNaN(scheduledAt.getTime()))
        throw InputError.of(['body', 'scheduled_at'], 'an ISO 8601 time', 'value_error.datetime');
    }
    const tenantId = bundle.tenantId ?? auth.tenantId;
    let started;
    try {
      started = await this.workflow.execute(
        { token: caller.token, tenantId, correlationId: caller.correlationId },
        {
          workflow_type: PROMOTION_WORKFLOW_TYPE,
          payload: {
            bundle_id: bundle.id,
            layer: bundle.layer,
            scope: bundle.scope,
            namespace: bundle.namespace,
            version: bundle.version,
            sha256: bundle.sha256,
            percentage,
          },
          metadata: { source: 'config', requested_by: auth.username },
        },
      );
    } catch (err) {
      if (err instanceof ServiceCallError && err.status !== undefined && err.status < 500)
        throw new ConflictError(`The workflow service refused the approval request (${err.status})`);
      throw new UnavailableError('The workflow service is unavailable; nothing was promoted');
    }
    if (!started.approval_task_id)
      throw new ConflictError(
        `The promotion workflow did not ask for an approval (status ${started.status}); nothing was promoted`,
      );
    const created = await this.db.sql.transaction(async (q) => {
      const rollout = await createConfigStore(q).insertRollout({
        id: randomUUID(),
        tenantId,
        bundleId: bundle.id,
        percentage,
        hashBy: input.hashBy ?? 'tenant',
        status: 'pending_approval',
        requestedBy: auth.username,
        workflowId: started.workflow_id,
        approvalTaskId: started.approval_task_id,
        scheduledAt,
      });
      await sqlOutboxWriter(q, 'config').append(
        auditEvent(caller, {
          tenantId,
          type: CONFIG_AUDIT.promotionRequested,
          actor: auth.username,
          data: {
            rollout_id: rollout.id,
            bundle_id: bundle.id,
            version: bundle.version,
            percentage,
            workflow_id: started.workflow_id,
          },
        }),
      );
      return rollout;
    });
    this.promotions += 1;
    return created;
  }

  /** The newest rollouts the caller may see, in any state (waiting ones as they were last moved on). */
  async recent(caller: ConfigCaller, limit = 50): Promise<Rollout[]> {
    const auth = requireAuth(caller);
    return createConfigStore(this.db.sql).recentRollouts(viewerOf(auth), clampLimit(limit));
  }

  async get(caller: ConfigCaller, rolloutId: string): Promise<Rollout> {
    const auth = requireAuth(caller);
    const rollout = await createConfigStore(this.db.sql).rollout(viewerOf(auth), rolloutId);
    if (!rollout) throw new NotFoundError('Rollout not found');
    if (rollout.status === 'pending_approval' || rollout.status === 'scheduled')
      return (await this.sync(rollout)) ?? rollout;
    return rollout;
  }

  /**
   * Moves a waiting rollout on: asks the workflow for its approval task and applies the change
   * when it is approved by someone other than the requester and its time has come. Returns the
   * rollout as it now stands (undefined when the workflow could not be asked).
   */
  async sync(rollout: Rollout, now = new Date()): Promise<Rollout | undefined> {
    let approver: string | null = rollout.approvedBy;
    if (rollout.status === 'pending_approval') {
      let status;
      try {
        status = await this.workflow.status({ tenantId: rollout.tenantId ?? undefined }, rollout.workflowId!);
      } catch {
        return undefined;
      }
      const task = status.approval_tasks.find((t) => t.approval_task_id === rollout.approvalTaskId);
      const decision = (task?.decision ?? task?.status ?? '').toLowerCase();
      if (decision.startsWith('reject') || status.status === 'rejected')
        return this.finish(rollout, 'rejected', task?.reviewer ?? null);
      if (!decision.startsWith('approve')) return rollout;
      approver = task?.reviewer ?? null;
      // The workflow refuses a requester's own decision; checked here too, so no path applies one.
      if (!approver || approver === rollout.requestedBy) return this.finish(rollout, 'rejected', approver);
    }
    if (rollout.scheduledAt && rollout.scheduledAt > now) {
      if (rollout.status !== 'scheduled') {
        await createConfigStore(this.db.sql).updateRollout(rollout.id, { status: 'scheduled', approvedBy: approver });
        return { ...rollout, status: 'scheduled', approvedBy: approver };
      }
      return rollout;
    }
    return this.apply(rollout.id, approver!);
  }

  private async finish(rollout: Rollout, status: 'rejected', reviewer: string | null): Promise<Rollout> {
    await this.db.sql.transaction(async (q) => {
      await createConfigStore(q).updateRollout(rollout.id, { status });
      await sqlOutboxWriter(q, 'config').append(
        auditEvent(
          { correlationId: rollout.id },
          {
            tenantId: rollout.tenantId ?? 'platform',
            type: CONFIG_AUDIT.promotionRejected,
            actor: reviewer,
            data: { rollout_id: rollout.id, bundle_id: rollout.bundleId },
          },
        ),
      );
    });
    return { ...rollout, status };
  }

  private async apply(rolloutId: string, approver: string): Promise<Rollout | undefined> {
    const result = await this.db.sql.transaction(async (q) => {
      const store = createConfigStore(q);
      const rollout = await store.lockRollout(rolloutId);
      if (!rollout || (rollout.status !== 'pending_approval' && rollout.status !== 'scheduled')) return { rollout };
      // The rollout's bundle whatever its tenant: the rights were checked when it was requested.
      const [bundle] = await store.bundles(OPERATOR_VIEW, [rollout.bundleId]);
      const change = await this.writeChange(q, bundle!, {
        kind: 'promote',
        percentage: rollout.percentage,
        hashBy: rollout.hashBy,
        rolloutId: rollout.id,
        actor: rollout.requestedBy,
        approvedBy: approver,
        auditTenant: rollout.tenantId ?? 'platform',
        correlationId: rollout.id,
      });
      await store.updateRollout(rollout.id, { status: 'applied', approvedBy: approver, changeSeq: change.seq });
      return {
        rollout: { ...rollout, status: 'applied' as const, approvedBy: approver, changeSeq: change.seq },
        change,
      };
    });
    if (result.change) await this.hooks.changed(result.change);
    return result.rollout ?? undefined;
  }

  /** Puts an earlier version back in force for everyone, at once (it must have been in force before). */
  async rollback(caller: ConfigCaller, bundleId: string): Promise<Change> {
    const bundle = await this.visibleBundle(caller, bundleId);
    const { auth } = await writerTenant(
      this.access,
      caller,
      bundle.layer,
      bundle.tenantId ?? undefined,
      'config.rollback',
    );
    const change = await this.db.sql.transaction(async (q) => {
      const store = createConfigStore(q);
      await store.lockTarget(bundle);
      const history = await store.changes(OPERATOR_VIEW, bundle);
      if (!history.some((c) => c.bundleId === bundle.id))
        throw new ConflictError(
          'Only a version that was in force before can be rolled back to (promote a new one instead)',
        );
      const current = history[history.length - 1]!;
      if (current.bundleId === bundle.id && current.percentage === 100)
        throw new ConflictError('This version is already in force');
      return this.writeChange(q, bundle, {
        kind: 'rollback',
        percentage: 100,
        hashBy: 'tenant',
        rolloutId: null,
        actor: auth.username,
        approvedBy: null,
        auditTenant: bundle.tenantId ?? auth.tenantId,
        correlationId: caller.correlationId,
      });
    });
    await this.hooks.changed(change);
    return change;
  }

  async history(caller: ConfigCaller, bundleId: string): Promise<Change[]> {
    const bundle = await this.visibleBundle(caller, bundleId);
    return createConfigStore(this.db.sql).changes(viewerOf(requireAuth(caller)), bundle);
  }

  /**
   * Whether waiting rollouts may exist: true at start and after a promotion request here, false
   * once a pass found none, so an idle service's poller touches no table.
   */
  private promotions = 0;
  /** The `promotions` count at which a pass last found nothing waiting (-1: never). */
  private idleAt = -1;

  /**
   * One poller pass: every waiting rollout, in creation order. A rollout whose move fails (its
   * transaction, its refresh) is reported to `onError` and left waiting for the next pass; it
   * never holds back the rollouts after it.
   */
  async syncOpen(now = new Date(), onError: (rollout: Rollout, err: unknown) => void = () => {}): Promise<void> {
    // Counted after each request's commit, so a pass racing a promotion never marks it idle.
    const seen = this.promotions;
    if (this.idleAt === seen) return;
    const open = await createConfigStore(this.db.sql).openRollouts();
    if (open.length === 0) this.idleAt = seen;
    for (const rollout of open) {
      try {
        await this.sync(rollout, now);
      } catch (err) {
        onError(rollout, err);
      }
    }
  }

  private async writeChange(
    q: SqlQuery,
    bundle: Bundle,
    c: {
      kind: 'promote' | 'rollback';
      percentage: number;
      hashBy: HashBy;
      rolloutId: string | null;
      actor: string;
      approvedBy: string | null;
      auditTenant: string;
      correlationId: string;
    },
  ): Promise<Change> {
    const store = createConfigStore(q);
    await store.lockTarget(bundle);
    const latest = await store.latestChange(bundle);
    // Widening the same bundle's rollout keeps what the others had; a new bundle replaces the one in force.
    const previousBundleId = latest
      ? latest.bundleId === bundle.id
        ? latest.previousBundleId
        : latest.bundleId
      : null;
    const { signature, keyId } = this.signer.sign({
      bundle_id: bundle.id,
      sha256: bundle.sha256,
      layer: bundle.layer,
      scope: bundle.scope,
      namespace: bundle.namespace,
      version: bundle.version,
      percentage: c.percentage,
      hash_by: c.hashBy,
      kind: c.kind,
      actor: c.actor,
      approved_by: c.approvedBy,
    });
    const change = await store.insertChange({
      tenantId: bundle.tenantId,
      layer: bundle.layer,
      scope: bundle.scope,
      namespace: bundle.namespace,
      bundleId: bundle.id,
      previousBundleId,
      percentage: c.percentage,
      hashBy: c.hashBy,
      kind: c.kind,
      rolloutId: c.rolloutId,
      actor: c.actor,
      approvedBy: c.approvedBy,
      signature,
      keyId,
    });
    await sqlOutboxWriter(q, 'config').append(
      auditEvent(
        { correlationId: c.correlationId },
        {
          tenantId: c.auditTenant,
          type: c.kind === 'promote' ? CONFIG_AUDIT.promoted : CONFIG_AUDIT.rolledBack,
          actor: c.actor,
          data: {
            seq: change.seq,
            bundle_id: bundle.id,
            layer: bundle.layer,
            scope: bundle.scope,
            namespace: bundle.namespace,
            version: bundle.version,
            sha256: bundle.sha256,
            percentage: c.percentage,
            approved_by: c.approvedBy,
            signature,
            key_id: keyId,
          },
        },
      ),
    );
    await sqlInsertNotices(q, [
      pendingNotice(
        'config',
        CONFIG_CHANGED,
        {
          tenant_id: bundle.tenantId,
          layer: bundle.layer,
          scope: bundle.scope,
          namespace: bundle.namespace,
          bundle_id: bundle.id,
          version: bundle.version,
          sha256: bundle.sha256,
          seq: change.seq,
          percentage: c.percentage,
          kind: c.kind,
          at: change.at.toISOString(),
        },
        {
          tenantId: bundle.tenantId ?? c.auditTenant,
          subject: `${bundle.layer}/${bundle.scope}/${bundle.namespace}`,
          correlationId: c.correlationId,
        },
      ),
    ]);
    return change;
  }
}
