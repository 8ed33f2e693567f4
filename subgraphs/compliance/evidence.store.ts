// The only code that reads and writes evidence, its revisions and control links, and the
// intake's record of the events it took. Every function takes the tenant id first. Revisions
// are appended, never changed, except that a revision's ledger entry is filled in once the
// ledger has answered (`setLedgerEntry`, only while it is still empty).
//
// Reads for reports go through `items` (by framework, by control, by period) and `freshness`:
// a control counts the evidence recorded against it and against the controls it maps to (a
// profile's control, its catalog's; a SOC 2 criterion, its 800-53 controls), at most three
// links deep, each item judged by its newest revision.
import type { SqlQuery } from '../../platform/db/sql';
import type { ControlRef, EvidenceItem, EvidenceQuery, EvidenceRevision } from './compliance.types';

export interface NewRevision {
  content: unknown;
  contentSha256: string;
  collectedAt: Date;
  expiresAt: Date;
  recordedBy: string | null;
}

/** One event of an intake batch: its item and first revision when it makes evidence. */
export interface IntakeRow {
  eventId: string;
  topic: string;
  item: NewItem | null;
  first: NewRevision | null;
  /** The first revision's ledger entry, appended before the row (null: the ledger did not answer). */
  ledger: { entryId: string; chainHash: string } | null;
}

export interface NewItem {
  id: string;
  source: string;
  eventId: string | null;
  eventType: string | null;
  createdBy: string | null;
  controls: ControlRef[];
}

/** Per control of a framework: its evidence count, the newest collection and the latest expiry of newest revisions. */
export interface FreshnessRow {
  controlId: string;
  evidenceCount: number;
  lastCollectedAt: Date | null;
  latestExpiry: Date | null;
}

interface RevisionRow {
  item_id: string;
  revision: number;
  content: string;
  content_sha256: string;
  collected_ms: number;
  expires_ms: number;
  recorded_by: string | null;
  ledger_entry_id: string | null;
  ledger_chain_hash: string | null;
}

interface ItemRow {
  tenant_id: string;
  id: string;
  source: string;
  event_id: string | null;
  event_type: string | null;
  created_ms: number;
}

