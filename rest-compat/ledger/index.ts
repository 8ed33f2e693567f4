// The ledger's documented REST routes (spec 03, port 8136) and the alternative `/v1/ledger/` set,
// as thin adapters over subgraphs/ledger's service: each handler builds the Caller, calls one
// service function and shapes the JSON (snake_case, the spec's names). Authentication is the
// kernel's hook on the whole prefix (platform/service-app.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { idempotencyKeyOf } from '../../platform/http/idempotency-key';
import { MAX_STRING } from '../../subgraphs/ledger/ledger.service';
import type { AuditReport, EntryVerification, LedgerService } from '../../subgraphs/ledger/ledger.service';
import type { VerifyResult } from '../../subgraphs/ledger/ledger.types';
import type { LedgerProofService } from '../../subgraphs/ledger/ledger-proof.service';
import { eventJson } from './ledger-event.view';
import { registerInclusionStreamRoute } from './ledger-proof-stream.route';
import { registerLedgerProofRoutes } from './ledger-proofs.routes';
import {
  AppendBatchBody,
  AppendBatchResponse,
  AppendBody,
  AppendHeaders,
  AppendResponse,
  AuditReportBody,
  EntryParams,
  EventPageSchema,
  EventsQuery,
  ExportQuery,
  responses,
  TenantQuery,
  VerifyResponse,
} from './ledger.schemas';

export function verifyJson(r: VerifyResult) {
  return { valid: r.valid, total_events: r.totalEvents, error: r.error };
}

function entryJson(v: EntryVerification) {
  return {
    entry_id: v.entryId,
    tenant_id: v.tenantId,
    seq: v.seq,
    created_at: v.createdAt,
    valid: v.valid,
    content_hash: v.contentHash,
    chain_hash: v.chainHash,
    previous_hash: {
      stored: v.previousHash.stored,
      expected: v.previousHash.expected,
      previous_entry_id: v.previousHash.previousEntryId,
      valid: v.previousHash.valid,
    },
  };
}

function reportJson(r: AuditReport) {
  return {
    tenant_id: r.tenantId,
    start_time: r.startTime,
    end_time: r.endTime,
    total_events: r.totalEvents,
    counts_by_event_type: r.countsByEventType,
    counts_by_user: r.countsByUser,
    chain: verifyJson(r.chain),
    first_hash: r.firstHash,
    last_hash: r.lastHash,
  };
}

