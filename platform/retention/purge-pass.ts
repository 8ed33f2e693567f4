// One retention pass of an owning service over one record type: for each tenant with a policy,
// the records created before now − retain days are deleted in batches, each batch in one
// transaction with its audit event (`retention.purged`: counts and the cutoff, never the data),
// so a purge that stops half-way has audited exactly what it deleted. An active legal hold on the
// whole type (or on everything) skips the tenant; holds naming subjects are passed to the purge
// function, which keeps those subjects' records.
import { randomUUID } from 'node:crypto';
import type { SqlExecutor, SqlQuery } from '../db/sql';
import { auditEvent, sqlOutboxWriter } from '../outbox/outbox.writer';
import { activeHoldsOf, policiesOfType } from './retention.store';
import { holdCovers, type LegalHold, type RecordType, type RetentionPolicy } from './retention.types';

/** The ledger event type of a purge batch. */
export const RETENTION_PURGED_EVENT = 'retention.purged';

const DAY_MS = 86_400_000;

export interface PurgeTarget {
  recordType: RecordType;
  /** The owning service (the outbox producer of its audit events). */
  service: string;
  /**
   * Deletes (or scrubs) at most `limit` of the tenant's records of this type created before
   * `cutoff`, except those of `heldSubjects`; how many. Runs in the pass's transaction.
   */
  purge(q: SqlQuery, tenantId: string, cutoff: Date, heldSubjects: readonly string[], limit: number): Promise<number>;
}

export interface PurgeOutcome {
  tenantId: string;
  recordType: RecordType;
  cutoff: Date;
  purged: number;
  /** True when a hold on the whole type stopped the purge. */
  held: boolean;
}

export interface PurgeOptions {
  now?: Date;
  batchSize?: number;
  /** Only these tenants (tests, an operator's run). */
  tenantIds?: readonly string[];
}

export function cutoffOf(policy: Pick<RetentionPolicy, 'retainDays'>, now: Date): Date {
  return new Date(now.getTime() - policy.retainDays * DAY_MS);
}

/** The purge of one tenant's records under its policy and active holds. */
export async function purgeTenant(
  sql: SqlExecutor,
  target: PurgeTarget,
  policy: RetentionPolicy,
  holds: readonly LegalHold[],
  now: Date,
  batchSize = 500,
): Promise<PurgeOutcome> {
  const cutoff = cutoffOf(policy, now);
  const covering = holds.filter((h) => h.tenantId === policy.tenantId && holdCovers(h, target.recordType));
  const outcome = { tenantId: policy.tenantId, recordType: target.recordType, cutoff, purged: 0, held: false };
  if (covering.some((h) => h.subjectRef === null)) return { ...outcome, held: true };
  const heldSubjects = covering.flatMap((h) => (h.subjectId === null ? [] : [h.subjectId]));
  const correlationId = `retention:${randomUUID()}`;
  for (;;) {
    const n = await sql.transaction(async (tx) => {
      const purged = await target.purge(tx, policy.tenantId, cutoff, heldSubjects, batchSize);
      if (purged > 0) {
        await sqlOutboxWriter(tx, target.service).append(
          auditEvent(
            { correlationId },
            {
              tenantId: policy.tenantId,
              type: RETENTION_PURGED_EVENT,
              actor: null,
              data: {
                record_type: target.recordType,
                retain_days: policy.retainDays,
                cutoff: cutoff.toISOString(),
                purged,
                held_subjects: heldSubjects.length,
              },
              description: `Retention purged ${purged} ${target.recordType} record(s)`,
            },
          ),
        );
      }
      return purged;
    });
    outcome.purged += n;
    if (n < batchSize) return outcome;
  }
}

/** Every tenant's purge for one target (the sweep of an owning service). */
export async function runPurgePass(
  sql: SqlExecutor,
  target: PurgeTarget,
  options: PurgeOptions = {},
): Promise<PurgeOutcome[]> {
  const now = options.now ?? new Date();
  const policies = (await policiesOfType(sql, target.recordType)).filter(
    (p) => !options.tenantIds || options.tenantIds.includes(p.tenantId),
  );
  const holds = await activeHoldsOf(
    sql,
    policies.map((p) => p.tenantId),
  );
  const outcomes: PurgeOutcome[] = [];
  for (const policy of policies) outcomes.push(await purgeTenant(sql, target, policy, holds, now, options.batchSize));
  return outcomes;
}
