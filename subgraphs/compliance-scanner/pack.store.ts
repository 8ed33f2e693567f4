// The only code that reads and writes scanner packs and the keys that sign them. Packs are per
// tenant (tenant id first in every read); the signing keys are the service's own, as the
// rule-pack registry's and the compliance service's are (its SigningKeyStore contract).
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import type { SigningKeyRecord, SigningKeyStore } from '../rulepack-registry/rulepack-registry.types';
import type { ScannerPackDocument } from '../../platform/contracts/scanner-pack.schema';
import type { ScannerPack, ScannerPackStatus } from './scanner.types';

interface PackRow {
  tenant_id: string;
  pack_id: string;
  version: string;
  status: string;
  pack: string;
  sha256: string;
  author: string;
  submitted_ms: number;
  certified_by: string | null;
  certified_ms: number | null;
  signature: string | null;
  key_id: string | null;
}

const PACK_COLUMNS = `tenant_id, pack_id, version, status, pack::text AS pack, sha256, author,
  (extract(epoch FROM submitted_at) * 1000)::float8 AS submitted_ms, certified_by,
  (extract(epoch FROM certified_at) * 1000)::float8 AS certified_ms, signature, key_id`;

function toPack(r: PackRow): ScannerPack {
  return {
    tenantId: r.tenant_id,
    packId: r.pack_id,
    version: r.version,
    status: r.status as ScannerPackStatus,
    pack: JSON.parse(r.pack) as ScannerPackDocument,
    sha256: r.sha256.trim(),
    author: r.author,
    submittedAt: new Date(Number(r.submitted_ms)),
    certifiedBy: r.certified_by,
    certifiedAt: r.certified_ms === null ? null : new Date(Number(r.certified_ms)),
    signature: r.signature,
    keyId: r.key_id,
  };
}

export interface ScannerPackStore {
  /** False when the tenant has this pack version already (nothing written). */
  insert(
    q: SqlQuery,
    tenantId: string,
    p: { canonical: string; sha256: string; author: string; packId: string; version: string },
  ): Promise<boolean>;
  get(q: SqlQuery, tenantId: string, packId: string, version: string): Promise<ScannerPack | null>;
  list(q: SqlQuery, tenantId: string, status?: ScannerPackStatus): Promise<ScannerPack[]>;
  /** Certifies a draft; false when it is no longer a draft (another reviewer was first). */
  certify(
    q: SqlQuery,
    tenantId: string,
    packId: string,
    version: string,
    by: string,
    signature: string,
    keyId: string,
  ): Promise<boolean>;
}

export const scannerPackStore: ScannerPackStore = {
  async insert(q, tenantId, p) {
    const r = await q.query(
      `INSERT INTO scanner_packs (tenant_id, pack_id, version, status, pack, sha256, author)
       VALUES ($1, $2, $3, 'draft', $4::json, $5, $6) ON CONFLICT (tenant_id, pack_id, version) DO NOTHING RETURNING pack_id`,
      [tenantId, p.packId, p.version, p.canonical, p.sha256, p.author],
    );
    return r.rows.length > 0;
  },

  async get(q, tenantId, packId, version) {
    const { rows } = await q.query<PackRow>(
      `SELECT ${PACK_COLUMNS} FROM scanner_packs WHERE tenant_id = $1 AND pack_id = $2 AND version = $3`,
      [tenantId, packId, version],
    );
    return rows[0] ? toPack(rows[0]) : null;
  },

  async list(q, tenantId, status) {
    const { rows } = await q.query<PackRow>(
      `SELECT ${PACK_COLUMNS} FROM scanner_packs WHERE tenant_id = $1 AND ($2::text IS NULL OR status = $2)
       ORDER BY pack_id, submitted_at, version`,
      [tenantId, status ?? null],
    );
    return rows.map(toPack);
  },

  async certify(q, tenantId, packId, version, by, signature, keyId) {
    const r = await q.query(
      `UPDATE scanner_packs SET status = 'certified', certified_by = $4, certified_at = now(), signature = $5, key_id = $6
       WHERE tenant_id = $1 AND pack_id = $2 AND version = $3 AND status = 'draft' RETURNING pack_id`,
      [tenantId, packId, version, by, signature, keyId],
    );
    return r.rows.length > 0;
  },
};

interface KeyRow {
  kid: string;
  public_key_x: string;
  private_key_pem: string | null;
  slot: string | null;
  created_ms: number;
  retired_ms: number | null;
}

const KEY_COLUMNS = `kid, public_key_x, private_key_pem, slot, (extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
  (extract(epoch FROM retired_at) * 1000)::float8 AS retired_ms`;

function toKey(r: KeyRow): SigningKeyRecord {
  return {
    kid: r.kid,
    publicKeyX: r.public_key_x,
    privateKeyPem: r.private_key_pem,
    active: r.slot === 'active',
    createdAt: new Date(Number(r.created_ms)),
    retiredAt: r.retired_ms === null ? null : new Date(Number(r.retired_ms)),
  };
}

/** The signing keys of scanner packs. Not tenant data: one key set for the service, published to all. */
export function scannerPackKeyStore(q: SqlExecutor): SigningKeyStore {
  return {
    async active() {
      const { rows } = await q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM scanner_signing_keys WHERE slot = 'active'`);
      return rows[0] ? toKey(rows[0]) : null;
    },
    async all() {
      const { rows } = await q.query<KeyRow>(
        `SELECT ${KEY_COLUMNS} FROM scanner_signing_keys ORDER BY created_at, kid`,
      );
      return rows.map(toKey);
    },
    async insertActiveIfNone(key) {
      await q.query(
        `INSERT INTO scanner_signing_keys (kid, public_key_x, private_key_pem, slot) VALUES ($1, $2, $3, 'active')
         ON CONFLICT DO NOTHING`,
        [key.kid, key.publicKeyX, key.privateKeyPem],
      );
    },
    async activate(key) {
      await q.transaction(async (t) => {
        await t.query(
          `UPDATE scanner_signing_keys SET slot = NULL, retired_at = now() WHERE slot = 'active' AND kid <> $1`,
          [key.kid],
        );
        await t.query(
          `INSERT INTO scanner_signing_keys (kid, public_key_x, private_key_pem, slot) VALUES ($1, $2, $3, 'active')
           ON CONFLICT (kid) DO UPDATE SET slot = 'active', retired_at = NULL, private_key_pem = EXCLUDED.private_key_pem`,
          [key.kid, key.publicKeyX, key.privateKeyPem],
        );
      });
    },
    async retire(kid) {
      await q.query(
        `UPDATE scanner_signing_keys SET slot = NULL, retired_at = now() WHERE kid = $1 AND slot = 'active'`,
        [kid],
      );
    },
  };
}
