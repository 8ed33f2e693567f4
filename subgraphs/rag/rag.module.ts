// Wires the retrieval service: the embedder (EMBEDDING_MODEL), the stores over the platform's
// database, the OCR and AI broker clients, and the three domain services.
import type { DelegatedIdentity } from '../../platform/auth/service-identity';
import { operatorAccessData, OPERATOR_ACCESS_EVENT, TenantAccess } from '../../platform/auth/tenant-access';
import { AiBrokerClient } from '../../platform/clients/ai-broker.client';
import { OcrClient } from '../../platform/clients/ocr.client';
import type { Database } from '../../platform/db/database';
import { auditEvent } from '../../platform/outbox/outbox.writer';
import { AnswerService } from './answer.service';
import { createChunkSearchStore } from './chunk-search.store';
import { createConversationStore } from './conversation.store';
import { DocumentService } from './document.service';
import { appendAudit, createDocumentStore } from './document.store';
import type { Embedder } from './embedding/embedder';
import { DEFAULT_EXPANSION, QueryExpander, type ExpansionOptions } from './expansion/query-expansion';
import { WordNet } from './expansion/wordnet';
import { createIngestJobStore } from './ingest-job.store';
import { DocumentReader } from './ingestion/document-reader';
import { createQueryCacheStore } from './query-cache.store';
import type { RagConfig } from './rag.config';
import { SoftMatcher } from './ranking/soft-match';
import { RetrievalService, type FusionOptions } from './retrieval.service';
import { createTenantIndexStore, type TenantIndexStore } from './tenant-index.store';
import type { SubjectVault } from '../../platform/vault/subject-vault';

export interface RagModule {
  documents: DocumentService;
  retrieval: RetrievalService;
  answers: AnswerService;
  tenantIndexes: TenantIndexStore;
  /** Loads what the first hybrid search would otherwise load on a client's time (WordNet). */
  warmUp(): void;
}

/** `identity`: retrieval's own, for OCR and AI broker calls of callers without a token (service-identity.ts). */
export function createRagModule(deps: {
  db: Database;
  config: RagConfig;
  embedder: Embedder;
  broker?: Pick<AiBrokerClient, 'inference'>;
  ocr?: Pick<OcrClient, 'extract'>;
  identity?: DelegatedIdentity;
  /** Seals conversation messages under their user's subject key (platform/vault); none: stored as they are. */
  vault?: SubjectVault;
  /** Other fusion or expansion weights than the tuned ones (the evaluation bench's sweeps). */
  fusion?: FusionOptions;
  expansion?: ExpansionOptions;
  softFloor?: number;
  softRelated?: number;
}): RagModule {
  const { db, config, embedder } = deps;
  // WordNet (about 2 s of parsing, on the event loop) is read once: by warmUp() just after the
  // service listens, or by the first hybrid search if that comes sooner. Never at build time, so
  // a module made for a test or a bench that does no hybrid search pays nothing.
  let loaded: QueryExpander | undefined;
  const expander =
    config.queryExpansion === 'wordnet'
      ? () => (loaded ??= new QueryExpander(WordNet.load(), deps.expansion ?? DEFAULT_EXPANSION))
      : undefined;
  const cache = createQueryCacheStore(db.sql);
  const access = new TenantAccess((a) =>
    appendAudit(
      db.sql,
      auditEvent(a, {
        tenantId: a.tenantId,
        type: OPERATOR_ACCESS_EVENT,
        actor: a.operator,
        data: operatorAccessData(a),
      }),
    ),
  );
  const search = createChunkSearchStore(db.sql, {
    exactSearchMaxRows: config.exactSearchMaxRows,
    efSearch: config.efSearch,
  });
  const vectors = embedder.wordVectors?.();
  const softMatch = vectors ? new SoftMatcher(vectors, deps.softFloor, deps.softRelated) : undefined;
  const retrieval = new RetrievalService({ config, embedder, search, expander, fusion: deps.fusion, softMatch });
  const documents = new DocumentService({
    config,
    embedder,
    documents: createDocumentStore(db.sql),
    jobs: createIngestJobStore(db.sql),
    cache,
    access,
    reader: new DocumentReader(
      deps.ocr ?? new OcrClient(config.ocrUrl, { identity: deps.identity }),
      config.maxUploadBytes,
    ),
  });
  const answers = new AnswerService({
    config,
    sql: db.sql,
    retrieval,
    documents,
    cache,
    conversations: createConversationStore(db.sql, deps.vault),
    broker: deps.broker ?? new AiBrokerClient(config.aiBrokerUrl, { identity: deps.identity }),
  });
  // PGlite has one connection and nothing to keep writing meanwhile: a plain build there.
  const tenantIndexes = createTenantIndexStore(db.sql, { concurrently: db.kind === 'postgres' });
  const warmUp = () => {
    expander?.();
  };
  return { documents, retrieval, answers, tenantIndexes, warmUp };
}
