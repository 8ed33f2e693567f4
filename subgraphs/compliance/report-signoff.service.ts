// A report's sign-off through the workflow service's approval step (issue 28 item 4): submitting
// a report starts the reserved `compliance-report-sign-off` pack (platform/contracts/compliance.sign-off.ts:
// its approval step has `reviewer_role: reviewer`) with the submitter's own token, so the
// workflow's four-eyes rule (the requester never decides their own request: 403) knows who asked
// and its role rule refuses a tenant user who is neither reviewer nor admin.
// The reviewer decides in the workflow (its REST /approve, GraphQL, the console's approvals page,
// or this service's sign-off door, which forwards the decision with the reviewer's token).
// Compliance learns the decision from `approval.decided` on the backbone (a durable consumer,
// report-signoff.consumer.ts, matched by the workflow id stored on the report; the decision itself
// is read back from the workflow's status) and then marks the report signed off and appends
// `compliance_report` to the ledger; the sign-off door applies the decision it forwarded at once too. Both land on `applyDecision`, which is idempotent: a
// conditional status change picks one winner, the ledger append has the report's idempotency key.
//
// The compliance-local rule stays as a second check: whoever the decision names, a report is never
// signed off by the person who generated it.
import type { Caller } from '../../platform/auth/caller';
import { COMPLIANCE_SIGN_OFF_PACK_ID } from '../../platform/contracts/compliance.sign-off';
import type { WorkflowClient } from '../../platform/clients/workflow.client';
import { ServiceCallError, type ServiceCallContext } from '../../platform/clients/service-request';
import type { SqlExecutor } from '../../platform/db/sql';
import {
  ConflictError,
  ForbiddenError,
  InputError,
  NotFoundError,
  UnavailableError,
} from '../../platform/errors/domain-errors';
import type { Logger } from '../../platform/logging/logger';
import { mayDecide } from '../rulepack-registry/rulepack-registry.policy';
import { assertMayWrite } from './compliance.policy';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { ledgerFailure, type ReportLedger } from './report-ledger';
import type { ReportStore } from './report.store';
import { REPORT_LIMITS, type ComplianceReport } from './report.types';

/** A caller of the sign-off doors with the bearer token the workflow call forwards. */
export interface SignOffCaller extends Caller {
  token?: string;
}

/** What the sign-off needs of the workflow service. */
export type SignOffWorkflow = Pick<WorkflowClient, 'execute' | 'decide' | 'status'>;

/** A reviewer's decision as the workflow recorded it. */
export interface WorkflowDecision {
  tenantId: string;
  workflowId: string;
  decision: 'approve' | 'reject';
  reviewer: string;
  notes: string | null;
  correlationId?: string;
}

export const SIGN_OFF_WORKFLOW_TYPE = 'compliance';

/** How long the sign-off door waits for another delivery's ledger append (at most ~10 s). */
const SIGNING_WAIT = { attempts: 100, everyMs: 100 };

/** Another delivery of the decision is appending the report to the ledger: look again later. */
class SigningInProgress extends ConflictError {
  constructor(reportId: string) {
    super(`Report ${reportId} is being signed off`);
  }
}

const context = (caller: SignOffCaller, tenantId: string): ServiceCallContext => ({
  token: caller.token,
  tenantId,
  correlationId: caller.correlationId,
});