const ms = (column: string, as: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS ${as}`;
const REVISION_COLUMNS = `item_id::text AS item_id, revision, content::text AS content, content_sha256,
  ${ms('collected_at', 'collected_ms')}, ${ms('expires_at', 'expires_ms')}, recorded_by,
  ledger_entry_id::text AS ledger_entry_id, ledger_chain_hash`;

/** The controls (framework, control_id) each origin control of `$2` is satisfied by, itself included. */
const TARGETS = `WITH RECURSIVE targets(origin, framework, control_id, depth) AS (
    SELECT c.control_id, c.framework, c.control_id, 0 FROM compliance_controls c
    WHERE c.tenant_id = $1 AND c.framework = $2 AND ($3::text IS NULL OR c.control_id = $3)
  UNION
    SELECT t.origin, l.target_framework, l.target_control_id, t.depth + 1 FROM targets t
    JOIN compliance_control_links l
      ON l.tenant_id = $1 AND l.framework = t.framework AND l.control_id = t.control_id
    WHERE t.depth < 3
)`;

function toRevision(r: RevisionRow): EvidenceRevision {
  return {
    itemId: r.item_id,
    revision: Number(r.revision),
    content: JSON.parse(r.content) as unknown,
    contentSha256: r.content_sha256.trim(),
    collectedAt: new Date(Number(r.collected_ms)),
    expiresAt: new Date(Number(r.expires_ms)),
    recordedBy: r.recorded_by,
    ledgerEntryId: r.ledger_entry_id,
    ledgerChainHash: r.ledger_chain_hash?.trim() ?? null,
  };
}

async function hydrate(q: SqlQuery, tenantId: string, rows: ItemRow[]): Promise<EvidenceItem[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const revisions = await q.query<RevisionRow>(
    `SELECT ${REVISION_COLUMNS} FROM compliance_evidence_revisions
     WHERE tenant_id = $1 AND item_id = ANY($2::uuid[]) ORDER BY item_id, revision DESC`,
    [tenantId, ids],
  );
  const controls = await q.query<{ item_id: string; framework: string; control_id: string }>(
    `SELECT item_id::text AS item_id, framework, control_id FROM compliance_evidence_controls
     WHERE tenant_id = $1 AND item_id = ANY($2::uuid[]) ORDER BY framework, control_id`,
    [tenantId, ids],
  );
  return rows.map((r) => ({
    tenantId: r.tenant_id,
    id: r.id,
    source: r.source,
    eventId: r.event_id,
    eventType: r.event_type,
    createdAt: new Date(Number(r.created_ms)),
    controls: controls.rows
      .filter((c) => c.item_id === r.id)
      .map((c) => ({ framework: c.framework, controlId: c.control_id })),
    revisions: revisions.rows.filter((v) => v.item_id === r.id).map(toRevision),
  }));
}

const ITEM_COLUMNS = `i.tenant_id, i.id::text AS id, i.source, i.event_id, i.event_type, ${ms('i.created_at', 'created_ms')}`;

export interface EvidenceStore {
  /** Records an intake event; false when its id was taken before (a redelivery). */
  recordIntake(q: SqlQuery, tenantId: string, eventId: string, topic: string, itemId: string | null): Promise<boolean>;
  /** The item an earlier delivery of the event became (undefined: the event was never taken). */
  intakeItem(q: SqlQuery, tenantId: string, eventId: string): Promise<{ itemId: string | null } | undefined>;
  insertItem(q: SqlQuery, tenantId: string, item: NewItem, first: NewRevision): Promise<void>;
  /**
   * The intake's batch (one tenant's events of one delivered batch) in ONE statement, atomic on
   * its own: every event's intake row (`ON CONFLICT DO NOTHING`: the ids it does not answer were
   * taken before, the redeliveries), and for each new event that makes evidence its item,
   * control links and first revision. Answers the event ids that were new. Ids must be distinct
   * within the call.
   */
  takeIntakes(q: SqlQuery, tenantId: string, rows: readonly IntakeRow[]): Promise<Set<string>>;
  /** Which of these event ids the tenant's intake has taken before. */
  takenEventIds(q: SqlQuery, tenantId: string, eventIds: readonly string[]): Promise<Set<string>>;
  /** Appends the next revision under the item's row lock; null when the item does not exist. */
  appendRevision(q: SqlQuery, tenantId: string, itemId: string, next: NewRevision): Promise<number | null>;
  setLedgerEntry(
    q: SqlQuery,
    tenantId: string,
    itemId: string,
    revision: number,
    entryId: string,
    chainHash: string,
  ): Promise<void>;
  item(q: SqlQuery, tenantId: string, id: string): Promise<EvidenceItem | null>;
  items(q: SqlQuery, tenantId: string, query: EvidenceQuery): Promise<EvidenceItem[]>;
  freshness(q: SqlQuery, tenantId: string, framework: string, controlId?: string): Promise<FreshnessRow[]>;
  /** Revisions still waiting for their ledger entry (the ledger was unreachable when they were written). */
  unrecorded(q: SqlQuery, tenantId: string, limit: number): Promise<{ itemId: string; revision: number }[]>;
  /**
   * The tenants that have such revisions (the periodic sweep's list; tenant ids only, no tenant
   * data, so it is the one read without a tenant, as the retention pass reads every tenant's policy).
   */
  tenantsWithUnrecorded(q: SqlQuery, limit: number): Promise<string[]>;
}

export const evidenceStore: EvidenceStore = {
  async recordIntake(q, tenantId, eventId, topic, itemId) {
    const r = await q.query(
      `INSERT INTO compliance_intake (tenant_id, event_id, topic, item_id) VALUES ($1, $2, $3, $4::uuid)
       ON CONFLICT (tenant_id, event_id) DO NOTHING RETURNING event_id`,
      [tenantId, eventId, topic, itemId],
    );
    return r.rows.length > 0;
  },

  async intakeItem(q, tenantId, eventId) {
    const { rows } = await q.query<{ item_id: string | null }>(
      'SELECT item_id::text AS item_id FROM compliance_intake WHERE tenant_id = $1 AND event_id = $2',
      [tenantId, eventId],
    );
    return rows[0] ? { itemId: rows[0].item_id } : undefined;
  },

  async insertItem(q, tenantId, item, first) {
    await q.query(
      `INSERT INTO compliance_evidence_items (tenant_id, id, source, event_id, event_type, created_by)
       VALUES ($1, $2::uuid, $3, $4, $5, $6)`,
      [tenantId, item.id, item.source, item.eventId, item.eventType, item.createdBy],
    );
    await q.query(
      `INSERT INTO compliance_evidence_controls (tenant_id, item_id, framework, control_id)
       SELECT $1, $2::uuid, x.framework, x.control_id FROM jsonb_to_recordset($3::jsonb) AS x(framework text, control_id text)
       ON CONFLICT DO NOTHING`,
      [
        tenantId,
        item.id,
        JSON.stringify(item.controls.map((c) => ({ framework: c.framework, control_id: c.controlId }))),
      ],
    );
    await insertRevision(q, tenantId, item.id, 1, first);
  },

  async takenEventIds(q, tenantId, eventIds) {
    if (eventIds.length === 0) return new Set();
    const { rows } = await q.query<{ event_id: string }>(
      'SELECT event_id FROM compliance_intake WHERE tenant_id = $1 AND event_id = ANY($2::text[])',
      [tenantId, eventIds],
    );
    return new Set(rows.map((r) => r.event_id));
  },

  async takeIntakes(q, tenantId, rows) {
    if (rows.length === 0) return new Set();
    // The batch is one jsonb parameter (cheaper to send than a text array per column); the
    // data-modifying CTEs all run in the statement's one snapshot, and only the events whose
    // intake row went in (`taken`) get an item. Ordered by event id, so two batches racing on
    // the same ids take their row locks in the same order.
    const batch = rows.map((r) => ({
      event_id: r.eventId,
      topic: r.topic,
      item_id: r.item?.id ?? null,
      source: r.item?.source ?? null,
      event_type: r.item?.eventType ?? null,
      controls: r.item?.controls.map((c) => ({ framework: c.framework, control_id: c.controlId })) ?? [],
      content: r.first?.content ?? null,
      sha: r.first?.contentSha256 ?? null,
      collected_at: r.first?.collectedAt.toISOString() ?? null,
      expires_at: r.first?.expiresAt.toISOString() ?? null,
      recorded_by: r.first?.recordedBy ?? null,
      entry_id: r.ledger?.entryId ?? null,
      chain_hash: r.ledger?.chainHash ?? null,
    }));
    const { rows: taken } = await q.query<{ event_id: string }>(
      `WITH x AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(event_id text, topic text, item_id uuid, source text,
           event_type text, controls jsonb, content jsonb, sha text, collected_at timestamptz,
           expires_at timestamptz, recorded_by text, entry_id uuid, chain_hash text)
       ), taken AS (
         INSERT INTO compliance_intake (tenant_id, event_id, topic, item_id)
         SELECT $1, event_id, topic, item_id FROM x ORDER BY event_id
         ON CONFLICT (tenant_id, event_id) DO NOTHING RETURNING event_id
       ), made AS (
         SELECT x.* FROM x JOIN taken USING (event_id) WHERE x.item_id IS NOT NULL
       ), items AS (
         INSERT INTO compliance_evidence_items (tenant_id, id, source, event_id, event_type, created_by)
         SELECT $1, item_id, source, event_id, event_type, NULL FROM made
       ), links AS (
         INSERT INTO compliance_evidence_controls (tenant_id, item_id, framework, control_id)
         SELECT $1, made.item_id, c.framework, c.control_id
           FROM made, jsonb_to_recordset(made.controls) AS c(framework text, control_id text)
         ON CONFLICT DO NOTHING
       ), revisions AS (
         INSERT INTO compliance_evidence_revisions
           (tenant_id, item_id, revision, content, content_sha256, collected_at, expires_at, recorded_by,
            ledger_entry_id, ledger_chain_hash)
         SELECT $1, item_id, 1, content, sha, collected_at, expires_at, recorded_by, entry_id, chain_hash FROM made
       )
       SELECT event_id FROM taken`,
      [tenantId, JSON.stringify(batch)],
    );
    return new Set(taken.map((x) => x.event_id));
  },

  async appendRevision(q, tenantId, itemId, next) {
    const locked = await q.query(
      'SELECT id FROM compliance_evidence_items WHERE tenant_id = $1 AND id = $2::uuid FOR UPDATE',
      [tenantId, itemId],
    );
    if (locked.rows.length === 0) return null;
    const { rows } = await q.query<{ last: number }>(
      'SELECT max(revision) AS last FROM compliance_evidence_revisions WHERE tenant_id = $1 AND item_id = $2::uuid',
      [tenantId, itemId],
    );
    const revision = Number(rows[0]?.last ?? 0) + 1;
    await insertRevision(q, tenantId, itemId, revision, next);
    return revision;
  },

  async setLedgerEntry(q, tenantId, itemId, revision, entryId, chainHash) {
    await q.query(
      `UPDATE compliance_evidence_revisions SET ledger_entry_id = $4::uuid, ledger_chain_hash = $5
       WHERE tenant_id = $1 AND item_id = $2::uuid AND revision = $3 AND ledger_entry_id IS NULL`,
      [tenantId, itemId, revision, entryId, chainHash],
    );
  },

  async item(q, tenantId, id) {
    const { rows } = await q.query<ItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM compliance_evidence_items i WHERE i.tenant_id = $1 AND i.id = $2::uuid`,
      [tenantId, id],
    );
    return (await hydrate(q, tenantId, rows))[0] ?? null;
  },

  async items(q, tenantId, query) {
    // TARGETS names $2 and $3: the framework and control are always the second and third parameters.
    const params: unknown[] = [tenantId];
    const where: string[] = ['i.tenant_id = $1'];
    let prefix = '';
    if (query.framework !== undefined) {
      params.push(query.framework, query.controlId ?? null);
      prefix = TARGETS;
      where.push(`EXISTS (SELECT 1 FROM targets t JOIN compliance_evidence_controls e
        ON e.tenant_id = $1 AND e.framework = t.framework AND e.control_id = t.control_id WHERE e.item_id = i.id)`);
    }
    if (query.from !== undefined || query.to !== undefined) {
      params.push(query.from ?? null, query.to ?? null);
      where.push(`EXISTS (SELECT 1 FROM compliance_evidence_revisions r WHERE r.tenant_id = $1 AND r.item_id = i.id
        AND ($${params.length - 1}::timestamptz IS NULL OR r.collected_at >= $${params.length - 1}::timestamptz)
        AND ($${params.length}::timestamptz IS NULL OR r.collected_at < $${params.length}::timestamptz))`);
    }
    // The cursor carries created_at as a JavaScript Date (milliseconds) while the column keeps
    // microseconds: order and compare at millisecond precision, or the last item of a page
    // (12:00:00.123456 > 12:00:00.123) comes back first on the next one.
    if (query.after) {
      params.push(query.after.createdAt, query.after.id);
      where.push(
        `(date_trunc('milliseconds', i.created_at), i.id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`,
      );
    }
    params.push(query.limit);
    const { rows } = await q.query<ItemRow>(
      `${prefix} SELECT ${ITEM_COLUMNS} FROM compliance_evidence_items i
       WHERE ${where.join(' AND ')}
       ORDER BY date_trunc('milliseconds', i.created_at), i.id LIMIT $${params.length}`,
      params,
    );
    return hydrate(q, tenantId, rows);
  },

  async freshness(q, tenantId, framework, controlId) {
    const { rows } = await q.query<{ origin: string; n: number; last_ms: number | null; expiry_ms: number | null }>(
      `${TARGETS}
       SELECT t.origin, count(DISTINCT e.item_id)::int AS n,
         (extract(epoch FROM max(latest.collected_at)) * 1000)::float8 AS last_ms,
         (extract(epoch FROM max(latest.expires_at)) * 1000)::float8 AS expiry_ms
       FROM targets t
       JOIN compliance_evidence_controls e ON e.tenant_id = $1 AND e.framework = t.framework AND e.control_id = t.control_id
       JOIN LATERAL (
         SELECT r.collected_at, r.expires_at FROM compliance_evidence_revisions r
         WHERE r.tenant_id = $1 AND r.item_id = e.item_id ORDER BY r.revision DESC LIMIT 1
       ) latest ON TRUE
       GROUP BY t.origin`,
      [tenantId, framework, controlId ?? null],
    );
    return rows.map((r) => ({
      controlId: r.origin,
      evidenceCount: Number(r.n),
      lastCollectedAt: r.last_ms === null ? null : new Date(Number(r.last_ms)),
      latestExpiry: r.expiry_ms === null ? null : new Date(Number(r.expiry_ms)),
    }));
  },

  async unrecorded(q, tenantId, limit) {
    const { rows } = await q.query<{ item_id: string; revision: number }>(
      `SELECT item_id::text AS item_id, revision FROM compliance_evidence_revisions
       WHERE tenant_id = $1 AND ledger_entry_id IS NULL ORDER BY collected_at LIMIT $2`,
      [tenantId, limit],
    );
    return rows.map((r) => ({ itemId: r.item_id, revision: Number(r.revision) }));
  },

  async tenantsWithUnrecorded(q, limit) {
    const { rows } = await q.query<{ tenant_id: string }>(
      `SELECT DISTINCT tenant_id FROM compliance_evidence_revisions WHERE ledger_entry_id IS NULL ORDER BY tenant_id LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.tenant_id);
  },
};

async function insertRevision(q: SqlQuery, tenantId: string, itemId: string, revision: number, r: NewRevision) {
  await q.query(
    `INSERT INTO compliance_evidence_revisions
       (tenant_id, item_id, revision, content, content_sha256, collected_at, expires_at, recorded_by)
     VALUES ($1, $2::uuid, $3, $4::jsonb, $5, $6, $7, $8)`,
    [tenantId, itemId, revision, JSON.stringify(r.content), r.contentSha256, r.collectedAt, r.expiresAt, r.recordedBy],
  );
}
