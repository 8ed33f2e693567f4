// ingestion_pipelines and ingestion_pipeline_versions: a pipeline is a name in a tenant, and
// every change of its definition is a new version (the old ones are kept: a batch names the
// version it ran). Every read takes the tenant first.
import { randomUUID } from 'node:crypto';
import type { SqlExecutor } from '../../platform/db/sql';
import type { OutboxWriter } from '../../platform/outbox/outbox.writer';
import { sqlOutboxWriter } from '../../platform/outbox/outbox.writer';
import type { AuditEventInput } from '../../platform/outbox/outbox.writer';
import type { Pipeline, PipelineDefinition, PipelineVersion, SourceKind } from './pipeline.types';

interface Row {
  id: string;
  tenant_id: string;
  name: string;
  source_kind: string;
  current_version: number;
  status: string;
  definition: PipelineDefinition | string;
  definition_sha256: string;
  created_by: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

const COLUMNS = `p.id::text, p.tenant_id, p.name, p.source_kind, p.current_version, p.status, v.definition, v.definition_sha256,
  p.created_by, p.created_at, p.updated_at`;
const FROM = `ingestion_pipelines p JOIN ingestion_pipeline_versions v ON v.pipeline_id = p.id AND v.version = p.current_version`;

const pipeline = (r: Row): Pipeline => ({
  id: r.id,
  tenantId: r.tenant_id,
  name: r.name,
  sourceKind: r.source_kind as SourceKind,
  version: r.current_version,
  status: r.status as Pipeline['status'],
  definition: json(r.definition),
  definitionSha256: r.definition_sha256,
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
  updatedAt: new Date(r.updated_at),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface PipelineStore {
  /** Creates version 1; null when the tenant already has a pipeline of that name. */
  create(
    tenantId: string,
    definition: PipelineDefinition,
    sha256: string,
    actor: string | null,
    audit: AuditEventInput,
  ): Promise<Pipeline | null>;
  /** Adds the next version; null when there is no such active pipeline. */
  addVersion(
    tenantId: string,
    id: string,
    definition: PipelineDefinition,
    sha256: string,
    actor: string | null,
    audit: AuditEventInput,
  ): Promise<Pipeline | null>;
  get(tenantId: string, id: string): Promise<Pipeline | null>;
  byIds(tenantId: string, ids: readonly string[]): Promise<Pipeline[]>;
  /** The tenant's active pipeline of that name (a file drop finds its pipeline by its directory). */
  byName(tenantId: string, name: string): Promise<Pipeline | null>;
  /** A stored version (the one a batch ran). */
  version(tenantId: string, id: string, version: number): Promise<PipelineVersion | null>;
  versions(tenantId: string, id: string): Promise<PipelineVersion[]>;
  list(tenantId: string, limit: number): Promise<Pipeline[]>;
  /** Marks it deleted (its batches, staged records and lineage stay); false when there was none. */
  remove(tenantId: string, id: string, audit: AuditEventInput): Promise<boolean>;
  /** The source's columns as the last completed batch had them. */
  sourceColumns(tenantId: string, id: string): Promise<string[] | null>;
  /**
   * The scheduler's one cross-tenant read: which active pipelines of these source kinds have a
   * schedule (tenant, id and interval only; their data is read per tenant afterwards).
   */
  scheduled(kinds: readonly SourceKind[], limit: number): Promise<ScheduledPipeline[]>;
  /**
   * The replication manager's cross-tenant read: pipelines of these kinds, active or deleted in the
   * last `deletedWithinDays` (a deleted one's slot is dropped), with tenant, id, version and status only.
   */
  ofKinds(kinds: readonly SourceKind[], deletedWithinDays: number, limit: number): Promise<PipelineRef[]>;
}

export interface PipelineRef {
  tenantId: string;
  id: string;
  version: number;
  status: Pipeline['status'];
}

export interface ScheduledPipeline {
  tenantId: string;
  id: string;
  version: number;
  intervalSeconds: number;
}

export function createPipelineStore(sql: SqlExecutor): PipelineStore {
  const outbox = (q: Parameters<typeof sqlOutboxWriter>[0]): OutboxWriter => sqlOutboxWriter(q, 'ingestion');
  const get = async (tenantId: string, id: string): Promise<Pipeline | null> => {
    if (!UUID.test(id)) return null;
    const res = await sql.query<Row>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.id = $2::uuid AND p.status = 'active'`,
      [tenantId, id],
    );
    return res.rows[0] ? pipeline(res.rows[0]) : null;
  };
  return {
    async create(tenantId, definition, sha256, actor, audit) {
      const id = randomUUID();
      return sql.transaction(async (q) => {
        // A deleted pipeline's name may be used again: the old row keeps its batches under a renamed name.
        await q.query(
          `UPDATE ingestion_pipelines SET name = name || '~deleted~' || id::text WHERE tenant_id = $1 AND name = $2 AND status = 'deleted'`,
          [tenantId, definition.name],
        );
        const inserted = await q.query(
          `INSERT INTO ingestion_pipelines (id, tenant_id, name, source_kind, current_version, created_by)
           VALUES ($1::uuid, $2, $3, $4, 1, $5) ON CONFLICT (tenant_id, name) DO NOTHING`,
          [id, tenantId, definition.name, definition.source.kind, actor],
        );
        if (inserted.rowCount === 0) return null;
        await q.query(
          `INSERT INTO ingestion_pipeline_versions (pipeline_id, version, tenant_id, definition, definition_sha256, created_by)
           VALUES ($1::uuid, 1, $2, $3::jsonb, $4, $5)`,
          [id, tenantId, JSON.stringify(definition), sha256, actor],
        );
        await outbox(q).append(audit);
        const res = await q.query<Row>(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.id = $2::uuid`, [
          tenantId,
          id,
        ]);
        return pipeline(res.rows[0]!);
      });
    },

