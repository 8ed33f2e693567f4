// The record of every broker call: a row in ai_usage (budgets and the usage query read it) and,
// committed with it, an `ai_inference` event in the tenant's ledger through the outbox; an
// `ai_redaction` event too when anything was redacted. Events carry model, tokens, cost, latency,
// attempts and counts per category: never a prompt, an answer or a redacted value.
//
// Group commit (docs/ai-broker.md, "Decisions"): calls whose records arrive while one write is in
// flight are written together, usage rows and outbox rows in ONE statement (a data-modifying CTE:
// atomic without BEGIN/COMMIT round trips), and each call's `record` resolves only once its own
// rows are committed, so an answer never goes out before its audit row exists. A lone record is
// written at once: nothing waits for a batch to fill.
import type { Caller } from '../../platform/auth/caller';
import { groupCommit } from '../../platform/db/group-commit';
import type { SqlQuery } from '../../platform/db/sql';
import { auditEvent, outboxInsert, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { RedactionCounts } from './ai-broker.types';
import type { Attempt } from './model-router';
import { usageRow, type UsageRecord } from './usage.store';
import { aiBrokerUsage } from '../../platform/telemetry/domain-metrics';

export const AI_INFERENCE_EVENT = 'ai_inference';
export const AI_REDACTION_EVENT = 'ai_redaction';
const SERVICE = 'ai-broker';

export interface UsageEvent extends Omit<UsageRecord, 'tenantId' | 'userId' | 'correlationId'> {
  attempts: Attempt[];
  redactions: { input: RedactionCounts; output: RedactionCounts };
  redactionMode: string;
  ragChunksUsed: number;
  ragUnavailable: boolean;
  templateId: string | null;
  templateVersion: number | null;
  detokenized: number;
}

export interface UsageAudit {
  /** Resolves once the call's usage row and ledger events are committed. */
  record(caller: Caller, tenantId: string, event: UsageEvent): Promise<void>;
}

const total = (c: RedactionCounts) => Object.values(c).reduce((a, b) => a + b, 0);

/** The outbox events of one call. */
export function usageEvents(caller: Caller, tenantId: string, e: UsageEvent): AuditEventInput[] {
  const actor = caller.auth?.username ?? null;
  const events: AuditEventInput[] = [
    auditEvent(caller, {
      tenantId,
      type: AI_INFERENCE_EVENT,
      actor,
      data: {
        operation: e.operation,
        status: e.status,
        model: e.model,
        provider: e.provider,
        prompt_tokens: e.promptTokens,
        completion_tokens: e.completionTokens,
        tokens_used: e.promptTokens + e.completionTokens,
        cost: e.cost,
        latency_ms: Math.round(e.latencyMs * 100) / 100,
        attempts: e.attempts,
        rag_chunks_used: e.ragChunksUsed,
        rag_unavailable: e.ragUnavailable,
        template_id: e.templateId,
        template_version: e.templateVersion,
        redaction_mode: e.redactionMode,
        redactions: e.redactions,
        detokenized: e.detokenized,
      },
      description: `AI ${e.operation} ${e.status}${e.model ? ` on ${e.model}` : ''}`,
    }),
  ];
  if (total(e.redactions.input) + total(e.redactions.output) > 0) {
    events.push(
      auditEvent(caller, {
        tenantId,
        type: AI_REDACTION_EVENT,
        actor,
        data: { operation: e.operation, mode: e.redactionMode, input: e.redactions.input, output: e.redactions.output },
        description: `PII redacted in an AI ${e.operation}`,
      }),
    );
  }
  return events;
}

interface Pending {
  usage: ReturnType<typeof usageRow>;
  events: AuditEventInput[];
}

// One statement: the CTE's insert runs to completion whether or not the outer query reads it, and
// a single statement commits or rolls back as a whole (autocommit), on PGlite and PostgreSQL. The
// outbox half is the shared writer's (platform/outbox/outbox.writer.ts, `outboxInsert`). The usage
// rows travel like the outbox's, as one JSON parameter (one native `JSON.stringify`, not thirteen
// arrays whose every element node-postgres escapes), and the text never changes, so PostgreSQL
// parses and plans it once per pooled connection (`prepareAs`) instead of once per group.
const INSERT_USAGE = `
WITH usage AS (
  INSERT INTO ai_usage (id, tenant_id, user_id, correlation_id, operation, model, provider,
                        prompt_tokens, completion_tokens, total_tokens, cost, latency_ms, status)
  SELECT u.id, u.tenant_id, u.user_id, u.correlation_id, u.operation, u.model, u.provider,
         u.prompt_tokens, u.completion_tokens, u.total_tokens, u.cost, u.latency_ms, u.status
    FROM json_to_recordset($1::json)
      AS u(id uuid, tenant_id text, user_id text, correlation_id text, operation text, model text, provider text,
           prompt_tokens int4, completion_tokens int4, total_tokens int4, cost numeric, latency_ms int4, status text)
  RETURNING 1
)
`;
const USAGE_PARAMS = 1;
const STATEMENT = 'ai_broker_usage_audit';

async function writeBatch(sql: SqlQuery, batch: readonly Pending[]): Promise<void> {
  const outbox = outboxInsert(
    SERVICE,
    batch.flatMap((b) => b.events),
    USAGE_PARAMS + 1,
  );
  const usage = JSON.stringify(
    batch.map(({ usage: r }) => ({
      id: r.id,
      tenant_id: r.tenantId,
      user_id: r.userId,
      correlation_id: r.correlationId,
      operation: r.operation,
      model: r.model,
      provider: r.provider,
      prompt_tokens: r.promptTokens,
      completion_tokens: r.completionTokens,
      total_tokens: r.totalTokens,
      cost: r.cost,
      latency_ms: r.latencyMs,
      status: r.status,
    })),
  );
  await sql.query(INSERT_USAGE + outbox.text, [usage, ...outbox.params], { prepareAs: STATEMENT });
}

/** `maxInFlight`: groups written at once (pooled PostgreSQL connections; 1 on PGlite). */
export function groupedUsageAudit(
  sql: SqlQuery,
  options: { maxBatch?: number; maxInFlight?: number } = {},
): UsageAudit {
  const write = groupCommit<Pending>((batch) => writeBatch(sql, batch), {
    maxBatch: options.maxBatch ?? 200,
    maxInFlight: options.maxInFlight ?? 1,
  });
  return {
    record(caller, tenantId, e) {
      aiBrokerUsage(e); // tokens, cost, failovers on /metrics
      const usage = usageRow({
        tenantId,
        userId: caller.auth?.username ?? null,
        correlationId: caller.correlationId,
        ...e,
      });
      return write({ usage, events: usageEvents(caller, tenantId, e) });
    },
  };
}
