// rag_conversations and rag_messages: a conversation's history feeds its follow-up questions.
// A conversation of a known user is that user's PII: with a subject vault its messages are sealed
// under the user's subject key (platform/vault), so an erasure of the user leaves them `[erased]`.
import { randomUUID } from 'node:crypto';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import type { SubjectVault } from '../../platform/vault/subject-vault';
import type { Conversation, Message, Scope } from './rag.types';

interface ConvRow {
  id: string;
  tenant_id: string;
  user_id: string | null;
  context: Record<string, string | null> | string;
  status: string;
  created_at: Date | string;
  updated_at: Date | string;
}
interface MsgRow {
  id: string;
  role: string;
  content: string;
  chunks_used: number | null;
  created_at: Date | string;
}

const scopeOf = (c: Record<string, string | null>): Scope => ({
  suiteId: c.suite_id ?? undefined,
  moduleId: c.module_id ?? undefined,
  entityId: c.entity_id ?? undefined,
});

export function createConversationStore(sql: SqlExecutor, vault?: SubjectVault) {
  return {
    async create(tenantId: string, userId: string | null, context: Scope): Promise<Conversation> {
      const id = randomUUID();
      await sql.query(
        `INSERT INTO rag_conversations (id, tenant_id, user_id, context, status, updated_at) VALUES ($1::uuid, $2, $3, $4::jsonb, 'open', now())`,
        [
          id,
          tenantId,
          userId,
          JSON.stringify({
            suite_id: context.suiteId ?? null,
            module_id: context.moduleId ?? null,
            entity_id: context.entityId ?? null,
          }),
        ],
      );
      return (await this.get(tenantId, id))!;
    },

    /** The conversation with its messages in order (the most recent `lastMessages` when given). */
    async get(tenantId: string, id: string, lastMessages?: number): Promise<Conversation | null> {
      const res = await sql.query<ConvRow>(
        `SELECT id::text, tenant_id, user_id, context, status, created_at, updated_at FROM rag_conversations WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      const r = res.rows[0];
      if (!r) return null;
      const msgs = await sql.query<MsgRow>(
        lastMessages === undefined
          ? `SELECT id::text, role, content, chunks_used, created_at FROM rag_messages WHERE conversation_id = $1::uuid ORDER BY created_at, id`
          : `SELECT * FROM (SELECT id::text, role, content, chunks_used, created_at FROM rag_messages WHERE conversation_id = $1::uuid ORDER BY created_at DESC, id DESC LIMIT ${lastMessages}) m ORDER BY created_at, id`,
        [id],
      );
      const contents = vault
        ? await vault.openMany(
            sql,
            tenantId,
            msgs.rows.map((m) => m.content),
          )
        : msgs.rows.map((m) => m.content);
      const context =
        typeof r.context === 'string' ? (JSON.parse(r.context) as Record<string, string | null>) : r.context;
      return {
        id: r.id,
        tenantId: r.tenant_id,
        userId: r.user_id,
        context: scopeOf(context),
        status: r.status as Conversation['status'],
        createdAt: new Date(r.created_at),
        updatedAt: new Date(r.updated_at),
        messages: msgs.rows.map((m, i): Message => ({
          id: m.id,
          role: m.role as Message['role'],
          content: contents[i]!,
          chunksUsed: m.chunks_used,
          createdAt: new Date(m.created_at),
        })),
      };
    },

    async addExchange(
      tenantId: string,
      id: string,
      question: string,
      answer: string,
      chunksUsed: number,
    ): Promise<void> {
      await sql.transaction(async (tx) => {
        const owner = await tx.query<{ user_id: string | null }>(
          `SELECT user_id FROM rag_conversations WHERE tenant_id = $1 AND id = $2::uuid`,
          [tenantId, id],
        );
        const userId = owner.rows[0]?.user_id ?? null;
        const seal = (text: string) => (vault && userId ? vault.seal(tx, tenantId, userId, text) : text);
        const storedQuestion = await seal(question);
        const storedAnswer = await seal(answer);
        // Two rows a millisecond apart keep their order under ORDER BY created_at.
        await tx.query(
          `INSERT INTO rag_messages (id, conversation_id, role, content, created_at) VALUES ($1::uuid, $2::uuid, 'user', $3, clock_timestamp())`,
          [randomUUID(), id, storedQuestion],
        );
        await tx.query(
          `INSERT INTO rag_messages (id, conversation_id, role, content, chunks_used, created_at) VALUES ($1::uuid, $2::uuid, 'assistant', $3, $4, clock_timestamp() + interval '1 microsecond')`,
          [randomUUID(), id, storedAnswer, chunksUsed],
        );
        await tx.query(`UPDATE rag_conversations SET updated_at = now() WHERE tenant_id = $1 AND id = $2::uuid`, [
          tenantId,
          id,
        ]);
      });
    },

    /** Ends the conversation: its messages are removed with it (spec: removed with its conversation). */
    async delete(tenantId: string, id: string): Promise<boolean> {
      return (
        (await sql.query(`DELETE FROM rag_conversations WHERE tenant_id = $1 AND id = $2::uuid`, [tenantId, id]))
          .rowCount > 0
      );
    },
  };
}

export type ConversationStore = ReturnType<typeof createConversationStore>;

/**
 * Retention (platform/retention, record type `rag_conversation`): deletes at most `limit` of the
 * tenant's conversations whose last activity was before `cutoff` (not those of `heldUsers`), with
 * their messages; how many.
 */
export async function purgeRagConversations(
  q: SqlQuery,
  tenantId: string,
  cutoff: Date,
  heldUsers: readonly string[],
  limit: number,
): Promise<number> {
  const res = await q.query(
    `DELETE FROM rag_conversations WHERE id IN (
       SELECT id FROM rag_conversations WHERE tenant_id = $1 AND updated_at < $2
         AND (user_id IS NULL OR NOT (user_id = ANY($3::text[])))
       ORDER BY updated_at LIMIT $4 FOR UPDATE SKIP LOCKED)`,
    [tenantId, cutoff, [...heldUsers], limit],
  );
  return res.rowCount;
}
