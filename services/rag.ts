// The knowledge retrieval service (spec 02, port 8138): REST routes (rest-compat/rag, both route
// sets) and the rag subgraph at /graphql (ingestion progress over graphql-ws) over one domain:
// hierarchical documents, cascading vector and hybrid search on pgvector, answers through the AI
// broker with a semantic cache, conversations, audit through the outbox. docs/rag.md.
import { serviceBus } from '../platform/events/service-bus';
import { startServiceNotices } from '../platform/outbox/service-notices';
import { ServiceIdentity } from '../platform/auth/service-identity';
import { acceptingAsymmetric } from '../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../platform/auth/jwt';
import { serviceRequiresAuth } from '../platform/config/platform.config';
import { defineService, type ServiceDefinition } from '../platform/service';
import { buildServiceApp } from '../platform/service-app';
import { registerRagRoutes } from '../rest-compat/rag';
import { createEmbedder } from '../subgraphs/rag/embedding/embedder.factory';
import { ragContext } from '../subgraphs/rag/graphql.context';
import { serveRagSubscriptions } from '../subgraphs/rag/rag.subscriptions';
import { startRagMaintenance, type RagMaintenance } from '../subgraphs/rag/maintenance';
import { loadRagConfig } from '../subgraphs/rag/rag.config';
import { createRagModule } from '../subgraphs/rag/rag.module';
import { resolvers } from '../subgraphs/rag/resolvers';
import { serviceRetention } from '../platform/retention/retention-sweeper';
import { SubjectVault } from '../platform/vault/subject-vault';
import { subjectVaultKey } from '../platform/vault/vault.config';
import { purgeRagConversations } from '../subgraphs/rag/conversation.store';
import { purgeRagDocuments } from '../subgraphs/rag/document.store';

// Nothing to override yet; the options object keeps every service's assembly one shape.
export type RagServiceOptions = Record<string, never>;

export function defineRagService(_options: RagServiceOptions = {}): ServiceDefinition {
  const definition: ServiceDefinition = defineService({
    name: 'rag',
    version: '0.1.0',
    port: 8138,
    subgraph: 'subgraphs/rag/schema.graphql',
    producesAudit: true,
    async build(deps) {
      const { config: platform, db, env, registry, logger } = deps;
      // rag.document_ingested is written with each completed ingestion (the notice outbox); this relay publishes it.
      const { bus, release: releaseBus } = await serviceBus(deps);
      const notices = startServiceNotices(deps, bus, definition.name);
      const config = loadRagConfig(env, registry, { requireAuth: serviceRequiresAuth(env, definition) });
      const embedder = await createEmbedder(config.embedding, (msg) => logger.warn(msg));
      const rag = createRagModule({
        db,
        config,
        embedder,
        identity: new ServiceIdentity(platform.auth.jwtSecret, 'rag'),
        // Conversation messages are their user's PII: sealed under the user's subject key.
        vault: new SubjectVault(subjectVaultKey(env, platform.auth.jwtSecret)),
      });
      // HTTP and graphql-ws alike: HS256 and the OIDC provider's tokens (the router forwards the caller's).
      const tokens = acceptingAsymmetric(
        new AccessTokens(platform.auth.jwtSecret, platform.auth.accessTokenExpireMinutes * 60),
        platform.auth.oidc,
      );
      const { app, schema } = await buildServiceApp(definition, deps, {
        title: 'Knowledge retrieval',
        description:
          'Documents in a four-level hierarchy (platform, suite, module, entity), cascading semantic and hybrid search on pgvector, ' +
          'answers through the AI broker with a semantic cache, conversations, tenant isolation, soft delete (spec 02).',
        tokens,
        restAuth: config.requireAuth ? 'required' : 'optional',
        rest: (routes) =>
          registerRagRoutes(routes, { ...rag, version: definition.version, maxUploadBytes: config.maxUploadBytes }),
        subgraph: {
          resolvers,
          context: (caller, request) => ({
            ...ragContext(caller, request, rag),
            maxUploadBytes: config.maxUploadBytes,
          }),
          uploads: { maxFileSize: config.maxUploadBytes },
        },
        readinessDetails: async () => ({
          database: 'ok',
          ...(await rag.documents.counts()),
          embedding_model: embedder.name,
        }),
      });
      serveRagSubscriptions({ app, schema: schema!, tokens, requireAuth: config.requireAuth, rag });
      let maintenance: RagMaintenance | undefined;
      // Retention (docs/compliance.md): the tenants' rag_document and rag_conversation policies.
      const retention = serviceRetention(deps, [
        { recordType: 'rag_document', service: definition.name, purge: purgeRagDocuments },
        { recordType: 'rag_conversation', service: definition.name, purge: purgeRagConversations },
      ]);
      return {
        app,
        async start() {
          maintenance = startRagMaintenance({
            ...rag,
            tenantIndexMinChunks: config.tenantIndexMinChunks,
            intervalMs: config.maintenanceIntervalMs,
            logger,
          });
          retention.start();
          // After the other services of this process have started: the first question is then not
          // the one that waits for WordNet.
          setImmediate(() => {
            try {
              rag.warmUp();
            } catch (err) {
              logger.error({ err }, 'query expansion could not load; hybrid searches will try again');
            }
          });
        },
        async stop() {
          await maintenance?.stop();
          await retention.stop();
          await notices.stop();
          await releaseBus();
        },
      };
    },
  });
  return definition;
}

export const ragService: ServiceDefinition = defineRagService();
