// The only ledger module that talks to the database. Hand-written SQL through the kernel's
// executor (both PGlite and node-postgres): the append path is one multi-row statement per
// group commit, and reads fetch only the columns they need. Every function that reads a
// tenant's rows takes the tenant id as a required argument.
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { GENESIS_HASH } from './ledger.hash';
import type { TreeNode } from './merkle';
import type { ChainHead, ChainRow, EventFilter, LedgerEvent, NewEventRow } from './ledger.types';

// Careful: `seq::float8 AS seq` means a bare `ORDER BY seq` would sort by the cast output column
// (no index, a full sort of the tenant's rows); every ORDER BY names `ledger_events.seq`.
const EVENT_COLUMNS = `id::text AS id, tenant_id, seq::float8 AS seq, event_type, event_data::text AS event_data,
  created_at_text, content_hash, previous_hash, chain_hash, user_id, correlation_id, description, written_by, trace_id`;

interface EventRecord {
  id: string;
  tenant_id: string;
  seq: number;
  event_type: string;
  event_data: string;
  created_at_text: string;
  content_hash: string;
  previous_hash: string;
  chain_hash: string;
  user_id: string | null;
  correlation_id: string | null;
  description: string | null;
  written_by: string | null;
  trace_id: string | null;
}

function toEvent(r: EventRecord): LedgerEvent {
  return {
    id: r.id,
    tenantId: r.tenant_id,
    seq: Number(r.seq),
    eventType: r.event_type,
    eventDataText: r.event_data,
    createdAt: r.created_at_text,
    contentHash: r.content_hash,
    previousHash: r.previous_hash,
    chainHash: r.chain_hash,
    userId: r.user_id,
    correlationId: r.correlation_id,
    description: r.description,
    writtenBy: r.written_by,
    traceId: r.trace_id,
  };
}

/** WHERE clause for a tenant plus the optional filters; `params` receives the values. */
function whereFor(tenantId: string, filter: EventFilter, params: unknown[]): string {
  params.push(tenantId);
  const parts = ['tenant_id = $1'];
  const add = (sql: string, value: unknown) => {
    params.push(value);
    parts.push(sql.replace('?', `$${params.length}`));
  };
  if (filter.eventType !== undefined) add('event_type = ?', filter.eventType);
  if (filter.userId !== undefined) add('user_id = ?', filter.userId);
  if (filter.correlationId !== undefined) add('correlation_id = ?', filter.correlationId);
  if (filter.startTime !== undefined) add('created_at >= ?::timestamptz', filter.startTime);
  if (filter.endTime !== undefined) add('created_at < ?::timestamptz', filter.endTime);
  return parts.join(' AND ');
}

function isEmpty(filter: EventFilter): boolean {
  return Object.values(filter).every((v) => v === undefined);
}

/** The statements of one group-commit transaction. */
export interface LedgerAppendTx {
  /** Creates missing heads, then locks every listed tenant's head row (in tenant order, so two processes never deadlock). */
  lockHeads(tenantIds: string[]): Promise<Map<string, ChainHead>>;
  findByIdempotencyKeys(
    pairs: { tenantId: string; key: string }[],
  ): Promise<(LedgerEvent & { idempotencyKey: string })[]>;
  findByIds(tenantIds: string[], ids: string[]): Promise<LedgerEvent[]>;
  /** One statement: inserts the rows and the Merkle tree's new nodes, and moves each tenant's head. */
  insertEvents(rows: NewEventRow[], heads: ChainHead[], nodes: (TreeNode & { tenantId: string })[]): Promise<void>;
  /** The chain hashes of a tenant's entries after a seq, in order (builds the tree of a chain older than it). */
  chainHashesAfter(tenantId: string, afterSeq: number): Promise<string[]>;
}

