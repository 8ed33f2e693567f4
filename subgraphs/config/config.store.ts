// The only code that touches the config tables (raw SQL, platform/db/sql.ts, on PGlite and
// PostgreSQL alike). Reads of tenant data take the tenant first: a tenant id, or OPERATOR_VIEW
// for a platform operator, who sees every layer. Writes run inside the caller's transaction, so a
// change, its audit event and its notice commit together or not at all.
import type { SqlQuery } from '../../platform/db/sql';
import type { Bundle, Change, ChangeNotice, HashBy, Layer, Rollout, RolloutStatus, Target } from './config.types';

/** What an operator reads with: every tenant's rows and the operator layers. */
export const OPERATOR_VIEW = Symbol('operator-view');
export type Viewer = string | typeof OPERATOR_VIEW;

interface BundleRow {
  id: string;
  tenant_id: string | null;
  layer: string;
  scope: string;
  namespace: string;
  version: number;
  content: Record<string, unknown>;
  sha256: string;
  schema_version: string | null;
  author: string;
  created_ms: number;
}

interface ChangeRow {
  seq: string | number;
  tenant_id: string | null;
  layer: string;
  scope: string;
  namespace: string;
  bundle_id: string;
  previous_bundle_id: string | null;
  percentage: number;
  hash_by: string;
  kind: string;
  rollout_id: string | null;
  actor: string;
  approved_by: string | null;
  signature: string;
  key_id: string;
  at_ms: number;
}

interface RolloutRow {
  id: string;
  tenant_id: string | null;
  bundle_id: string;
  percentage: number;
  hash_by: string;
  status: string;
  requested_by: string;
  approved_by: string | null;
  workflow_id: string | null;
  approval_task_id: string | null;
  scheduled_ms: number | null;
  change_seq: string | number | null;
  created_ms: number;
  updated_ms: number;
}

const BUNDLE_COLUMNS = `id::text AS id, tenant_id, layer, scope, namespace, version, content, sha256, schema_version, author,
  (extract(epoch FROM created_at) * 1000)::float8 AS created_ms`;
// CHANGE_COLUMNS renders `seq` (bigint) as text, and an unqualified `ORDER BY seq` names that text output column, not the table's bigint: "9"
// sorted after "10", so from the tenth change on the newest change looked older than the ninth
// and the service stopped moving its in-memory view on (the benchmark's stalled promotion).
// Every order by position therefore names the table's column: CHANGE_ORDER.
const CHANGE_ORDER = 'config_changes.seq';
const CHANGE_COLUMNS = `seq::text AS seq, tenant_id, layer, scope, namespace, bundle_id::text AS bundle_id,
  previous_bundle_id::text AS previous_bundle_id, percentage, hash_by, kind, rollout_id::text AS rollout_id, actor,
  approved_by, signature, key_id, (extract(epoch FROM at) * 1000)::float8 AS at_ms`;
const ROLLOUT_COLUMNS = `id::text AS id, tenant_id, bundle_id::text AS bundle_id, percentage, hash_by, status, requested_by,
  approved_by, workflow_id, approval_task_id, (extract(epoch FROM scheduled_at) * 1000)::float8 AS scheduled_ms,
  change_seq::text AS change_seq, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
  (extract(epoch FROM updated_at) * 1000)::float8 AS updated_ms`;

const toBundle = (r: BundleRow): Bundle => ({
  id: r.id,
  tenantId: r.tenant_id,
  layer: r.layer as Layer,
  scope: r.scope,
  namespace: r.namespace,
  version: r.version,
  content: typeof r.content === 'string' ? (JSON.parse(r.content) as Record<string, unknown>) : r.content,
  sha256: r.sha256,
  schemaVersion: r.schema_version,
  author: r.author,
  createdAt: new Date(r.created_ms),
});

const toChange = (r: ChangeRow): Change => ({
  seq: Number(r.seq),
  tenantId: r.tenant_id,
  layer: r.layer as Layer,
  scope: r.scope,
  namespace: r.namespace,
  bundleId: r.bundle_id,
  previousBundleId: r.previous_bundle_id,
  percentage: r.percentage,
  hashBy: r.hash_by as HashBy,
  kind: r.kind as Change['kind'],
  rolloutId: r.rollout_id,
  actor: r.actor,
  approvedBy: r.approved_by,
  signature: r.signature,
  keyId: r.key_id,
  at: new Date(r.at_ms),
});