    async addVersion(tenantId, id, definition, sha256, actor, audit) {
      if (!UUID.test(id)) return null;
      return sql.transaction(async (q) => {
        const bumped = await q.query<{ current_version: number }>(
          `UPDATE ingestion_pipelines SET current_version = current_version + 1, source_kind = $3, source_columns = NULL, updated_at = now()
           WHERE tenant_id = $1 AND id = $2::uuid AND status = 'active' RETURNING current_version`,
          [tenantId, id, definition.source.kind],
        );
        const version = bumped.rows[0]?.current_version;
        if (version === undefined) return null;
        await q.query(
          `INSERT INTO ingestion_pipeline_versions (pipeline_id, version, tenant_id, definition, definition_sha256, created_by)
           VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6)`,
          [id, version, tenantId, JSON.stringify(definition), sha256, actor],
        );
        await outbox(q).append(audit);
        const res = await q.query<Row>(`SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.id = $2::uuid`, [
          tenantId,
          id,
        ]);
        return pipeline(res.rows[0]!);
      });
    },

    get,

    async byIds(tenantId, ids) {
      const valid = ids.filter((i) => UUID.test(i));
      if (valid.length === 0) return [];
      const res = await sql.query<Row>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.id = ANY($2::uuid[]) AND p.status = 'active'`,
        [tenantId, valid],
      );
      return res.rows.map(pipeline);
    },

    async byName(tenantId, name) {
      const res = await sql.query<Row>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.name = $2 AND p.status = 'active'`,
        [tenantId, name],
      );
      return res.rows[0] ? pipeline(res.rows[0]) : null;
    },

    async version(tenantId, id, version) {
      if (!UUID.test(id)) return null;
      const res = await sql.query<Row & { version: number }>(
        `SELECT version, definition, definition_sha256, created_by, created_at FROM ingestion_pipeline_versions
         WHERE tenant_id = $1 AND pipeline_id = $2::uuid AND version = $3`,
        [tenantId, id, version],
      );
      const r = res.rows[0];
      return r
        ? {
            version: r.version,
            definition: json(r.definition),
            definitionSha256: r.definition_sha256,
            createdBy: r.created_by,
            createdAt: new Date(r.created_at),
          }
        : null;
    },

    async versions(tenantId, id) {
      if (!UUID.test(id)) return [];
      const res = await sql.query<Row & { version: number }>(
        `SELECT v.version, v.definition, v.definition_sha256, v.created_by, v.created_at FROM ingestion_pipeline_versions v
         JOIN ingestion_pipelines p ON p.id = v.pipeline_id AND p.status = 'active'
         WHERE v.tenant_id = $1 AND v.pipeline_id = $2::uuid ORDER BY v.version`,
        [tenantId, id],
      );
      return res.rows.map((r) => ({
        version: r.version,
        definition: json(r.definition),
        definitionSha256: r.definition_sha256,
        createdBy: r.created_by,
        createdAt: new Date(r.created_at),
      }));
    },

    async list(tenantId, limit) {
      const res = await sql.query<Row>(
        `SELECT ${COLUMNS} FROM ${FROM} WHERE p.tenant_id = $1 AND p.status = 'active' ORDER BY p.name LIMIT $2`,
        [tenantId, limit],
      );
      return res.rows.map(pipeline);
    },

    async remove(tenantId, id, audit) {
      if (!UUID.test(id)) return false;
      return sql.transaction(async (q) => {
        const res = await q.query(
          `UPDATE ingestion_pipelines SET status = 'deleted', updated_at = now() WHERE tenant_id = $1 AND id = $2::uuid AND status = 'active'`,
          [tenantId, id],
        );
        if (res.rowCount === 0) return false;
        await outbox(q).append(audit);
        return true;
      });
    },

    async sourceColumns(tenantId, id) {
      const res = await sql.query<{ source_columns: string[] | string | null }>(
        `SELECT source_columns FROM ingestion_pipelines WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      const v = res.rows[0]?.source_columns;
      return v === null || v === undefined ? null : json(v);
    },

    async ofKinds(kinds, deletedWithinDays, limit) {
      const res = await sql.query<{ tenant_id: string; id: string; version: number; status: string }>(
        `SELECT tenant_id, id::text, current_version AS version, status FROM ingestion_pipelines
         WHERE source_kind = ANY($1::text[])
           AND (status = 'active' OR updated_at > now() - make_interval(days => $2::int))
         ORDER BY created_at LIMIT $3`,
        [kinds, deletedWithinDays, limit],
      );
      return res.rows.map((r) => ({
        tenantId: r.tenant_id,
        id: r.id,
        version: r.version,
        status: r.status as Pipeline['status'],
      }));
    },

    async scheduled(kinds, limit) {
      const res = await sql.query<{ tenant_id: string; id: string; version: number; interval: number | string }>(
        `SELECT p.tenant_id, p.id::text, p.current_version AS version,
                (v.definition->'schedule'->>'interval_seconds')::int AS interval
         FROM ${FROM}
         WHERE p.status = 'active' AND p.source_kind = ANY($1::text[])
           AND v.definition->'schedule'->>'interval_seconds' IS NOT NULL
         ORDER BY p.created_at LIMIT $2`,
        [kinds, limit],
      );
      return res.rows.map((r) => ({
        tenantId: r.tenant_id,
        id: r.id,
        version: r.version,
        intervalSeconds: Number(r.interval),
      }));
    },
  };
}