export class ReportSignOffService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly store: ReportStore,
    private readonly ledger: ReportLedger,
    private readonly workflow: SignOffWorkflow,
    private readonly access: TenantAccess,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  /**
   * `generated` -> `pending_review`, and the sign-off workflow started with the submitter's token.
   * If the workflow cannot be started, the report goes back to `generated` (503 or the workflow's
   * own refusal): never pending a review nobody can give.
   */
  async submit(caller: SignOffCaller, id: string, requestedTenant?: string): Promise<ComplianceReport> {
    assertMayWrite(caller);
    if (!caller.auth) throw new ForbiddenError('Submitting a report for sign-off needs a person: present a token');
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenant_id'], 'compliance.report.submit');
    const report = await this.reportIn(tenantId, id);
    if (report.status === 'pending_review' && report.workflowId) return report;
    if (
      !(await this.store.transition(this.sql, tenantId, id, 'generated', 'pending_review', {
        submittedBy: caller.auth.username,
      }))
    )
      throw new ConflictError(`Report ${id} is ${report.status}; only a generated report is submitted for review`);
    try {
      const started = await this.workflow.execute(context(caller, tenantId), {
        workflow_pack_id: COMPLIANCE_SIGN_OFF_PACK_ID,
        workflow_type: SIGN_OFF_WORKFLOW_TYPE,
        payload: {
          action: 'compliance_report_sign_off',
          report_id: report.id,
          framework: report.framework,
          report_type: report.reportType,
          period: report.period.label,
          result: report.result,
          content_sha256: report.contentSha256,
          generated_by: report.generatedBy,
        },
        metadata: { source: 'compliance', report_id: report.id },
      });
      await this.store.attachWorkflow(this.sql, tenantId, id, started.workflow_id, started.approval_task_id);
    } catch (err) {
      await this.store.transition(this.sql, tenantId, id, 'pending_review', 'generated');
      throw workflowFailure(err, 'The sign-off workflow could not be started; the report is still generated');
    }
    return (await this.store.report(this.sql, tenantId, id))!;
  }

  /**
   * The reviewer's decision given at this service's door: checked here first (the generator never
   * decides; the tenant's admin or reviewer role), forwarded to the workflow's approval task with
   * the reviewer's token (where the workflow's own rules apply again), then applied.
   */
  async signOff(
    caller: SignOffCaller,
    input: { id: string; decision: 'approve' | 'reject'; notes?: string; tenantId?: string },
  ): Promise<ComplianceReport> {
    assertMayWrite(caller);
    const auth = caller.auth;
    if (!auth) throw new ForbiddenError('Signing off a report needs a person: present a token');
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenant_id'], 'compliance.report.sign_off');
    if (input.notes !== undefined && input.notes.length > REPORT_LIMITS.notesLength)
      throw InputError.of(
        ['notes'],
        `String should have at most ${REPORT_LIMITS.notesLength} characters`,
        'string_too_long',
      );
    const report = await this.reportIn(tenantId, input.id);
    const verdict = mayDecide(auth, { ownerTenant: report.tenantId, author: report.generatedBy ?? '' });
    if (verdict === 'author') throw new ForbiddenError('The person who generated a report cannot sign it off');
    if (verdict === 'role') throw new ForbiddenError("Signing off needs the tenant's admin or reviewer role");
    if (report.status !== 'pending_review' || !report.workflowId || !report.approvalTaskId)
      throw new ConflictError(`Report ${report.id} is ${report.status}; only a report pending review is decided`);
    let decided: WorkflowDecision;
    try {
      const answer = await this.workflow.decide(context(caller, tenantId), report.approvalTaskId, auth.username, {
        decision: input.decision,
        notes: input.notes ?? null,
      });
      decided = {
        tenantId,
        workflowId: answer.workflow_id,
        decision: input.decision,
        reviewer: answer.reviewer,
        notes: answer.notes,
        correlationId: caller.correlationId,
      };
    } catch (err) {
      // Decided before (in the workflow, or by a sign-off whose ledger append failed): apply what
      // the workflow recorded, so a retry finishes the sign-off instead of answering 409 forever.
      if (!(err instanceof ServiceCallError && err.status === 409)) throw workflowFailure(err, 'The workflow refused');
      const recorded = await this.recordedDecision(context(caller, tenantId), tenantId, report);
      if (!recorded) throw new ConflictError(`The approval task of report ${report.id} was already decided`);
      decided = recorded;
    }
    // The consumer may be applying the same decision from the backbone right now (`signing`):
    // its outcome is this request's answer, so wait for it (bounded) rather than answer 409.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.applyDecision(decided);
        break;
      } catch (err) {
        if (!(err instanceof SigningInProgress) || attempt >= SIGNING_WAIT.attempts) throw err;
        await new Promise((resolve) => setTimeout(resolve, SIGNING_WAIT.everyMs));
      }
    }
    return (await this.store.report(this.sql, tenantId, report.id))!;
  }

  /**
   * The workflow's decision applied to the report it belongs to (no report: not ours, ignored).
   * Idempotent: a report no longer pending review is left as it is. A report in `signing` (another
   * delivery is appending) throws, so the consumer's redelivery looks again once it settled.
   */
  async applyDecision(d: WorkflowDecision): Promise<ComplianceReport | null> {
    const report = await this.store.reportByWorkflow(this.sql, d.tenantId, d.workflowId);
    if (!report) return null;
    if (report.status === 'signing') throw new SigningInProgress(report.id);
    if (report.status !== 'pending_review') return report;
    if (report.generatedBy !== null && d.reviewer === report.generatedBy) {
      // Only a service account can name someone else as the reviewer in the workflow; the
      // report's own rule still holds: it stays pending review.
      this.logger.warn(
        { report_id: report.id, workflow_id: d.workflowId },
        'a sign-off decision by the report generator was ignored',
      );
      return report;
    }
    const who = { reviewedBy: d.reviewer, reviewNotes: d.notes };
    if (d.decision === 'reject') {
      await this.store.transition(this.sql, d.tenantId, report.id, 'pending_review', 'rejected', who);
      return this.store.report(this.sql, d.tenantId, report.id);
    }
    if (!(await this.store.transition(this.sql, d.tenantId, report.id, 'pending_review', 'signing', who))) {
      // Another delivery (the consumer, or the route) took it between the read and the transition:
      // while it appends, say so, so the route waits for its outcome instead of answering `signing`.
      const now = await this.store.report(this.sql, d.tenantId, report.id);
      if (now?.status === 'signing') throw new SigningInProgress(report.id);
      return now;
    }
    let entry: { entryId: string; chainHash: string };
    try {
      entry = await this.ledger.record(d.tenantId, {
        reportId: report.id,
        reportType: report.reportType,
        period: report.period.label,
        result: report.result ?? 'fail',
        framework: report.framework,
        contentSha256: report.contentSha256 ?? '',
        checkpointTreeSize: report.checkpoint?.tree_size ?? null,
        generatedBy: report.generatedBy,
        signedOffBy: d.reviewer,
        correlationId: d.correlationId,
      });
    } catch (err) {
      await this.store.transition(this.sql, d.tenantId, report.id, 'signing', 'pending_review', { clearReview: true });
      throw ledgerFailure(err, 'The ledger did not record the sign-off; the report is still pending review');
    }
    await this.store.transition(this.sql, d.tenantId, report.id, 'signing', 'signed_off', {
      ledgerEntryId: entry.entryId,
      ledgerChainHash: entry.chainHash,
    });
    return this.store.report(this.sql, d.tenantId, report.id);
  }

  /**
   * A transition of a workflow was announced on the backbone: if it is a report's sign-off, the
   * decision the workflow RECORDED is applied (read back from its status with this service's
   * identity for the tenant, so an event in a tenant's stream is only a wake-up, never the
   * authority: a forged `approval.decided` decides nothing).
   */
  async settleFromWorkflow(tenantId: string, workflowId: string): Promise<ComplianceReport | null> {
    const report = await this.store.reportByWorkflow(this.sql, tenantId, workflowId);
    if (!report) return null;
    if (report.status === 'signing') throw new SigningInProgress(report.id);
    if (report.status !== 'pending_review') return report;
    let recorded: WorkflowDecision | null;
    try {
      recorded = await this.recordedDecision({ tenantId }, tenantId, report);
    } catch (err) {
      throw workflowFailure(err, 'The workflow did not answer the sign-off status');
    }
    return recorded ? this.applyDecision(recorded) : report;
  }

  private async recordedDecision(
    ctx: ServiceCallContext,
    tenantId: string,
    report: ComplianceReport,
  ): Promise<WorkflowDecision | null> {
    const status = await this.workflow.status(ctx, report.workflowId!);
    const task = status.approval_tasks.find((t) => t.approval_task_id === report.approvalTaskId);
    const decision = task?.status === 'approved' ? 'approve' : task?.status === 'rejected' ? 'reject' : null;
    if (!task || !decision || !task.reviewer) return null;
    return {
      tenantId,
      workflowId: report.workflowId!,
      decision,
      reviewer: task.reviewer,
      notes: task.notes,
      correlationId: ctx.correlationId,
    };
  }

  private async reportIn(tenantId: string, id: string): Promise<ComplianceReport> {
    const report = await this.store.report(this.sql, tenantId, id);
    if (!report) throw new NotFoundError(`Report ${id} not found`);
    return report;
  }
}

/** The workflow's refusals pass through as ours (403 the requester deciding, 404, 409); an outage is 503. */
function workflowFailure(err: unknown, message: string): Error {
  if (!(err instanceof ServiceCallError)) return err as Error;
  const detail = (err.body as { detail?: unknown } | undefined)?.detail;
  const said = typeof detail === 'string' ? detail : undefined;
  if (err.status === 403) return new ForbiddenError(said ?? 'The workflow refused the decision');
  if (err.status === 404) return new NotFoundError(said ?? 'The approval task was not found');
  if (err.status === 409) return new ConflictError(said ?? 'The approval task was already decided');
  return new UnavailableError(`${message}; try again shortly`);
}