const toRollout = (r: RolloutRow): Rollout => ({
  id: r.id,
  tenantId: r.tenant_id,
  bundleId: r.bundle_id,
  percentage: r.percentage,
  hashBy: r.hash_by as HashBy,
  status: r.status as RolloutStatus,
  requestedBy: r.requested_by,
  approvedBy: r.approved_by,
  workflowId: r.workflow_id,
  approvalTaskId: r.approval_task_id,
  scheduledAt: r.scheduled_ms === null ? null : new Date(r.scheduled_ms),
  changeSeq: r.change_seq === null ? null : Number(r.change_seq),
  createdAt: new Date(r.created_ms),
  updatedAt: new Date(r.updated_ms),
});

/** `tenant_id = $n` for a tenant, nothing for an operator. */
function visible(viewer: Viewer, params: unknown[]): string {
  if (viewer === OPERATOR_VIEW) return 'TRUE';
  params.push(viewer);
  return `tenant_id = $${params.length}`;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Ids that are not UUIDs are simply not found (never a cast error from the database). */
const uuids = (ids: readonly string[]) => ids.filter((id) => UUID.test(id));

export function createConfigStore(q: SqlQuery) {
  return {
    async bundles(viewer: Viewer, ids: readonly string[]): Promise<Bundle[]> {
      const wanted = uuids(ids);
      if (wanted.length === 0) return [];
      const params: unknown[] = [wanted];
      const { rows } = await q.query<BundleRow>(
        `SELECT ${BUNDLE_COLUMNS} FROM config_bundles WHERE id = ANY($1::uuid[]) AND ${visible(viewer, params)}`,
        params,
      );
      return rows.map(toBundle);
    },

    async bundleVersions(viewer: Viewer, target: Target): Promise<Bundle[]> {
      const params: unknown[] = [target.layer, target.scope, target.namespace];
      const { rows } = await q.query<BundleRow>(
        `SELECT ${BUNDLE_COLUMNS} FROM config_bundles WHERE layer = $1 AND scope = $2 AND namespace = $3
           AND ${visible(viewer, params)} ORDER BY version`,
        params,
      );
      return rows.map(toBundle);
    },

    /** The newest bundles the viewer may see (the console's list), newest first. */
    async recentBundles(viewer: Viewer, limit: number): Promise<Bundle[]> {
      const params: unknown[] = [limit];
      const { rows } = await q.query<BundleRow>(
        `SELECT ${BUNDLE_COLUMNS} FROM config_bundles WHERE ${visible(viewer, params)}
          ORDER BY created_at DESC, version DESC LIMIT $1`,
        params,
      );
      return rows.map(toBundle);
    },

    /** Serialises writers of one target for the rest of the transaction (versions are dense). */
    async lockTarget(target: Target): Promise<void> {
      await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `config:${target.layer}:${target.scope}:${target.namespace}`,
      ]);
    },

    async bundleBySha(target: Target, sha256: string): Promise<Bundle | null> {
      const { rows } = await q.query<BundleRow>(
        `SELECT ${BUNDLE_COLUMNS} FROM config_bundles WHERE layer = $1 AND scope = $2 AND namespace = $3 AND sha256 = $4`,
        [target.layer, target.scope, target.namespace, sha256],
      );
      return rows[0] ? toBundle(rows[0]) : null;
    },

    async insertBundle(b: Omit<Bundle, 'version' | 'createdAt'>): Promise<Bundle> {
      const { rows } = await q.query<BundleRow>(
        `INSERT INTO config_bundles (id, tenant_id, layer, scope, namespace, version, content, sha256, schema_version, author)
         SELECT $1::uuid, $2::text, $3::text, $4::text, $5::text, COALESCE(MAX(version), 0) + 1, $6::jsonb, $7::text, $8::text, $9::text
           FROM config_bundles WHERE layer = $3::text AND scope = $4::text AND namespace = $5::text
         RETURNING ${BUNDLE_COLUMNS}`,
        [
          b.id,
          b.tenantId,
          b.layer,
          b.scope,
          b.namespace,
          JSON.stringify(b.content),
          b.sha256,
          b.schemaVersion,
          b.author,
        ],
      );
      return toBundle(rows[0]!);
    },

    /**
     * The change in force for each target at `asOf` (a seq, a time, or now): the newest change of
     * each (layer, scope, namespace) among `targets` ([layer, scope] pairs, every namespace).
     */
    async changesInForce(
      targets: readonly { layer: Layer; scope: string }[],
      asOf: { seq?: number; at?: Date } = {},
    ): Promise<Change[]> {
      if (targets.length === 0) return [];
      const { rows } = await q.query<ChangeRow>(
        `SELECT DISTINCT ON (layer, scope, namespace) ${CHANGE_COLUMNS}
           FROM config_changes
          WHERE (layer, scope) IN (SELECT * FROM unnest($1::text[], $2::text[]))
            AND ($3::bigint IS NULL OR ${CHANGE_ORDER} <= $3::bigint)
            AND ($4::timestamptz IS NULL OR at <= $4::timestamptz)
          ORDER BY layer, scope, namespace, ${CHANGE_ORDER} DESC`,
        [targets.map((t) => t.layer), targets.map((t) => t.scope), asOf.seq ?? null, asOf.at?.toISOString() ?? null],
      );
      return rows.map(toChange);
    },

    /** Every target's change in force now (the service's in-memory copy is built from it). */
    async allInForce(): Promise<Change[]> {
      const { rows } = await q.query<ChangeRow>(
        `SELECT DISTINCT ON (layer, scope, namespace) ${CHANGE_COLUMNS} FROM config_changes
          ORDER BY layer, scope, namespace, ${CHANGE_ORDER} DESC`,
      );
      return rows.map(toChange);
    },

    async latestChange(target: Target): Promise<Change | null> {
      const { rows } = await q.query<ChangeRow>(
        `SELECT ${CHANGE_COLUMNS} FROM config_changes WHERE layer = $1 AND scope = $2 AND namespace = $3
          ORDER BY ${CHANGE_ORDER} DESC LIMIT 1`,
        [target.layer, target.scope, target.namespace],
      );
      return rows[0] ? toChange(rows[0]) : null;
    },

    async changes(viewer: Viewer, target: Target): Promise<Change[]> {
      const params: unknown[] = [target.layer, target.scope, target.namespace];
      const { rows } = await q.query<ChangeRow>(
        `SELECT ${CHANGE_COLUMNS} FROM config_changes WHERE layer = $1 AND scope = $2 AND namespace = $3
           AND ${visible(viewer, params)} ORDER BY ${CHANGE_ORDER}`,
        params,
      );
      return rows.map(toChange);
    },

    async insertChange(c: Omit<Change, 'seq' | 'at'>): Promise<Change> {
      const { rows } = await q.query<ChangeRow>(
        `INSERT INTO config_changes (tenant_id, layer, scope, namespace, bundle_id, previous_bundle_id, percentage, hash_by,
           kind, rollout_id, actor, approved_by, signature, key_id)
         VALUES ($1, $2, $3, $4, $5::uuid, $6::uuid, $7, $8, $9, $10::uuid, $11, $12, $13, $14)
         RETURNING ${CHANGE_COLUMNS}`,
        [
          c.tenantId,
          c.layer,
          c.scope,
          c.namespace,
          c.bundleId,
          c.previousBundleId,
          c.percentage,
          c.hashBy,
          c.kind,
          c.rolloutId,
          c.actor,
          c.approvedBy,
          c.signature,
          c.keyId,
        ],
      );
      return toChange(rows[0]!);
    },

    async rollout(viewer: Viewer, id: string): Promise<Rollout | null> {
      if (uuids([id]).length === 0) return null;
      const params: unknown[] = [id];
      const { rows } = await q.query<RolloutRow>(
        `SELECT ${ROLLOUT_COLUMNS} FROM config_rollouts WHERE id = $1::uuid AND ${visible(viewer, params)}`,
        params,
      );
      return rows[0] ? toRollout(rows[0]) : null;
    },

    /** The rollout locked for this transaction (its status moves once). */
    async lockRollout(id: string): Promise<Rollout | null> {
      const { rows } = await q.query<RolloutRow>(
        `SELECT ${ROLLOUT_COLUMNS} FROM config_rollouts WHERE id = $1::uuid FOR UPDATE`,
        [id],
      );
      return rows[0] ? toRollout(rows[0]) : null;
    },

    async insertRollout(r: Omit<Rollout, 'createdAt' | 'updatedAt' | 'changeSeq' | 'approvedBy'>): Promise<Rollout> {
      const { rows } = await q.query<RolloutRow>(
        `INSERT INTO config_rollouts (id, tenant_id, bundle_id, percentage, hash_by, status, requested_by, workflow_id,
           approval_task_id, scheduled_at)
         VALUES ($1::uuid, $2, $3::uuid, $4, $5, $6, $7, $8, $9, $10::timestamptz)
         RETURNING ${ROLLOUT_COLUMNS}`,
        [
          r.id,
          r.tenantId,
          r.bundleId,
          r.percentage,
          r.hashBy,
          r.status,
          r.requestedBy,
          r.workflowId,
          r.approvalTaskId,
          r.scheduledAt?.toISOString() ?? null,
        ],
      );
      return toRollout(rows[0]!);
    },

    async updateRollout(
      id: string,
      set: { status: RolloutStatus; approvedBy?: string | null; changeSeq?: number | null },
    ): Promise<void> {
      await q.query(
        `UPDATE config_rollouts SET status = $2, approved_by = COALESCE($3, approved_by),
           change_seq = COALESCE($4::bigint, change_seq), updated_at = now() WHERE id = $1::uuid`,
        [id, set.status, set.approvedBy ?? null, set.changeSeq ?? null],
      );
    },

    /** The newest rollouts the viewer may see, in any state, newest first. */
    async recentRollouts(viewer: Viewer, limit: number): Promise<Rollout[]> {
      const params: unknown[] = [limit];
      const { rows } = await q.query<RolloutRow>(
        `SELECT ${ROLLOUT_COLUMNS} FROM config_rollouts WHERE ${visible(viewer, params)}
          ORDER BY created_at DESC LIMIT $1`,
        params,
      );
      return rows.map(toRollout);
    },

    /**
     * Changes after `after` that may touch the tenant's effective configuration: its own layer's
     * and the operator layers' (tenant_id null), in order, with the bundle's version and hash.
     */
    async changesAfter(tenantId: string, after: number, limit: number): Promise<ChangeNotice[]> {
      const { rows } = await q.query<ChangeRow & { version: number; sha256: string }>(
        `SELECT c.seq::text AS seq, c.tenant_id, c.layer, c.scope, c.namespace, c.bundle_id::text AS bundle_id,
                c.previous_bundle_id::text AS previous_bundle_id, c.percentage, c.hash_by, c.kind,
                c.rollout_id::text AS rollout_id, c.actor, c.approved_by, c.signature, c.key_id,
                (extract(epoch FROM c.at) * 1000)::float8 AS at_ms, b.version, b.sha256
           FROM config_changes c JOIN config_bundles b ON b.id = c.bundle_id
          WHERE c.seq > $2::bigint AND (c.tenant_id = $1 OR c.tenant_id IS NULL)
          ORDER BY c.seq LIMIT $3`,
        [tenantId, after, limit],
      );
      return rows.map((r) => ({ ...toChange(r), version: r.version, sha256: r.sha256 }));
    },

    /** The change log's last position (0 when empty): where a live-only subscription starts. */
    async headSeq(): Promise<number> {
      const { rows } = await q.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM config_changes');
      return Number(rows[0]?.seq ?? 0);
    },

    /** Rollouts waiting on an approval or a time (the service's poller). */
    async openRollouts(limit = 100): Promise<Rollout[]> {
      const { rows } = await q.query<RolloutRow>(
        `SELECT ${ROLLOUT_COLUMNS} FROM config_rollouts WHERE status IN ('pending_approval', 'scheduled')
          ORDER BY created_at LIMIT $1`,
        [limit],
      );
      return rows.map(toRollout);
    },

    async signingKey(): Promise<{ kid: string; privatePem: string } | null> {
      const { rows } = await q.query<{ kid: string; private_pem: string }>(
        'SELECT kid, private_pem FROM config_signing_keys ORDER BY created_at DESC LIMIT 1',
      );
      return rows[0] ? { kid: rows[0].kid, privatePem: rows[0].private_pem } : null;
    },

    async publicKeys(): Promise<Record<string, unknown>[]> {
      const { rows } = await q.query<{ public_jwk: Record<string, unknown> | string }>(
        'SELECT public_jwk FROM config_signing_keys ORDER BY created_at',
      );
      return rows.map((r) => (typeof r.public_jwk === 'string' ? JSON.parse(r.public_jwk) : r.public_jwk));
    },

    async insertSigningKey(kid: string, privatePem: string, publicJwk: Record<string, unknown>): Promise<void> {
      await q.query(
        `INSERT INTO config_signing_keys (kid, private_pem, public_jwk) VALUES ($1, $2, $3::jsonb) ON CONFLICT DO NOTHING`,
        [kid, privatePem, JSON.stringify(publicJwk)],
      );
    },
  };
}

export type ConfigStore = ReturnType<typeof createConfigStore>;
