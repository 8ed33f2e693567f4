// The ledger's documented REST routes (spec 03, port 8136) and the alternative `/v1/ledger/` set,
// as thin adapters over subgraphs/ledger's service: each handler builds the Caller, calls one
// service function and shapes the JSON. Authentication is one hook on the whole plugin.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TokenAuthenticator } from '../platform/http/auth-hooks';
import { authenticate, authenticateOptional } from '../platform/http/auth-hooks';
import type { Caller } from '../subgraphs/ledger/ledger.access';
import type { LedgerService } from '../subgraphs/ledger/ledger.service';
import type { LedgerEvent } from '../subgraphs/ledger/ledger.types';
import {
  AppendBody, AppendResponse, AuditReportBody, EntryParams, EventPageSchema, EventsQuery, ExportQuery, responses, TenantQuery, VerifyResponse,
} from './ledger/ledger.schemas';

export interface LedgerRoutesOptions {
  service: LedgerService;
  tokens: TokenAuthenticator;
  requireAuth: boolean;
}

function callerOf(request: FastifyRequest): Caller {
  const header = request.headers['x-tenant-id'];
  return { auth: request.auth, headerTenant: typeof header === 'string' && header !== '' ? header : undefined };
}

/** The event as REST shows it: snake_case, event_data as the JSON object that was hashed. */
export function eventJson(e: LedgerEvent) {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    seq: e.seq,
    event_type: e.eventType,
    event_data: JSON.parse(e.eventDataText) as Record<string, unknown>,
    created_at: e.createdAt,
    content_hash: e.contentHash,
    previous_hash: e.previousHash,
    chain_hash: e.chainHash,
    user_id: e.userId,
    correlation_id: e.correlationId,
    description: e.description,
  };
}

export async function registerLedgerRoutes(app: FastifyInstance, options: LedgerRoutesOptions): Promise<void> {
  const { service } = options;
  await app.register(async (routes) => {
    // onRequest: an anonymous caller gets 401 before its body is even parsed or validated.
    routes.addHook('onRequest', options.requireAuth ? authenticate(options.tokens) : authenticateOptional(options.tokens));

    const append = async (request: FastifyRequest<{ Body: AppendBody }>, reply: import('fastify').FastifyReply) => {
      const b = request.body;
      const { event, replayed } = await service.append(callerOf(request), {
        tenantId: b.tenant_id, eventType: b.event_type, eventData: b.event_data, userId: b.user_id,
        correlationId: b.correlation_id, description: b.description, idempotencyKey: b.idempotency_key,
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return { id: event.id, chain_hash: event.chainHash, created_at: event.createdAt };
    };
    const appendSchema = { tags: ['ledger'], summary: 'Append an event to the tenant\'s chain', body: AppendBody, response: responses(AppendResponse) };
    routes.post('/append', { schema: appendSchema }, append);
    routes.post('/v1/ledger/append', { schema: appendSchema }, append);

    routes.get<{ Querystring: TenantQuery }>('/verify', {
      schema: { tags: ['ledger'], summary: 'Verify a tenant\'s chain (every tenant for an admin without tenant_id)', querystring: TenantQuery, response: responses(VerifyResponse) },
    }, async (request) => service.verify(callerOf(request), { tenantId: request.query.tenant_id }));

    // /events (chain order) and /v1/ledger/history (newest first) share filters and paging.
    const listPage = async (request: FastifyRequest<{ Querystring: EventsQuery }>, newestFirst: boolean) => {
      const q = request.query;
      const page = await service.listEvents(callerOf(request), {
        tenantId: q.tenant_id,
        filter: { eventType: q.event_type, userId: q.user_id, correlationId: q.correlation_id, startTime: q.start_time, endTime: q.end_time },
        limit: q.limit, offset: q.offset, newestFirst,
      });
      return { ...page, events: page.events.map(eventJson) };
    };

    routes.get<{ Querystring: EventsQuery }>('/events', {
      schema: { tags: ['ledger'], summary: 'Query a tenant\'s events (chain order)', querystring: EventsQuery, response: responses(EventPageSchema) },
    }, async (request) => listPage(request, false));

    routes.get<{ Querystring: EventsQuery }>('/v1/ledger/history', {
      schema: { tags: ['ledger'], summary: 'History of a tenant, user or correlation id (newest first)', querystring: EventsQuery, response: responses(EventPageSchema) },
    }, async (request) => listPage(request, true));

    routes.get<{ Querystring: ExportQuery }>('/export', {
      schema: { tags: ['ledger'], summary: 'Stream the tenant\'s events as CSV', querystring: ExportQuery, produces: ['text/csv'] },
    }, async (request, reply) => {
      const { tenantId, stream } = await service.exportCsv(callerOf(request), { tenantId: request.query.tenant_id, eventType: request.query.event_type });
      const safeName = tenantId.replace(/[^A-Za-z0-9_.-]/g, '_');
      reply.type('text/csv; charset=utf-8').header('Content-Disposition', `attachment; filename="ledger-${safeName}.csv"`);
      return reply.send(stream);
    });

    routes.get<{ Params: EntryParams; Querystring: TenantQuery }>('/v1/ledger/verify/:entry_id', {
      schema: { tags: ['ledger'], summary: 'Recompute one entry\'s hashes and check its link to the previous entry', params: EntryParams, querystring: TenantQuery },
    }, async (request) => service.verifyEntry(callerOf(request), { tenantId: request.query.tenant_id, entryId: request.params.entry_id }));

    routes.post<{ Body: AuditReportBody }>('/v1/ledger/audit-report', {
      schema: { tags: ['ledger'], summary: 'Counts by type and user over a period, chain status, first and last hash', body: AuditReportBody },
    }, async (request) => service.auditReport(callerOf(request), {
      tenantId: request.body.tenant_id, startTime: request.body.start_time, endTime: request.body.end_time,
    }));
  });
}
