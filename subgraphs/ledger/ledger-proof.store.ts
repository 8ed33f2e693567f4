// The ledger's proof tables: Merkle tree nodes, signed checkpoints and the signing keys' public
// halves. Like ledger.store.ts, the only place these tables are read or written; every function
// that reads a tenant's rows takes its tenant id.
import type { SqlExecutor } from '../../platform/db/sql';
import type { NodeRef } from './merkle';

export interface Checkpoint {
  id: string;
  tenantId: string;
  treeSize: number;
  rootHash: string;
  timestamp: string;
  keyId: string;
  /** base64url Ed25519 signature of checkpointMessage (checkpoint.signer.ts). */
  signature: string;
}

export interface CheckpointKey {
  keyId: string;
  publicJwk: Record<string, unknown>;
  privatePem: string | null;
  createdAt: string;
  retiredAt: string | null;
}

export interface LedgerProofStore {
  /** Leaves' chain hashes (by leaf index, seq = index + 1) and stored subtrees' hashes, in one round trip. */
  treeNodes(
    tenantId: string,
    leafIndexes: number[],
    nodes: NodeRef[],
  ): Promise<{ leaves: Map<number, string>; nodes: Map<string, string> }>;
  /**
   * The leaves of seq `fromSeq`..`toSeq` in order (a range of the unique (tenant_id, seq) index,
   * never a list of keys): their chain hashes, and their entry ids when `withIds`.
   */
  leavesBetween(
    tenantId: string,
    fromSeq: number,
    toSeq: number,
    withIds: boolean,
  ): Promise<{ seqs: number[]; ids: string[]; chainHashes: string[] }>;
  /** Inserts a checkpoint unless one of that size exists; answers the stored one either way. */
  saveCheckpoint(checkpoint: Checkpoint): Promise<{ checkpoint: Checkpoint; created: boolean }>;
  latestCheckpoint(tenantId: string): Promise<Checkpoint | undefined>;
  checkpointOfSize(tenantId: string, treeSize: number): Promise<Checkpoint | undefined>;
  listCheckpoints(tenantId: string, limit: number): Promise<Checkpoint[]>;
  /** Tenants whose chain has grown past their last checkpoint (the timed checkpoint pass). */
  tenantsBehindCheckpoint(limit: number): Promise<{ tenantId: string; size: number }[]>;
  /** Chains written before the ledger kept a tree (GroupCommitter.catchUpTree builds theirs). */
  tenantsWithoutTree(): Promise<string[]>;
  keys(): Promise<CheckpointKey[]>;
  /** Records a key (ON CONFLICT keeps the first) and retires every other active key when `activate`. */
  saveKey(
    key: { keyId: string; publicJwk: Record<string, unknown>; privatePem: string | null },
    activate: boolean,
  ): Promise<void>;
}

interface CheckpointRecord {
  id: string;
  tenant_id: string;
  tree_size: number;
  root_hash: string;
  timestamp: string;
  key_id: string;
  signature: string;
}

const CHECKPOINT_COLUMNS =
  'id::text AS id, tenant_id, tree_size::float8 AS tree_size, root_hash, timestamp, key_id, signature';

const toCheckpoint = (r: CheckpointRecord): Checkpoint => ({
  id: r.id,
  tenantId: r.tenant_id,
  treeSize: Number(r.tree_size),
  rootHash: r.root_hash,
  timestamp: r.timestamp,
  keyId: r.key_id,
  signature: r.signature,
});

export const nodeKey = (level: number, index: number) => `${level}:${index}`;

