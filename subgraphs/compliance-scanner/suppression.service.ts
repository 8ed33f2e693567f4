// Suppressions live on the server. Each has a scope (a fingerprint, a rule plus a path glob, or a
// package URL), an owner, a justification and an expiry, all mandatory. A request starts a
// compliance workflow (WorkflowClient, with the requester's own token so the workflow's four-eyes
// rule knows who asked); the suppression is approved when that workflow's approval task is
// approved by someone else, and only then does it cover findings. An expired suppression's
// findings reopen, each with a `scanner.finding` notice. Every step is audited through the outbox.
import { randomUUID } from 'node:crypto';
import picomatch from 'picomatch';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ServiceCallError } from '../../platform/clients/service-request';
import type { WorkflowClient, WorkflowStatusView } from '../../platform/clients/workflow.client';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { ConflictError, InputError, NotFoundError, UnavailableError } from '../../platform/errors/domain-errors';
import { auditEvent, sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import { unstorableText } from '../../platform/text';
import type { ScannerRule } from '../../platform/contracts/scanner-pack.schema';
import type { ScannerConfig } from './compliance-scanner.config';
import { coveringSuppression, purlOf } from './finding-lifecycle';
import { findingNotice, writeFindingNotices } from './finding-notices';
import { findingStore } from './finding.store';
import { SERVICE } from './pack.service';
import { scannerPackStore } from './pack.store';
import {
  SCANNER_SUPPRESSION_DECIDED_EVENT,
  SCANNER_SUPPRESSION_EXPIRED_EVENT,
  SCANNER_SUPPRESSION_REQUESTED_EVENT,
} from './compliance-scanner.audit';
import { assertMayRead, assertMayWrite } from './scanner.policy';
import {
  LIMITS,
  type Finding,
  type Suppression,
  type SuppressionScope,
  type SuppressionStatus,
  type TargetKind,
} from './scanner.types';
import { suppressionStore } from './suppression.store';
import { targetStore } from './target.store';

export interface RequestSuppressionInput {
  scope: SuppressionScope;
  fingerprint?: string | null;
  ruleId?: string | null;
  pathGlob?: string | null;
  purl?: string | null;
  owner: string;
  justification: string;
  expiresAt: string;
  tenantId?: string;
}

/** The requester's bearer token, forwarded to the workflow service (the REST and GraphQL doors read it). */
export interface Forward {
  token?: string;
}

const PURL = /^pkg:[a-z0-9.+-]+\/[^\s]{1,400}$/;

export class SuppressionService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly access: TenantAccess,
    private readonly workflow: Pick<WorkflowClient, 'execute' | 'status'>,
    private readonly config: Pick<ScannerConfig, 'suppressionMaxDays' | 'requireAuth'>,
    private readonly onCommitted: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async request(caller: Caller, input: RequestSuppressionInput, forward: Forward = {}): Promise<Suppression> {
    const auth = assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.suppression.request');
    const scope = this.checkScope(input);
    const expiresAt = this.checkExpiry(input.expiresAt);
    const justification = input.justification.trim();
    if (justification.length < 10)
      throw InputError.of(['justification'], 'Say why in at least 10 characters', 'string_too_short');
    if (unstorableText(justification) || unstorableText(input.owner))
      throw InputError.of(['justification'], 'String should not contain NUL characters or unpaired surrogates');
    const suppression: Omit<Suppression, 'tenantId' | 'createdAt' | 'decidedAt'> = {
      id: randomUUID(),
      ...scope,
      owner: input.owner,
      justification,
      expiresAt,
      status: 'pending',
      requestedBy: auth.username,
      approver: null,
      workflowId: null,
    };
    await this.sql.transaction(async (tx) => {
      await suppressionStore.insert(tx, tenantId, suppression);
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(caller, {
          tenantId,
          type: SCANNER_SUPPRESSION_REQUESTED_EVENT,
          actor: auth.username,
          data: {
            suppression_id: suppression.id,
            ...scopeData(suppression),
            owner: input.owner,
            expires_at: expiresAt.toISOString(),
          },
        }),
      );
    });
    let started;
    try {
      started = await this.workflow.execute(
        { token: forward.token, tenantId, correlationId: caller.correlationId },
        {
          workflow_type: 'compliance',
          payload: {
            kind: 'scanner_suppression',
            suppression_id: suppression.id,
            ...scopeData(suppression),
            owner: suppression.owner,
            justification: suppression.justification,
            expires_at: expiresAt.toISOString(),
          },
          metadata: { service: SERVICE, suppression_id: suppression.id },
        },
      );
    } catch (err) {
      // The request stays pending without a workflow; asking again is a new request.
      await suppressionStore.decide(this.sql, tenantId, suppression.id, { status: 'rejected', approver: null });
      if (err instanceof ServiceCallError && !err.retryable)
        throw new ConflictError(`The workflow service refused the approval request: ${err.message}`);
      throw new UnavailableError('The workflow service is unavailable: the suppression could not be sent for approval');
    }
    await suppressionStore.setWorkflow(this.sql, tenantId, suppression.id, started.workflow_id);
    return (await suppressionStore.get(this.sql, tenantId, suppression.id))!;
  }

  /** Reads the approval's outcome from the workflow service and applies it (also run by the sweep). */
  async refresh(caller: Caller, input: { id: string; tenantId?: string }): Promise<Suppression> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.suppression.refresh');
    const s = await suppressionStore.get(this.sql, tenantId, input.id);
    if (!s) throw new NotFoundError(`Suppression ${input.id} not found`);
    if (s.status !== 'pending' || !s.workflowId) return s;
    let status: WorkflowStatusView;
    try {
      status = await this.workflow.status({ tenantId, correlationId: caller.correlationId }, s.workflowId);
    } catch {
      throw new UnavailableError('The workflow service is unavailable: the approval could not be read');
    }
    await this.applyDecision(caller.correlationId, tenantId, s, status);
    return (await suppressionStore.get(this.sql, tenantId, s.id))!;
  }

  private async applyDecision(correlationId: string, tenantId: string, s: Suppression, status: WorkflowStatusView) {
    const decided = status.approval_tasks.find((t) => t.status === 'approved' || t.status === 'rejected');
    if (!decided || !decided.reviewer) return;
    // The workflow refuses the requester as reviewer; checked again here, since this is the rule.
    const approved = decided.status === 'approved' && decided.reviewer !== s.requestedBy;
    const at = this.now();
    await this.sql.transaction(async (tx) => {
      const current = await suppressionStore.get(tx, tenantId, s.id, true);
      if (current?.status !== 'pending') return;
      const outcome: SuppressionStatus = approved ? (s.expiresAt <= at ? 'expired' : 'approved') : 'rejected';
      await suppressionStore.decide(tx, tenantId, s.id, { status: outcome, approver: decided.reviewer });
      await sqlOutboxWriter(tx, SERVICE).append(
        auditEvent(
          { correlationId },
          {
            tenantId,
            type: SCANNER_SUPPRESSION_DECIDED_EVENT,
            actor: decided.reviewer,
            data: { suppression_id: s.id, status: outcome, workflow_id: s.workflowId, requested_by: s.requestedBy },
          },
        ),
      );
      if (outcome === 'approved')
        await this.suppressOpenFindings(tx, tenantId, { ...s, status: 'approved' }, at, correlationId);
    });
    this.onCommitted();
  }

  /** The open findings an approved suppression covers become suppressed now, not at the next scan. */
  private async suppressOpenFindings(tx: SqlQuery, tenantId: string, s: Suppression, at: Date, correlationId: string) {
    const open = await findingStore.openOf(tx, tenantId);
    const rules = new Map<string, Map<string, ScannerRule>>();
    const moved: Finding[] = [];
    for (const f of open) {
      const key = `${f.packId}@${f.packVersion}`;
      if (!rules.has(key)) {
        const pack = await scannerPackStore.get(tx, tenantId, f.packId, f.packVersion);
        rules.set(key, new Map((pack?.pack.rules ?? []).map((r) => [r.id, r])));
      }
      const rule = rules.get(key)!.get(f.ruleId);
      if (rule && coveringSuppression([s], f, purlOf(rule, f)))
        moved.push({ ...f, status: 'suppressed', suppressionId: s.id });
    }
    await this.moveFindings(tx, tenantId, moved, at, correlationId);
  }

  private async moveFindings(tx: SqlQuery, tenantId: string, moved: Finding[], at: Date, correlationId: string) {
    if (moved.length === 0) return;
    await findingStore.update(tx, tenantId, moved);
    const kinds = new Map<string, TargetKind>();
    for (const f of moved)
      if (!kinds.has(f.targetId))
        kinds.set(f.targetId, (await targetStore.get(tx, tenantId, f.targetId))?.kind ?? 'repository');
    await writeFindingNotices(
      tx,
      SERVICE,
      moved.map((f) => findingNotice(f, f.lastScanId, kinds.get(f.targetId)!, at)),
      correlationId,
    );
  }

  /**
   * Expires every approved suppression whose date has passed and reopens its findings, and
   * reads the outcome of pending approvals; returns how many expired. Run by the service's sweep
   * and before each request that lists suppressions, so a report never shows an expired one in force.
   */
  async sweep(pendingLookup = true): Promise<number> {
    const at = this.now();
    const due = await suppressionStore.due(this.sql, at, 500);
    for (const { tenantId, id } of due) {
      const correlationId = randomUUID();
      await this.sql.transaction(async (tx) => {
        const s = await suppressionStore.get(tx, tenantId, id, true);
        if (s?.status !== 'approved' || s.expiresAt > at) return;
        await suppressionStore.decide(tx, tenantId, id, { status: 'expired', approver: null });
        const held = await findingStore.bySuppression(tx, tenantId, id);
        const reopened = held
          .filter((f) => f.status === 'suppressed')
          .map((f): Finding => ({ ...f, status: 'reopened', suppressionId: null }));
        await this.moveFindings(tx, tenantId, reopened, at, correlationId);
        await sqlOutboxWriter(tx, SERVICE).append(
          auditEvent(
            { correlationId },
            {
              tenantId,
              type: SCANNER_SUPPRESSION_EXPIRED_EVENT,
              actor: null,
              data: { suppression_id: id, expired_at: s.expiresAt.toISOString(), reopened: reopened.length },
            },
          ),
        );
      });
    }
    if (due.length > 0) this.onCommitted();
    if (pendingLookup) await this.refreshPending();
    return due.length;
  }

  private async refreshPending(): Promise<void> {
    const { rows } = await this.sql.query<{ tenant_id: string; id: string }>(
      `SELECT tenant_id, id FROM scanner_suppressions WHERE status = 'pending' AND workflow_id IS NOT NULL ORDER BY created_at LIMIT 100`,
    );
    for (const r of rows) {
      const s = await suppressionStore.get(this.sql, r.tenant_id, r.id);
      if (!s?.workflowId) continue;
      try {
        const status = await this.workflow.status({ tenantId: r.tenant_id }, s.workflowId);
        await this.applyDecision(randomUUID(), r.tenant_id, s, status);
      } catch {
        // The workflow service is away: the next sweep asks again.
      }
    }
  }

  async list(
    caller: Caller,
    input: { status?: SuppressionStatus; limit?: number; tenantId?: string } = {},
  ): Promise<Suppression[]> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.suppression.list');
    await this.sweep(false);
    const limit = input.limit ?? LIMITS.pageSize;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      throw InputError.of(['limit'], 'Input should be between 1 and 1000');
    return suppressionStore.list(this.sql, tenantId, input.status ?? null, limit);
  }

  async get(caller: Caller, input: { id: string; tenantId?: string }): Promise<Suppression> {
    assertMayRead(caller, this.config.requireAuth);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'scanner.suppression.read');
    const s = await suppressionStore.get(this.sql, tenantId, input.id);
    if (!s) throw new NotFoundError(`Suppression ${input.id} not found`);
    return s;
  }

  private checkScope(
    input: RequestSuppressionInput,
  ): Pick<Suppression, 'scope' | 'fingerprint' | 'ruleId' | 'pathGlob' | 'purl'> {
    const none = { fingerprint: null, ruleId: null, pathGlob: null, purl: null };
    if (input.scope === 'fingerprint') {
      if (!input.fingerprint || !/^[0-9a-f]{64}$/.test(input.fingerprint))
        throw InputError.of(['fingerprint'], "A fingerprint scope needs the finding's fingerprint (64 hex characters)");
      return { ...none, scope: 'fingerprint', fingerprint: input.fingerprint };
    }
    if (input.scope === 'rule_path') {
      if (!input.ruleId) throw InputError.of(['ruleId'], 'A rule_path scope needs rule_id', 'missing');
      if (!input.pathGlob) throw InputError.of(['pathGlob'], 'A rule_path scope needs path_glob', 'missing');
      try {
        picomatch.makeRe(input.pathGlob);
      } catch {
        throw InputError.of(['pathGlob'], 'Not a valid glob');
      }
      return { ...none, scope: 'rule_path', ruleId: input.ruleId, pathGlob: input.pathGlob };
    }
    if (input.scope === 'purl') {
      if (!input.purl || !PURL.test(input.purl))
        throw InputError.of(['purl'], 'A purl scope needs a package URL (pkg:type/name)');
      return { ...none, scope: 'purl', purl: input.purl };
    }
    throw InputError.of(['scope'], "Input should be 'fingerprint', 'rule_path' or 'purl'", 'enum');
  }

  private checkExpiry(value: string): Date {
    const at = new Date(value);
    if (!value || Number.isNaN(at.getTime()))
      throw InputError.of(['expiresAt'], 'An expiry (ISO 8601) is required', 'missing');
    const now = this.now();
    if (at <= now) throw InputError.of(['expiresAt'], 'The expiry must lie in the future');
    if (at.getTime() - now.getTime() > this.config.suppressionMaxDays * 86_400_000)
      throw InputError.of(['expiresAt'], `The expiry may lie at most ${this.config.suppressionMaxDays} days ahead`);
    return at;
  }
}

function scopeData(s: Pick<Suppression, 'scope' | 'fingerprint' | 'ruleId' | 'pathGlob' | 'purl'>) {
  return { scope: s.scope, fingerprint: s.fingerprint, rule_id: s.ruleId, path_glob: s.pathGlob, purl: s.purl };
}
