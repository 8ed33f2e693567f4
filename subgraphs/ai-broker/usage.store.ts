// The only code that reads and writes ai_usage: one row per broker call (also failed ones), read
// back for budgets and the per-tenant usage query. Every read takes the tenant id.
import { randomUUID } from 'node:crypto';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { SqlQuery } from '../../platform/db/sql';

export interface UsageRecord {
  tenantId: string;
  userId: string | null;
  correlationId: string;
  operation: string;
  model: string | null;
  provider: string | null;
  promptTokens: number;
  completionTokens: number;
  cost: number;
  latencyMs: number;
  status: 'ok' | 'failed';
}

export interface UsageSummary {
  requests: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
  byModel: { model: string; requests: number; totalTokens: number; cost: number }[];
}

export interface UsageStore {
  record(usage: UsageRecord): Promise<void>;
  tokensSince(tenantId: string, since: Date): Promise<number>;
  summary(tenantId: string, from: Date, to: Date): Promise<UsageSummary>;
}

/** The ai_usage row of a record. */
export function usageRow(u: UsageRecord) {
  return {
    id: randomUUID(),
    tenantId: u.tenantId,
    userId: u.userId,
    correlationId: u.correlationId,
    operation: u.operation,
    model: u.model,
    provider: u.provider,
    promptTokens: u.promptTokens,
    completionTokens: u.completionTokens,
    totalTokens: u.promptTokens + u.completionTokens,
    cost: u.cost,
    latencyMs: Math.round(u.latencyMs),
    status: u.status,
  };
}

export function prismaUsageStore(db: PrismaLike): UsageStore {
  return {
    async record(u) {
      await db.aiUsage.create({ data: usageRow(u) });
    },
    async tokensSince(tenantId, since) {
      const r = await db.aiUsage.aggregate({
        where: { tenantId, createdAt: { gte: since } },
        _sum: { totalTokens: true },
      });
      return r._sum.totalTokens ?? 0;
    },
    async summary(tenantId, from, to) {
      const where = { tenantId, createdAt: { gte: from, lt: to } };
      const groups = await db.aiUsage.groupBy({
        by: ['model', 'status'],
        where,
        _count: { _all: true },
        _sum: { promptTokens: true, completionTokens: true, totalTokens: true, cost: true },
      });
      const summary: UsageSummary = {
        requests: 0,
        failed: 0,
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
        cost: 0,
        byModel: [],
      };
      const byModel = new Map<string, UsageSummary['byModel'][number]>();
      for (const g of groups) {
        const cost = Number(g._sum.cost ?? 0);
        summary.requests += g._count._all;
        if (g.status === 'failed') summary.failed += g._count._all;
        summary.promptTokens += g._sum.promptTokens ?? 0;
        summary.completionTokens += g._sum.completionTokens ?? 0;
        summary.totalTokens += g._sum.totalTokens ?? 0;
        summary.cost += cost;
        if (g.model) {
          const m = byModel.get(g.model) ?? { model: g.model, requests: 0, totalTokens: 0, cost: 0 };
          m.requests += g._count._all;
          m.totalTokens += g._sum.totalTokens ?? 0;
          m.cost += cost;
          byModel.set(g.model, m);
        }
      }
      summary.cost = Math.round(summary.cost * 1e6) / 1e6;
      summary.byModel = [...byModel.values()].sort((a, b) => a.model.localeCompare(b.model));
      return summary;
    },
  };
}

/**
 * Retention (platform/retention, record type `ai_usage`): deletes at most `limit` of the tenant's
 * usage rows created before `cutoff` (not those of `heldUsers`); how many. The ledger keeps its
 * `ai_inference` events: a purge removes the broker's copy, never the audit trail.
 */
export async function purgeAiUsage(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  heldUsers: readonly string[],
  limit: number,
): Promise<number> {
  const res = await q.query(
    `DELETE FROM ai_usage WHERE id IN (
       SELECT id FROM ai_usage WHERE tenant_id = $1 AND created_at < $2
         AND (user_id IS NULL OR NOT (user_id = ANY($3::text[])))
       ORDER BY created_at LIMIT $4 FOR UPDATE SKIP LOCKED)`,
    [tenantId, cutoff, [...heldUsers], limit],
  );
  return res.rowCount;
}
