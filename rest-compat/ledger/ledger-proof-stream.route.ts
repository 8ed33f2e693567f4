// POST /v1/ledger/proofs/inclusion/stream (docs/ledger.md, "Many proofs against one checkpoint"):
// the inclusion proofs of many entries (a compliance report's every item) against ONE existing
// checkpoint, from the checkpoint's tree built once (LedgerProofService.inclusionStream). The
// answer is NDJSON: one `inclusion_batch` line per batch (the batch route's shape, except that each
// proof's audit path is a list of indices into the line's `nodes`, its distinct path nodes written
// once: a million proofs' paths repeat their upper nodes in every proof, and spelt out they were
// most of the answer's bytes and of both sides' JSON work; `expandIndexedBatch` in
// platform/contracts gives each proof back as verifier/verify-proof.cjs reads it), then one `end`
// line with the count, so a reader can tell a complete answer from a cut one. Everything that can be refused
// (the tenant rule, the checkpoint, the ids, the signed root) is checked before the first byte, so
// refusals are ordinary 4xx answers; a failure after that (the database gone mid-stream) ends the
// answer with an `error` line and no `end` line.
import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { parseJsonStrict } from '../../platform/http/json-strict';
import {
  INCLUSION_STREAM_BATCH_MAX,
  INCLUSION_STREAM_MAX,
  type InclusionProofBatch,
  type LedgerProofService,
} from '../../subgraphs/ledger/ledger-proof.service';
import { MAX_STRING } from '../../subgraphs/ledger/ledger.service';
import { checkpointJson } from './ledger-proofs.routes';
import { eventJson } from './ledger-event.view';
import type { LedgerIndexedInclusionBatch } from '../../platform/contracts/clients/ledger.api';
import { Detail } from './ledger.schemas';

/** A million ids of 36 characters with their quotes and commas, and room for the rest. */
const STREAM_BODY_BYTES = 48 * 1024 * 1024;

const Size = (description: string) => Type.Integer({ minimum: 1, maximum: 2 ** 52, description });

export const InclusionStreamBody = Type.Object({
  tenant_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_STRING, description: "Defaults to the caller's" }),
  ),
  tree_size: Size("An existing checkpoint's tree size: every proof is against that checkpoint"),
  entry_ids: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      minItems: 1,
      maxItems: INCLUSION_STREAM_MAX,
      description: `The entries by id, any order (at most ${INCLUSION_STREAM_MAX.toLocaleString('en')}); answered in seq order`,
    }),
  ),
  from_seq: Type.Optional(Size('Or a seq range: its first entry')),
  to_seq: Type.Optional(Size('... and its last (default: the tree size)')),
  event_type: Type.Optional(
    Type.String({ minLength: 1, maxLength: MAX_STRING, description: 'With a seq range: only this type' }),
  ),
  batch_size: Type.Optional(
    Type.Integer({ minimum: 1, maximum: INCLUSION_STREAM_BATCH_MAX, description: 'Proofs per line (default 5,000)' }),
  ),
});
export type InclusionStreamBody = Static<typeof InclusionStreamBody>;

/** A batch with its audit paths as indices into the line's distinct nodes. */
function indexedBatchJson(b: InclusionProofBatch): LedgerIndexedInclusionBatch {
  const nodes: string[] = [];
  const index = new Map<string, number>();
  const at = (node: string) => {
    let i = index.get(node);
    if (i === undefined) {
      i = nodes.push(node) - 1;
      index.set(node, i);
    }
    return i;
  };
  const proofs = b.proofs.map((p) => ({
    leaf_index: p.leafIndex,
    entry: eventJson(p.entry),
    path: p.auditPath.map(at),
  }));
  return {
    type: 'inclusion_batch',
    tenant_id: b.tenantId,
    tree_size: b.treeSize,
    checkpoint: checkpointJson(b.checkpoint),
    nodes,
    proofs,
    not_found: b.notFound,
  };
}

/** The answer's lines, each a JSON text and a newline. */
async function* ndjson(batches: AsyncIterable<InclusionProofBatch>, log: FastifyBaseLogger): AsyncGenerator<string> {
  let proofs = 0;
  let notFound = 0;
  try {
    for await (const b of batches) {
      proofs += b.proofs.length;
      notFound += b.notFound.length;
      yield `${JSON.stringify(indexedBatchJson(b))}\n`;
    }
  } catch (err) {
    // The status is long sent: say so in the answer itself, and leave out the `end` line.
    log.error({ err }, 'ledger: inclusion proof stream failed after it started');
    yield `${JSON.stringify({ type: 'error', detail: 'The ledger could not finish the proofs; ask again' })}\n`;
    return;
  }
  yield `${JSON.stringify({ type: 'end', proofs, not_found: notFound })}\n`;
}

export function registerInclusionStreamRoute(routes: FastifyInstance, proofs: LedgerProofService): void {
  // Its own scope: only this route's JSON bodies may be this large (the kernel's guard otherwise
  // as for every body: strict JSON, depth, string length).
  void routes.register(async (scope) => {
    const limits = { ...scope.inputLimits, maxBytes: STREAM_BODY_BYTES };
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: STREAM_BODY_BYTES },
      (_request, body: Buffer, done) => {
        try {
          done(null, parseJsonStrict(body, limits));
        } catch (err) {
          done(err as Error, undefined);
        }
      },
    );
    // A POST because a million ids do not fit a query string; it reads, it changes nothing.
    scope.post<{ Body: InclusionStreamBody }>(
      '/v1/ledger/proofs/inclusion/stream',
      {
        bodyLimit: STREAM_BODY_BYTES,
        schema: {
          tags: ['ledger proofs'],
          summary:
            "Inclusion proofs of many entries (by id or seq range) against one checkpoint's tree, as NDJSON batches",
          body: InclusionStreamBody,
          response: { 401: Detail, 403: Detail, 404: Detail, 413: Detail, 422: Detail, 503: Detail },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const { batches } = await proofs.inclusionStream(callerOf(request), {
          tenantId: b.tenant_id,
          treeSize: b.tree_size,
          entryIds: b.entry_ids,
          fromSeq: b.from_seq,
          toSeq: b.to_seq,
          eventType: b.event_type,
          batchSize: b.batch_size,
        });
        reply.type('application/x-ndjson; charset=utf-8');
        return reply.send(Readable.from(ndjson(batches, request.log)));
      },
    );
  });
}