export function registerLedgerRoutes(
  routes: FastifyInstance,
  service: LedgerService,
  proofs: LedgerProofService,
): void {
  registerLedgerProofRoutes(routes, proofs);
  registerInclusionStreamRoute(routes, proofs);
  {
    const append = async (request: FastifyRequest<{ Body: AppendBody }>, reply: import('fastify').FastifyReply) => {
      const b = request.body;
      // The Idempotency-Key header or the body's idempotency_key (both when they agree).
      const idempotencyKey = idempotencyKeyOf(request, b.idempotency_key, { maxLength: MAX_STRING });
      const { event, replayed } = await service.append(callerOf(request), {
        tenantId: b.tenant_id,
        eventType: b.event_type,
        eventData: b.event_data,
        userId: b.user_id,
        correlationId: b.correlation_id,
        description: b.description,
        idempotencyKey,
      });
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return { id: event.id, chain_hash: event.chainHash, created_at: event.createdAt };
    };
    const appendSchema = {
      tags: ['ledger'],
      summary: "Append an event to the tenant's chain",
      description:
        "An idempotency key may come as the Idempotency-Key header or the body's idempotency_key (both only when equal: otherwise 422 at the header); " +
        'a retry with the key answers the first append (header Idempotent-Replayed: true) instead of storing the event again.',
      headers: AppendHeaders,
      body: AppendBody,
      response: responses(AppendResponse),
    };
    routes.post('/append', { schema: appendSchema }, append);
    routes.post('/v1/ledger/append', { schema: appendSchema }, append);
    routes.post(
      '/v1/ledger/append/batch',
      {
        schema: {
          tags: ['ledger'],
          summary: 'Append several events, in order',
          description:
            'Every event is checked first (one refused event refuses the call, nothing appended) and each must carry an idempotency_key, ' +
            'so a call that failed part-way can be sent again without storing an event twice. Answers one result per event, in order.',
          body: AppendBatchBody,
          response: responses(AppendBatchResponse),
        },
      },
      async (request: FastifyRequest<{ Body: AppendBatchBody }>) => {
        const results = await service.appendBatch(
          callerOf(request),
          request.body.events.map((b) => ({
            tenantId: b.tenant_id,
            eventType: b.event_type,
            eventData: b.event_data,
            userId: b.user_id,
            correlationId: b.correlation_id,
            description: b.description,
            idempotencyKey: b.idempotency_key,
          })),
        );
        return {
          results: results.map(({ event, replayed }) => ({
            id: event.id,
            chain_hash: event.chainHash,
            created_at: event.createdAt,
            replayed,
          })),
        };
      },
    );

    routes.get<{ Querystring: TenantQuery }>(
      '/verify',
      {
        schema: {
          tags: ['ledger'],
          summary: "Verify a tenant's chain (every tenant for an admin without tenant_id)",
          querystring: TenantQuery,
          response: responses(VerifyResponse),
        },
      },
      async (request) => verifyJson(await service.verify(callerOf(request), { tenantId: request.query.tenant_id })),
    );

    // /events (chain order) and /v1/ledger/history (newest first) share filters and paging.
    const listPage = async (request: FastifyRequest<{ Querystring: EventsQuery }>, newestFirst: boolean) => {
      const q = request.query;
      const page = await service.listEvents(callerOf(request), {
        tenantId: q.tenant_id,
        filter: {
          eventType: q.event_type,
          userId: q.user_id,
          correlationId: q.correlation_id,
          startTime: q.start_time,
          endTime: q.end_time,
        },
        limit: q.limit,
        offset: q.offset,
        newestFirst,
      });
      return { ...page, events: page.events.map(eventJson) };
    };

    routes.get<{ Querystring: EventsQuery }>(
      '/events',
      {
        schema: {
          tags: ['ledger'],
          summary: "Query a tenant's events (chain order)",
          querystring: EventsQuery,
          response: responses(EventPageSchema),
        },
      },
      async (request) => listPage(request, false),
    );

    routes.get<{ Querystring: EventsQuery }>(
      '/v1/ledger/history',
      {
        schema: {
          tags: ['ledger'],
          summary: 'History of a tenant, user or correlation id (newest first)',
          querystring: EventsQuery,
          response: responses(EventPageSchema),
        },
      },
      async (request) => listPage(request, true),
    );

    routes.get<{ Querystring: ExportQuery }>(
      '/export',
      {
        schema: {
          tags: ['ledger'],
          summary: "Stream the tenant's events as CSV",
          querystring: ExportQuery,
          produces: ['text/csv'],
        },
      },
      async (request, reply) => {
        const { tenantId, stream } = await service.exportCsv(callerOf(request), {
          tenantId: request.query.tenant_id,
          eventType: request.query.event_type,
        });
        const safeName = tenantId.replace(/[^A-Za-z0-9_.-]/g, '_');
        reply
          .type('text/csv; charset=utf-8')
          .header('Content-Disposition', `attachment; filename="ledger-${safeName}.csv"`);
        return reply.send(stream);
      },
    );

    routes.get<{ Params: EntryParams; Querystring: TenantQuery }>(
      '/v1/ledger/verify/:entry_id',
      {
        schema: {
          tags: ['ledger'],
          summary: "Recompute one entry's hashes and check its link to the previous entry",
          params: EntryParams,
          querystring: TenantQuery,
        },
      },
      async (request) =>
        entryJson(
          await service.verifyEntry(callerOf(request), {
            tenantId: request.query.tenant_id,
            entryId: request.params.entry_id,
          }),
        ),
    );

    routes.post<{ Body: AuditReportBody }>(
      '/v1/ledger/audit-report',
      {
        schema: {
          tags: ['ledger'],
          summary: 'Counts by type and user over a period, chain status, first and last hash',
          body: AuditReportBody,
        },
      },
      async (request) =>
        reportJson(
          await service.auditReport(callerOf(request), {
            tenantId: request.body.tenant_id,
            startTime: request.body.start_time,
            endTime: request.body.end_time,
          }),
        ),
    );
  }
}
