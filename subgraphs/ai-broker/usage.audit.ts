// The record of every broker call: a row in ai_usage (budgets and the usage query read it) and,
// in the same transaction, an `ai_inference` event in the tenant's ledger through the outbox; an
// `ai_redaction` event too when anything was redacted. Events carry model, tokens, cost, latency,
// attempts and counts per category: never a prompt, an answer or a redacted value.
import type { Caller } from '../../platform/auth/caller';
import type { PrismaClient } from '../../generated/prisma/client';
import type { Prisma } from '../../generated/prisma/client';
import { auditEvent, type AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { RedactionCounts } from './ai-broker.types';
import type { Attempt } from './model-router';
import { usageRow, type UsageRecord } from './usage.store';

export const AI_INFERENCE_EVENT = 'ai_inference';
export const AI_REDACTION_EVENT = 'ai_redaction';

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
  record(caller: Caller, tenantId: string, event: UsageEvent): Promise<void>;
}

const total = (c: RedactionCounts) => Object.values(c).reduce((a, b) => a + b, 0);

/** The outbox row of an audit event, as outboxWriter writes it, for a batched transaction. */
function outboxRow(event: AuditEventInput) {
  return {
    service: 'ai-broker', tenantId: event.tenantId, eventType: event.eventType, eventData: event.eventData as Prisma.InputJsonObject, userId: event.userId,
    correlationId: event.correlationId, description: event.description ?? null, idempotencyKey: event.idempotencyKey,
  };
}

export function prismaUsageAudit(prisma: PrismaClient): UsageAudit {
  return {
    async record(caller, tenantId, e) {
      const actor = caller.auth?.username ?? null;
      const events: AuditEventInput[] = [auditEvent(caller, {
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
      })];
      if (total(e.redactions.input) + total(e.redactions.output) > 0) {
        events.push(auditEvent(caller, {
          tenantId,
          type: AI_REDACTION_EVENT,
          actor,
          data: { operation: e.operation, mode: e.redactionMode, input: e.redactions.input, output: e.redactions.output },
          description: `PII redacted in an AI ${e.operation}`,
        }));
      }
      // One batched transaction (not an interactive one): the usage row and its events commit
      // together in a single round of statements, which on PGlite is several times faster.
      await prisma.$transaction([
        prisma.aiUsage.create({ data: usageRow({ tenantId, userId: actor, correlationId: caller.correlationId, ...e }) }),
        prisma.outboxEvent.createMany({ data: events.map(outboxRow) }),
      ]);
    },
  };
}