function appendTx(tx: SqlQuery): LedgerAppendTx {
  return {
    async lockHeads(tenantIds) {
      const select = `SELECT tenant_id, last_seq::float8 AS last_seq, last_hash, last_created_at_us::float8 AS last_created_at_us, tree_frontier
        FROM ledger_chain_heads WHERE tenant_id = ANY($1::text[]) ORDER BY tenant_id FOR UPDATE`;
      let res = await tx.query<{
        tenant_id: string;
        last_seq: number;
        last_hash: string;
        last_created_at_us: number;
        tree_frontier: string;
      }>(select, [tenantIds]);
      if (res.rows.length < tenantIds.length) {
        // First append of a tenant: create its head (a concurrent creator makes us wait, then DO NOTHING).
        await tx.query(
          `INSERT INTO ledger_chain_heads (tenant_id, last_seq, last_hash, last_created_at_us)
           SELECT t, 0, $2, 0 FROM unnest($1::text[]) AS t ORDER BY t ON CONFLICT (tenant_id) DO NOTHING`,
          [tenantIds, GENESIS_HASH],
        );
        res = await tx.query(select, [tenantIds]);
      }
      return new Map(
        res.rows.map((r) => [
          r.tenant_id,
          {
            tenantId: r.tenant_id,
            lastSeq: Number(r.last_seq),
            lastHash: r.last_hash,
            lastCreatedAtUs: Number(r.last_created_at_us),
            treeFrontier: r.tree_frontier,
          },
        ]),
      );
    },
    async findByIdempotencyKeys(pairs) {
      if (pairs.length === 0) return [];
      // `IS NOT NULL`: the key index is partial (migration ledger_key_index_partial).
      const res = await tx.query<EventRecord & { idempotency_key: string }>(
        `SELECT ${EVENT_COLUMNS}, idempotency_key FROM ledger_events
         WHERE (tenant_id, idempotency_key) IN (SELECT * FROM unnest($1::text[], $2::text[]))
           AND idempotency_key IS NOT NULL`,
        [pairs.map((p) => p.tenantId), pairs.map((p) => p.key)],
      );
      return res.rows.map((r) => ({ ...toEvent(r), idempotencyKey: r.idempotency_key }));
    },
    async findByIds(tenantIds, ids) {
      const res = await tx.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = ANY($1::text[]) AND id = ANY($2::uuid[])`,
        [tenantIds, ids],
      );
      return res.rows.map(toEvent);
    },
    async insertEvents(rows, heads, nodes) {
      const col = <K extends keyof NewEventRow>(k: K) => rows.map((r) => r[k]);
      await tx.query(
        `WITH nodes AS (
           INSERT INTO ledger_tree_nodes (tenant_id, level, node_index, hash)
           SELECT * FROM unnest($20::text[], $21::int2[], $22::int8[], $23::text[])
         ), inserted AS (
           INSERT INTO ledger_events (id, tenant_id, seq, event_type, event_data, created_at, created_at_text,
             content_hash, previous_hash, chain_hash, user_id, correlation_id, description, idempotency_key, written_by, trace_id)
           SELECT u.id, u.tenant_id, u.seq, u.event_type, u.event_data::json, u.created_at_text::timestamptz, u.created_at_text,
             u.content_hash, u.previous_hash, u.chain_hash, u.user_id, u.correlation_id, u.description, u.idempotency_key, u.written_by, u.trace_id
           FROM unnest($1::uuid[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
                       $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $19::text[], $25::text[])
             AS u(id, tenant_id, seq, event_type, event_data, created_at_text, content_hash, previous_hash, chain_hash,
                  user_id, correlation_id, description, idempotency_key, written_by, trace_id)
           RETURNING 1
         )
         UPDATE ledger_chain_heads h
            SET last_seq = v.last_seq, last_hash = v.last_hash, last_created_at_us = v.last_us, tree_frontier = v.frontier
           FROM unnest($14::text[], $15::int8[], $16::text[], $17::int8[], $24::text[]) AS v(tenant_id, last_seq, last_hash, last_us, frontier)
          WHERE h.tenant_id = v.tenant_id AND (SELECT count(*) FROM inserted) = $18`,
        [
          col('id'),
          col('tenantId'),
          col('seq'),
          col('eventType'),
          col('eventDataText'),
          col('createdAt'),
          col('contentHash'),
          col('previousHash'),
          col('chainHash'),
          col('userId'),
          col('correlationId'),
          col('description'),
          col('idempotencyKey'),
          heads.map((h) => h.tenantId),
          heads.map((h) => h.lastSeq),
          heads.map((h) => h.lastHash),
          heads.map((h) => h.lastCreatedAtUs),
          rows.length,
          col('writtenBy'),
          nodes.map((n) => n.tenantId),
          nodes.map((n) => n.level),
          nodes.map((n) => n.index),
          nodes.map((n) => n.hash),
          heads.map((h) => h.treeFrontier),
          col('traceId'),
        ],
      );
    },
    async chainHashesAfter(tenantId, afterSeq) {
      const res = await tx.query<{ chain_hash: string }>(
        'SELECT chain_hash FROM ledger_events WHERE tenant_id = $1 AND seq > $2 ORDER BY ledger_events.seq',
        [tenantId, afterSeq],
      );
      return res.rows.map((r) => r.chain_hash);
    },
  };
}

export interface ExportRow {
  seq: number;
  id: string;
  tenant_id: string;
  event_type: string;
  created_at_text: string;
  user_id: string | null;
  correlation_id: string | null;
  description: string | null;
  chain_hash: string;
}

export interface LedgerStore {
  appendTransaction<T>(work: (tx: LedgerAppendTx) => Promise<T>): Promise<T>;
  /**
   * One statement, no transaction around it: moves each tenant's head from `expected` to its new
   * value only where the stored head is still exactly `expected` and none of the tenant's rows'
   * idempotency keys is stored yet, and inserts the rows and tree nodes of the tenants whose head
   * moved. Answers those tenants; the others' rows are not stored (another process appended
   * since `expected` was read, or a key is a replay).
   */
  appendIfUnchanged(
    rows: NewEventRow[],
    heads: ChainHead[],
    expected: Map<string, ChainHead>,
    nodes: (TreeNode & { tenantId: string })[],
  ): Promise<Set<string>>;
  listEvents(
    tenantId: string,
    filter: EventFilter,
    page: { limit: number; offset: number; newestFirst?: boolean },
  ): Promise<LedgerEvent[]>;
  countEvents(tenantId: string, filter: EventFilter): Promise<number>;
  /** Keyset page after `afterSeq` (ascending), for cursor connections. */
  eventsAfter(tenantId: string, filter: EventFilter, afterSeq: number, limit: number): Promise<LedgerEvent[]>;
  getEvent(tenantId: string, id: string): Promise<LedgerEvent | undefined>;
  /** The tenant's events among `ids` (any order; another tenant's ids are absent): one statement. */
  getEvents(tenantId: string, ids: readonly string[]): Promise<LedgerEvent[]>;
  getEventBySeq(tenantId: string, seq: number): Promise<LedgerEvent | undefined>;
  /** The tenant's entries of seq `fromSeq`..`toSeq` (an index range), in order; of one type when given. */
  eventsBetween(tenantId: string, fromSeq: number, toSeq: number, eventType?: string): Promise<LedgerEvent[]>;
  getHead(tenantId: string): Promise<ChainHead | undefined>;
  /** Every tenant that has a chain (platform-wide verification). */
  listChainTenants(): Promise<string[]>;
  chainPage(tenantId: string, afterSeq: number, limit: number): Promise<ChainRow[]>;
  exportPage(tenantId: string, eventType: string | undefined, afterSeq: number, limit: number): Promise<ExportRow[]>;
  countsBy(
    tenantId: string,
    column: 'event_type' | 'user_id',
    filter: EventFilter,
  ): Promise<{ key: string | null; count: number }[]>;
  /** First and last chain_hash of the events matching the filter, in chain order. */
  hashBounds(tenantId: string, filter: EventFilter): Promise<{ first: string | null; last: string | null }>;
  /** Latest events of several users (DataLoader batch for User.auditTrail). */
  eventsOfUsers(
    tenantId: string,
    userIds: string[],
    limitPerUser: number,
    beforeSeq: number | null,
  ): Promise<LedgerEvent[]>;
}

export interface LedgerStoreOptions {
  /**
   * Fetch verification pages as one JSON array text (json_agg) instead of rows. On PGlite this is
   * ~3x faster (one value to decode instead of 10,000 rows through its JavaScript protocol
   * parser); on node-postgres plain rows are faster. Exact either way: every value travels as a
   * JSON string and comes back unchanged.
   */
  pageAsJson?: boolean;
}

type ChainTuple = [number, string, string, string | null, string, string, string, string];

export function createLedgerStore(sql: SqlExecutor, options: LedgerStoreOptions = {}): LedgerStore {
  return {
    appendTransaction: (work) => sql.transaction((tx) => work(appendTx(tx))),

    async appendIfUnchanged(rows, heads, expected, nodes) {
      const col = <K extends keyof NewEventRow>(k: K) => rows.map((r) => r[k]);
      const was = heads.map((h) => expected.get(h.tenantId)!);
      // ledger_append_if_unchanged (migration 20261129070000_ledger_append_function): each head is
      // moved by its primary key only where the stored head is still `expected`; a head another
      // process holds makes that UPDATE wait, and once that commits the re-check fails: nothing of
      // that tenant is written. One statement is one transaction: all of it lands or none.
      // A tenant one of whose idempotency keys is already stored (`clash`) is not moved either:
      // its events go the locked way, which answers the stored entry. The keys are looked up in
      // the statement's snapshot; an entry committed after it moved the head, which fails the
      // head's re-check, so a key can never be stored twice through here.
      // Prepared: this call is planned once per connection, and the function's own statements are
      // planned once per connection too, in shapes that can only probe indexes (see the migration).
      const res = await sql.query<{ tenant_id: string }>(
        `SELECT t AS tenant_id FROM ledger_append_if_unchanged(
           $1::uuid[], $2::text[], $3::int8[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
           $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
           $16::text[], $17::int8[], $18::text[], $19::int8[], $20::text[],
           $21::int8[], $22::text[], $23::int8[], $24::text[],
           $25::text[], $26::int2[], $27::int8[], $28::text[]) AS t`,
        [
          col('id'),
          col('tenantId'),
          col('seq'),
          col('eventType'),
          col('eventDataText'),
          col('createdAt'),
          col('contentHash'),
          col('previousHash'),
          col('chainHash'),
          col('userId'),
          col('correlationId'),
          col('description'),
          col('idempotencyKey'),
          col('writtenBy'),
          col('traceId'),
          heads.map((h) => h.tenantId),
          heads.map((h) => h.lastSeq),
          heads.map((h) => h.lastHash),
          heads.map((h) => h.lastCreatedAtUs),
          heads.map((h) => h.treeFrontier),
          was.map((h) => h.lastSeq),
          was.map((h) => h.lastHash),
          was.map((h) => h.lastCreatedAtUs),
          was.map((h) => h.treeFrontier),
          nodes.map((n) => n.tenantId),
          nodes.map((n) => n.level),
          nodes.map((n) => n.index),
          nodes.map((n) => n.hash),
        ],
        { prepareAs: 'ledger_append_if_unchanged' },
      );
      return new Set(res.rows.map((r) => r.tenant_id));
    },

    async listEvents(tenantId, filter, page) {
      if (isEmpty(filter) && !page.newestFirst) {
        // A chain's seq runs 1..n without gaps, so OFFSET k is `seq > k`: an index range, not a
        // walk past k rows.
        const res = await sql.query<EventRecord>(
          `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = $1 AND seq > $2 ORDER BY ledger_events.seq LIMIT $3`,
          [tenantId, page.offset, page.limit],
        );
        return res.rows.map(toEvent);
      }
      const params: unknown[] = [];
      const where = whereFor(tenantId, filter, params);
      params.push(page.limit, page.offset);
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE ${where}
         ORDER BY ledger_events.seq ${page.newestFirst ? 'DESC' : 'ASC'} LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
      return res.rows.map(toEvent);
    },

    async countEvents(tenantId, filter) {
      if (isEmpty(filter)) {
        // The head knows the chain's length: no scan of a large tenant for the common listing.
        const head = await sql.query<{ n: number }>(
          'SELECT last_seq::float8 AS n FROM ledger_chain_heads WHERE tenant_id = $1',
          [tenantId],
        );
        return Number(head.rows[0]?.n ?? 0);
      }
      const params: unknown[] = [];
      const res = await sql.query<{ n: number }>(
        `SELECT count(*)::float8 AS n FROM ledger_events WHERE ${whereFor(tenantId, filter, params)}`,
        params,
      );
      return Number(res.rows[0]?.n ?? 0);
    },

    async eventsAfter(tenantId, filter, afterSeq, limit) {
      const params: unknown[] = [];
      const where = whereFor(tenantId, filter, params);
      params.push(afterSeq, limit);
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE ${where} AND seq > $${params.length - 1} ORDER BY ledger_events.seq LIMIT $${params.length}`,
        params,
      );
      return res.rows.map(toEvent);
    },

    async getEvent(tenantId, id) {
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] && toEvent(res.rows[0]);
    },

    async getEvents(tenantId, ids) {
      if (ids.length === 0) return [];
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = $1 AND id = ANY($2::uuid[])`,
        [tenantId, [...ids]],
      );
      return res.rows.map(toEvent);
    },

    async eventsBetween(tenantId, fromSeq, toSeq, eventType) {
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = $1 AND seq BETWEEN $2 AND $3
           AND ($4::text IS NULL OR event_type = $4) ORDER BY ledger_events.seq`,
        [tenantId, fromSeq, toSeq, eventType ?? null],
      );
      return res.rows.map(toEvent);
    },

    async getEventBySeq(tenantId, seq) {
      const res = await sql.query<EventRecord>(
        `SELECT ${EVENT_COLUMNS} FROM ledger_events WHERE tenant_id = $1 AND seq = $2`,
        [tenantId, seq],
      );
      return res.rows[0] && toEvent(res.rows[0]);
    },

    async getHead(tenantId) {
      const res = await sql.query<{
        last_seq: number;
        last_hash: string;
        last_created_at_us: number;
        tree_frontier: string;
      }>(
        'SELECT last_seq::float8 AS last_seq, last_hash, last_created_at_us::float8 AS last_created_at_us, tree_frontier FROM ledger_chain_heads WHERE tenant_id = $1',
        [tenantId],
      );
      const r = res.rows[0];
      return (
        r && {
          tenantId,
          lastSeq: Number(r.last_seq),
          lastHash: r.last_hash,
          lastCreatedAtUs: Number(r.last_created_at_us),
          treeFrontier: r.tree_frontier,
        }
      );
    },

    async listChainTenants() {
      const res = await sql.query<{ tenant_id: string }>('SELECT tenant_id FROM ledger_chain_heads ORDER BY tenant_id');
      return res.rows.map((r) => r.tenant_id);
    },

    async chainPage(tenantId, afterSeq, limit) {
      if (options.pageAsJson) {
        const agg = await sql.query<{ page: string | null }>(
          `SELECT json_agg(json_build_array(seq, event_type, event_data::text, user_id, created_at_text, content_hash, previous_hash, chain_hash)
                           ORDER BY seq)::text AS page
           FROM (SELECT * FROM ledger_events WHERE tenant_id = $1 AND seq > $2 ORDER BY ledger_events.seq LIMIT $3) AS p`,
          [tenantId, afterSeq, limit],
        );
        const tuples = agg.rows[0]?.page ? (JSON.parse(agg.rows[0].page) as ChainTuple[]) : [];
        return tuples.map((t) => ({
          seq: t[0],
          event_type: t[1],
          event_data: t[2],
          user_id: t[3],
          created_at_text: t[4],
          content_hash: t[5],
          previous_hash: t[6],
          chain_hash: t[7],
        }));
      }
      const res = await sql.query<ChainRow>(
        `SELECT seq::float8 AS seq, event_type, event_data::text AS event_data, user_id, created_at_text, content_hash, previous_hash, chain_hash
         FROM ledger_events WHERE tenant_id = $1 AND seq > $2 ORDER BY ledger_events.seq LIMIT $3`,
        [tenantId, afterSeq, limit],
      );
      return res.rows;
    },

    async exportPage(tenantId, eventType, afterSeq, limit) {
      const params: unknown[] = [tenantId, afterSeq, limit];
      let typeFilter = '';
      if (eventType !== undefined) {
        params.push(eventType);
        typeFilter = 'AND event_type = $4';
      }
      const res = await sql.query<ExportRow>(
        `SELECT seq::float8 AS seq, id::text AS id, tenant_id, event_type, created_at_text, user_id, correlation_id, description, chain_hash
         FROM ledger_events WHERE tenant_id = $1 AND seq > $2 ${typeFilter} ORDER BY ledger_events.seq LIMIT $3`,
        params,
      );
      return res.rows;
    },

    async countsBy(tenantId, column, filter) {
      const params: unknown[] = [];
      const res = await sql.query<{ key: string | null; n: number }>(
        `SELECT ${column === 'event_type' ? 'event_type' : 'user_id'} AS key, count(*)::float8 AS n
         FROM ledger_events WHERE ${whereFor(tenantId, filter, params)} GROUP BY 1 ORDER BY 1`,
        params,
      );
      return res.rows.map((r) => ({ key: r.key, count: Number(r.n) }));
    },

    async hashBounds(tenantId, filter) {
      const params: unknown[] = [];
      const where = whereFor(tenantId, filter, params);
      const res = await sql.query<{ first: string | null; last: string | null }>(
        `SELECT (SELECT chain_hash FROM ledger_events WHERE ${where} ORDER BY seq ASC LIMIT 1) AS first,
                (SELECT chain_hash FROM ledger_events WHERE ${where} ORDER BY seq DESC LIMIT 1) AS last`,
        params,
      );
      return res.rows[0] ?? { first: null, last: null };
    },

    async eventsOfUsers(tenantId, userIds, limitPerUser, beforeSeq) {
      const res = await sql.query<EventRecord>(
        `SELECT e.* FROM unnest($2::text[]) AS u(user_id)
         CROSS JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM ledger_events
           WHERE tenant_id = $1 AND ledger_events.user_id = u.user_id AND ($4::int8 IS NULL OR seq < $4::int8)
           ORDER BY ledger_events.seq DESC LIMIT $3
         ) AS e`,
        [tenantId, userIds, limitPerUser, beforeSeq],
      );
      return res.rows.map(toEvent);
    },
  };
}
