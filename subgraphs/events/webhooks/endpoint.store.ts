// SQL of webhook endpoints, their secrets and the tenants' signing keys. Every function that
// reads tenant data takes the tenant id and filters by it, so one tenant's id never reaches
// another's endpoint.
import type { SqlQuery } from '../../../platform/db/sql';

export interface EndpointRow {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  topics: string[];
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  timeout_ms: number;
  max_concurrency: number;
  created_at: Date;
  updated_at: Date;
}

export interface EndpointFields {
  url: string;
  description: string | null;
  topics: string[];
  enabled: boolean;
  timeoutMs: number;
  maxConcurrency: number;
}

const COLUMNS = `id::text AS id, tenant_id, url, description, topics, enabled, disabled_reason, disabled_at,
  timeout_ms, max_concurrency, created_at, updated_at`;

export interface EndpointStore {
  insert(tenantId: string, id: string, fields: EndpointFields): Promise<EndpointRow>;
  get(tenantId: string, id: string): Promise<EndpointRow | null>;
  list(tenantId: string): Promise<EndpointRow[]>;
  update(tenantId: string, id: string, fields: EndpointFields): Promise<EndpointRow | null>;
  disable(tenantId: string, id: string, reason: string): Promise<void>;
  remove(tenantId: string, id: string): Promise<boolean>;

  insertSecret(tenantId: string, endpointId: string, id: string, secret: string): Promise<void>;
  /** Gives every still-current secret of the endpoint an end: `until`. */
  expireSecrets(tenantId: string, endpointId: string, until: Date): Promise<void>;
  /** Secrets that still sign, newest first. */
  liveSecrets(tenantId: string, endpointId: string): Promise<{ secret: string; expires_at: Date | null }[]>;

  insertSigningKey(tenantId: string, kid: string, privateKey: string): Promise<void>;
  expireSigningKeys(tenantId: string, until: Date): Promise<void>;
  /** Keys that still sign (and are published), newest first. */
  liveSigningKeys(tenantId: string): Promise<{ id: string; private_key: string; expires_at: Date | null }[]>;
}

export function createEndpointStore(q: SqlQuery): EndpointStore {
  return {
    async insert(tenantId, id, f) {
      const res = await q.query<EndpointRow>(
        `INSERT INTO webhook_endpoints (id, tenant_id, url, description, topics, enabled, timeout_ms, max_concurrency)
         VALUES ($1::uuid, $2, $3, $4, $5::text[], $6, $7, $8) RETURNING ${COLUMNS}`,
        [id, tenantId, f.url, f.description, f.topics, f.enabled, f.timeoutMs, f.maxConcurrency],
      );
      return res.rows[0]!;
    },
    async get(tenantId, id) {
      const res = await q.query<EndpointRow>(
        `SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id],
      );
      return res.rows[0] ?? null;
    },
    async list(tenantId) {
      const res = await q.query<EndpointRow>(
        `SELECT ${COLUMNS} FROM webhook_endpoints WHERE tenant_id = $1 ORDER BY created_at, id`,
        [tenantId],
      );
      return res.rows;
    },
    async update(tenantId, id, f) {
      // Enabling again clears why it was disabled.
      const res = await q.query<EndpointRow>(
        `UPDATE webhook_endpoints SET url = $3, description = $4, topics = $5::text[], enabled = $6, timeout_ms = $7,
           max_concurrency = $8, updated_at = now(),
           disabled_reason = CASE WHEN $6 THEN NULL ELSE disabled_reason END,
           disabled_at = CASE WHEN $6 THEN NULL ELSE COALESCE(disabled_at, now()) END
         WHERE tenant_id = $1 AND id = $2::uuid RETURNING ${COLUMNS}`,
        [tenantId, id, f.url, f.description, f.topics, f.enabled, f.timeoutMs, f.maxConcurrency],
      );
      return res.rows[0] ?? null;
    },
    async disable(tenantId, id, reason) {
      await q.query(
        `UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, disabled_at = now(), updated_at = now()
         WHERE tenant_id = $1 AND id = $2::uuid`,
        [tenantId, id, reason],
      );
    },
    async remove(tenantId, id) {
      await q.query('DELETE FROM webhook_secrets WHERE tenant_id = $1 AND endpoint_id = $2::uuid', [tenantId, id]);
      const res = await q.query('DELETE FROM webhook_endpoints WHERE tenant_id = $1 AND id = $2::uuid', [tenantId, id]);
      return res.rowCount > 0;
    },

    async insertSecret(tenantId, endpointId, id, secret) {
      await q.query(
        'INSERT INTO webhook_secrets (id, tenant_id, endpoint_id, secret) VALUES ($1::uuid, $2, $3::uuid, $4)',
        [id, tenantId, endpointId, secret],
      );
    },
    async expireSecrets(tenantId, endpointId, until) {
      await q.query(
        `UPDATE webhook_secrets SET expires_at = $3
         WHERE tenant_id = $1 AND endpoint_id = $2::uuid AND (expires_at IS NULL OR expires_at > $3)`,
        [tenantId, endpointId, until],
      );
    },
    async liveSecrets(tenantId, endpointId) {
      const res = await q.query<{ secret: string; expires_at: Date | null }>(
        `SELECT secret, expires_at FROM webhook_secrets
         WHERE tenant_id = $1 AND endpoint_id = $2::uuid AND (expires_at IS NULL OR expires_at > now())
         ORDER BY created_at DESC, id`,
        [tenantId, endpointId],
      );
      return res.rows;
    },

    async insertSigningKey(tenantId, kid, privateKey) {
      await q.query('INSERT INTO webhook_signing_keys (id, tenant_id, private_key) VALUES ($1, $2, $3)', [
        kid,
        tenantId,
        privateKey,
      ]);
    },
    async expireSigningKeys(tenantId, until) {
      await q.query(
        `UPDATE webhook_signing_keys SET expires_at = $2
         WHERE tenant_id = $1 AND (expires_at IS NULL OR expires_at > $2)`,
        [tenantId, until],
      );
    },
    async liveSigningKeys(tenantId) {
      const res = await q.query<{ id: string; private_key: string; expires_at: Date | null }>(
        `SELECT id, private_key, expires_at FROM webhook_signing_keys
         WHERE tenant_id = $1 AND (expires_at IS NULL OR expires_at > now()) ORDER BY created_at DESC, id`,
        [tenantId],
      );
      return res.rows;
    },
  };
}
