// The backbone adapter of report sign-offs: a durable consumer (a platform group over every
// tenant's stream) of the workflow's `approval.decided` transitions. A transition of a report's
// sign-off workflow (matched by the workflow id stored on the report) settles the report from the
// decision the workflow recorded (read back from its status: the event is a wake-up, not the
// authority); transitions of other workflows are acked untouched, deferrals change nothing.
// At least once: settling is idempotent (report-signoff.service.ts), and a throw (the ledger or
// the workflow down, another delivery mid-append) nacks the event, which comes back after the backoff.
//
// `approval.decided` and not `workflow.completed` / `workflow.rejected`: it names the reviewer and
// the decision, which the report records, and it is what the decision is; the steps the built-in
// compliance pack runs after its gate are the workflow's own business.
import type { Database } from '../../platform/db/database';
import { contractHandler } from '../../platform/events/backbone/contract-handler';
import { consume, type ConsumeOptions } from '../../platform/events/backbone/durable-consumer';
import { APPROVAL_DECIDED } from '../../platform/contracts/workflow.events';
import type { ReportSignOffService } from './report-signoff.service';

export const SIGN_OFF_GROUP = 'compliance.report_sign_off';

export async function consumeSignOffDecisions(
  db: Pick<Database, 'sql'>,
  signOff: Pick<ReportSignOffService, 'settleFromWorkflow'>,
  options: Pick<ConsumeOptions, 'bus' | 'logger' | 'pollMs' | 'backoffMs'>,
): Promise<() => Promise<void>> {
  const decided = APPROVAL_DECIDED;
  const consumer = await consume(db, {
    ...options,
    subscription: SIGN_OFF_GROUP,
    topic: decided.topic,
    from: 'start',
    handler: contractHandler(decided, async (p, event) => {
      // The stream's tenant is the authority (a payload naming another tenant is ignored).
      if (p.tenant_id !== event.tenantId) return;
      await signOff.settleFromWorkflow(event.tenantId, p.workflow_id);
    }),
  });
  return () => consumer.stop();
}