export function createLedgerProofStore(sql: SqlExecutor): LedgerProofStore {
  return {
    async leavesBetween(tenantId, fromSeq, toSeq, withIds) {
      // Rows as arrays: a million leaves are a million rows, and named-field objects cost more to build.
      const res = await sql.query<{ seq: number; id: string | null; chain_hash: string }>(
        `SELECT seq::float8 AS seq, ${withIds ? 'id::text' : 'NULL::text'} AS id, chain_hash FROM ledger_events
          WHERE tenant_id = $1 AND seq BETWEEN $2 AND $3 ORDER BY ledger_events.seq`,
        [tenantId, fromSeq, toSeq],
      );
      const seqs: number[] = new Array(res.rows.length);
      const ids: string[] = withIds ? new Array(res.rows.length) : [];
      const chainHashes: string[] = new Array(res.rows.length);
      res.rows.forEach((r, i) => {
        seqs[i] = Number(r.seq);
        if (withIds) ids[i] = r.id!;
        chainHashes[i] = r.chain_hash;
      });
      return { seqs, ids, chainHashes };
    },

    async treeNodes(tenantId, leafIndexes, inner) {
      const leafSeqs = leafIndexes.map((i) => i + 1);
      // One round trip: the leaves' chain hashes and the stored nodes together.
      const res = await sql.query<{ level: number; idx: number; hash: string }>(
        `SELECT 0 AS level, (seq - 1)::float8 AS idx, chain_hash AS hash FROM ledger_events WHERE tenant_id = $1 AND seq = ANY($2::int8[])
         UNION ALL
         SELECT n.level::int AS level, n.node_index::float8 AS idx, n.hash FROM ledger_tree_nodes n
           JOIN unnest($3::int2[], $4::int8[]) AS w(level, node_index) ON n.level = w.level AND n.node_index = w.node_index
          WHERE n.tenant_id = $1`,
        [tenantId, leafSeqs, inner.map((r) => r.level), inner.map((r) => r.index)],
      );
      const leaves = new Map<number, string>();
      const nodes = new Map<string, string>();
      for (const r of res.rows) {
        if (Number(r.level) === 0) leaves.set(Number(r.idx), r.hash);
        else nodes.set(nodeKey(Number(r.level), Number(r.idx)), r.hash);
      }
      return { leaves, nodes };
    },

    async saveCheckpoint(c) {
      const res = await sql.query<CheckpointRecord>(
        `INSERT INTO ledger_checkpoints (id, tenant_id, tree_size, root_hash, timestamp, key_id, signature)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tenant_id, tree_size) DO NOTHING RETURNING ${CHECKPOINT_COLUMNS}`,
        [c.id, c.tenantId, c.treeSize, c.rootHash, c.timestamp, c.keyId, c.signature],
      );
      if (res.rows[0]) return { checkpoint: toCheckpoint(res.rows[0]), created: true };
      const existing = await this.checkpointOfSize(c.tenantId, c.treeSize);
      return { checkpoint: existing!, created: false };
    },

    async latestCheckpoint(tenantId) {
      const res = await sql.query<CheckpointRecord>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM ledger_checkpoints WHERE tenant_id = $1 ORDER BY ledger_checkpoints.tree_size DESC LIMIT 1`,
        [tenantId],
      );
      return res.rows[0] && toCheckpoint(res.rows[0]);
    },

    async checkpointOfSize(tenantId, treeSize) {
      const res = await sql.query<CheckpointRecord>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM ledger_checkpoints WHERE tenant_id = $1 AND tree_size = $2`,
        [tenantId, treeSize],
      );
      return res.rows[0] && toCheckpoint(res.rows[0]);
    },

    async listCheckpoints(tenantId, limit) {
      const res = await sql.query<CheckpointRecord>(
        `SELECT ${CHECKPOINT_COLUMNS} FROM ledger_checkpoints WHERE tenant_id = $1 ORDER BY ledger_checkpoints.tree_size DESC LIMIT $2`,
        [tenantId, limit],
      );
      return res.rows.map(toCheckpoint);
    },

    async tenantsBehindCheckpoint(limit) {
      const res = await sql.query<{ tenant_id: string; size: number }>(
        `SELECT h.tenant_id, h.last_seq::float8 AS size FROM ledger_chain_heads h
          WHERE h.last_seq > COALESCE((SELECT max(c.tree_size) FROM ledger_checkpoints c WHERE c.tenant_id = h.tenant_id), 0)
          ORDER BY h.tenant_id LIMIT $1`,
        [limit],
      );
      return res.rows.map((r) => ({ tenantId: r.tenant_id, size: Number(r.size) }));
    },

    async tenantsWithoutTree() {
      const res = await sql.query<{ tenant_id: string }>(
        `SELECT tenant_id FROM ledger_chain_heads WHERE last_seq > 0 AND tree_frontier = '' ORDER BY tenant_id`,
      );
      return res.rows.map((r) => r.tenant_id);
    },

    async keys() {
      const res = await sql.query<{
        key_id: string;
        public_jwk: Record<string, unknown> | string;
        private_pem: string | null;
        created_at: string;
        retired_at: string | null;
      }>(
        `SELECT key_id, public_jwk, private_pem, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS created_at,
                to_char(retired_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS retired_at
           FROM ledger_checkpoint_keys ORDER BY created_at, key_id`,
      );
      return res.rows.map((r) => ({
        keyId: r.key_id,
        publicJwk: typeof r.public_jwk === 'string' ? JSON.parse(r.public_jwk) : r.public_jwk,
        privatePem: r.private_pem,
        createdAt: r.created_at,
        retiredAt: r.retired_at,
      }));
    },

    async saveKey(key, activate) {
      await sql.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO ledger_checkpoint_keys (key_id, public_jwk, private_pem) VALUES ($1, $2::jsonb, $3) ON CONFLICT (key_id) DO UPDATE SET retired_at = NULL
            WHERE $4::boolean`,
          [key.keyId, JSON.stringify(key.publicJwk), key.privatePem, activate],
        );
        if (activate)
          await tx.query(
            'UPDATE ledger_checkpoint_keys SET retired_at = now() WHERE key_id <> $1 AND retired_at IS NULL',
            [key.keyId],
          );
      });
    },
  };
}
