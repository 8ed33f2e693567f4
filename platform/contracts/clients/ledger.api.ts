// The ledger service's API as other services call it, in wire names: the request and
// response types of platform/clients/ledger.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface LedgerAppendRequest {
  tenant_id: string;
  event_type: string;
  event_data: Record<string, unknown>;
  user_id?: string | null;
  correlation_id?: string | null;
  description?: string | null;
  /** Unique per tenant: the ledger returns the original event for a repeated key. */
  idempotency_key?: string | null;
}

export interface LedgerAppendResponse {
  id: string;
  chain_hash: string;
  /** ISO 8601, microseconds, +00:00: the exact text hashed into content_hash. */
  created_at: string;
}

/** GET /v1/ledger/proofs/inclusion: an entry, its RFC 9162 audit path and the signed checkpoint it is proved against. */
export interface LedgerInclusionProof {
  type: 'inclusion';
  tenant_id: string;
  leaf_index: number;
  tree_size: number;
  entry: { id: string; event_type: string; event_data: Record<string, unknown>; chain_hash: string } & Record<
    string,
    unknown
  >;
  audit_path: string[];
  checkpoint: Record<string, unknown>;
}

/** POST /v1/ledger/proofs/inclusion/batch: up to 1,000 entries' audit paths against one signed checkpoint. */
export interface LedgerInclusionBatchRequest {
  tenant_id?: string;
  entry_ids: string[];
  tree_size: number;
}

export interface LedgerInclusionBatch {
  type: 'inclusion_batch';
  tenant_id: string;
  tree_size: number;
  checkpoint: Record<string, unknown>;
  /** Each with the batch's checkpoint is a `LedgerInclusionProof` (`inclusionOf`). */
  proofs: Pick<LedgerInclusionProof, 'leaf_index' | 'entry' | 'audit_path'>[];
  /** Ids that are not entries of the tenant's log within the tree (another tenant's included). */
  not_found: string[];
}

/**
 * A line of POST /v1/ledger/proofs/inclusion/stream: a batch whose audit paths are indices into
 * `nodes`, the batch's distinct path nodes written once (consecutive entries share most of their
 * paths, which the batch route's form repeats in every proof). `expandIndexedBatch` gives the
 * batch route's form back.
 */
export interface LedgerIndexedInclusionBatch extends Omit<LedgerInclusionBatch, 'proofs'> {
  nodes: string[];
  proofs: (Pick<LedgerInclusionProof, 'leaf_index' | 'entry'> & { path: number[] })[];
}

/** The batch route's form of a stream line (each proof's audit path spelt out). */
export function expandIndexedBatch(line: LedgerIndexedInclusionBatch): LedgerInclusionBatch {
  const { nodes, proofs, ...rest } = line;
  return {
    ...rest,
    proofs: proofs.map(({ path, ...p }) => ({
      ...p,
      audit_path: path.map((i) => {
        const node = nodes[i];
        if (node === undefined) throw new RangeError(`path index ${i} outside the line's ${nodes.length} nodes`);
        return node;
      }),
    })),
  };
}
