// The ledger's proof routes (docs/ledger.md, "Proofs"): thin adapters over
// subgraphs/ledger/ledger-proof.service.ts. Their answers are what the standalone verifier
// (verifier/verify-proof.cjs) reads, so an auditor can save them and check them offline.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { CHECKPOINT_FORMAT } from '../../subgraphs/ledger/checkpoint.signer';
import type { Checkpoint } from '../../subgraphs/ledger/ledger-proof.store';
import type {
  ConsistencyProof,
  InclusionProof,
  InclusionProofBatch,
  LedgerProofService,
} from '../../subgraphs/ledger/ledger-proof.service';
import { eventJson } from './ledger-event.view';
import {
  CheckpointBody,
  CheckpointListQuery,
  CheckpointSchema,
  ConsistencyQuery,
  ConsistencyResponse,
  InclusionBatchBody,
  InclusionBatchResponse,
  InclusionQuery,
  InclusionResponse,
  JwksResponse,
  proofResponses,
} from './ledger.schemas';
import { Type } from '@sinclair/typebox';

export function checkpointJson(c: Checkpoint) {
  return {
    format: CHECKPOINT_FORMAT,
    id: c.id,
    tenant_id: c.tenantId,
    tree_size: c.treeSize,
    root_hash: c.rootHash,
    timestamp: c.timestamp,
    key_id: c.keyId,
    signature: c.signature,
  };
}

export function inclusionJson(p: InclusionProof) {
  return {
    type: 'inclusion' as const,
    tenant_id: p.tenantId,
    leaf_index: p.leafIndex,
    tree_size: p.treeSize,
    entry: eventJson(p.entry),
    audit_path: p.auditPath,
    checkpoint: checkpointJson(p.checkpoint),
  };
}

/** Each proof pairs with the one checkpoint: `{...proof, type: 'inclusion', tenant_id, tree_size, checkpoint}` is a single proof's answer. */
export function inclusionBatchJson(b: InclusionProofBatch) {
  return {
    type: 'inclusion_batch' as const,
    tenant_id: b.tenantId,
    tree_size: b.treeSize,
    checkpoint: checkpointJson(b.checkpoint),
    proofs: b.proofs.map((p) => ({ leaf_index: p.leafIndex, entry: eventJson(p.entry), audit_path: p.auditPath })),
    not_found: b.notFound,
  };
}

export function consistencyJson(p: ConsistencyProof) {
  return {
    type: 'consistency' as const,
    tenant_id: p.tenantId,
    first: checkpointJson(p.first),
    second: checkpointJson(p.second),
    proof: p.proof,
  };
}

export function registerLedgerProofRoutes(routes: FastifyInstance, proofs: LedgerProofService): void {
  // Public: a verifier needs the keys without an account, and they are public keys.
  routes.get(
    '/v1/ledger/jwks',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['ledger proofs'],
        summary: 'The checkpoint signing keys ever used (JWK Set, Ed25519)',
        response: { 200: JwksResponse },
      },
    },
    async () => proofs.jwks(),
  );

  routes.get<{ Querystring: { tenant_id?: string } }>(
    '/v1/ledger/checkpoints/latest',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: "The tenant's latest signed checkpoint",
        querystring: Type.Object({ tenant_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) }),
        response: proofResponses(CheckpointSchema),
      },
    },
    async (request) => checkpointJson(await proofs.latestCheckpoint(callerOf(request), request.query.tenant_id)),
  );

  routes.get<{ Querystring: CheckpointListQuery }>(
    '/v1/ledger/checkpoints',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: "The tenant's checkpoints, newest first",
        querystring: CheckpointListQuery,
        response: proofResponses(Type.Object({ checkpoints: Type.Array(CheckpointSchema) })),
      },
    },
    async (request) => ({
      checkpoints: (await proofs.listCheckpoints(callerOf(request), request.query.tenant_id, request.query.limit)).map(
        checkpointJson,
      ),
    }),
  );

  routes.post<{ Body: CheckpointBody }>(
    '/v1/ledger/checkpoints',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: 'Take a checkpoint now (rate limited per tenant)',
        body: CheckpointBody,
        response: proofResponses(CheckpointSchema),
      },
    },
    async (request) => checkpointJson(await proofs.requestCheckpoint(callerOf(request), request.body?.tenant_id)),
  );

  routes.get<{ Querystring: InclusionQuery }>(
    '/v1/ledger/proofs/inclusion',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: "Proof that an entry is in a checkpoint's tree (RFC 9162 audit path)",
        querystring: InclusionQuery,
        response: proofResponses(InclusionResponse),
      },
    },
    async (request) => {
      const q = request.query;
      return inclusionJson(
        await proofs.inclusion(callerOf(request), {
          tenantId: q.tenant_id,
          entryId: q.entry_id,
          seq: q.seq,
          treeSize: q.tree_size,
        }),
      );
    },
  );

  // A POST because a page of entry ids does not fit a query string; it reads, it changes nothing.
  routes.post<{ Body: InclusionBatchBody }>(
    '/v1/ledger/proofs/inclusion/batch',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: "Inclusion proofs of up to 1,000 entries against one checkpoint's tree",
        body: InclusionBatchBody,
        response: proofResponses(InclusionBatchResponse),
      },
    },
    async (request) =>
      inclusionBatchJson(
        await proofs.inclusionBatch(callerOf(request), {
          tenantId: request.body.tenant_id,
          entryIds: request.body.entry_ids,
          treeSize: request.body.tree_size,
        }),
      ),
  );

  routes.get<{ Querystring: ConsistencyQuery }>(
    '/v1/ledger/proofs/consistency',
    {
      schema: {
        tags: ['ledger proofs'],
        summary: "Proof that a checkpoint's tree extends an older one (RFC 9162 consistency proof)",
        querystring: ConsistencyQuery,
        response: proofResponses(ConsistencyResponse),
      },
    },
    async (request) => {
      const q = request.query;
      return consistencyJson(
        await proofs.consistency(callerOf(request), { tenantId: q.tenant_id, first: q.first, second: q.second }),
      );
    },
  );
}
