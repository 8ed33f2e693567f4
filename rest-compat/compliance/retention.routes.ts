// The REST door of retention policies, legal holds and erasure requests (under
// /api/compliance/...): thin adapters over subgraphs/compliance/retention.service.ts and
// erasure.service.ts. Changes need a tenant admin; auditors read.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { LegalHold } from '../../platform/retention/retention.types';
import type { ComplianceModule } from '../../subgraphs/compliance/compliance.module';
import type { ErasureRecord } from '../../subgraphs/compliance/erasure.store';
import type { RetentionRule } from '../../subgraphs/compliance/retention.service';
import { responses } from './compliance.schemas';
import {
  ErasureBody,
  ErasureList,
  ErasureSchema,
  HoldList,
  HoldParams,
  HoldQuery,
  HoldSchema,
  PlaceHoldBody,
  PolicyParams,
  RetentionRuleList,
  RetentionRuleSchema,
  SetPolicyBody,
  TenantOnlyBody,
  TenantOnlyQuery,
} from './retention.schemas';

const PREFIX = '/api/compliance';
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const retentionTags = ['retention and erasure'];

export function ruleJson(r: RetentionRule) {
  return {
    record_type: r.recordType,
    legal_minimum_days: r.legalMinimumDays,
    retain_days: r.policy?.retainDays ?? null,
    updated_by: r.policy?.updatedBy ?? null,
    updated_at: iso(r.policy?.updatedAt ?? null),
  };
}

export function holdJson(h: LegalHold) {
  return {
    id: h.id,
    record_type: h.recordType,
    subject_id: h.subjectId,
    subject_ref: h.subjectRef,
    reason: h.reason,
    active: h.releasedAt === null,
    placed_by: h.placedBy,
    placed_at: h.placedAt.toISOString(),
    released_by: h.releasedBy,
    released_at: iso(h.releasedAt),
  };
}

export function erasureJson(e: ErasureRecord) {
  return {
    id: e.id,
    subject_ref: e.subjectRef,
    keys_destroyed: e.keysDestroyed,
    reason: e.reason,
    requested_by: e.requestedBy,
    requested_at: e.requestedAt.toISOString(),
  };
}

export function registerRetentionRoutes(
  routes: FastifyInstance,
  compliance: Pick<ComplianceModule, 'retention' | 'erasure'>,
): void {
  const { retention, erasure } = compliance;

  routes.get<{ Querystring: TenantOnlyQuery }>(
    `${PREFIX}/retention/policies`,
    {
      schema: {
        tags: retentionTags,
        summary: "Every record type with its legal minimum and the tenant's retention policy",
        querystring: TenantOnlyQuery,
        response: responses(RetentionRuleList),
      },
    },
    async (request) => ({
      policies: (await retention.rules(callerOf(request), request.query.tenant_id)).map(ruleJson),
    }),
  );

  routes.post<{ Body: SetPolicyBody }>(
    `${PREFIX}/retention/policies`,
    {
      schema: {
        tags: retentionTags,
        summary: 'Sets how long a record type is kept (422 below its legal minimum; tenant admin)',
        body: SetPolicyBody,
        response: responses(RetentionRuleSchema),
      },
    },
    async (request) =>
      ruleJson(
        await retention.setPolicy(callerOf(request), {
          recordType: request.body.record_type,
          retainDays: request.body.retain_days,
          tenantId: request.body.tenant_id,
        }),
      ),
  );

  routes.delete<{ Params: PolicyParams; Querystring: TenantOnlyQuery }>(
    `${PREFIX}/retention/policies/:record_type`,
    {
      config: { inputLocation: 'path' },
      schema: {
        tags: retentionTags,
        summary: "Removes the tenant's policy of a record type (its records are then kept; tenant admin)",
        params: PolicyParams,
        querystring: TenantOnlyQuery,
        response: responses(RetentionRuleSchema),
      },
    },
    async (request) =>
      ruleJson(
        await retention.removePolicy(callerOf(request), {
          recordType: request.params.record_type,
          tenantId: request.query.tenant_id,
        }),
      ),
  );

  routes.get<{ Querystring: HoldQuery }>(
    `${PREFIX}/legal-holds`,
    {
      schema: {
        tags: retentionTags,
        summary: "The tenant's legal holds, active first",
        querystring: HoldQuery,
        response: responses(HoldList),
      },
    },
    async (request) => ({
      holds: (
        await retention.holds(callerOf(request), {
          activeOnly: request.query.active,
          tenantId: request.query.tenant_id,
        })
      ).map(holdJson),
    }),
  );

  routes.post<{ Body: PlaceHoldBody }>(
    `${PREFIX}/legal-holds`,
    {
      schema: {
        tags: retentionTags,
        summary: 'Places a legal hold on a record type, a subject, or both (no purge, no erasure; tenant admin)',
        body: PlaceHoldBody,
        response: { ...responses(HoldSchema), 201: HoldSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const hold = await retention.placeHold(callerOf(request), {
        recordType: b.record_type,
        subjectId: b.subject_id,
        reason: b.reason,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(holdJson(hold));
    },
  );

  routes.get<{ Params: HoldParams; Querystring: TenantOnlyQuery }>(
    `${PREFIX}/legal-holds/:hold_id`,
    {
      schema: {
        tags: retentionTags,
        summary: 'One legal hold',
        params: HoldParams,
        querystring: TenantOnlyQuery,
        response: responses(HoldSchema),
      },
    },
    async (request) =>
      holdJson(await retention.hold(callerOf(request), request.params.hold_id, request.query.tenant_id)),
  );

  routes.post<{ Params: HoldParams; Body: TenantOnlyBody }>(
    `${PREFIX}/legal-holds/:hold_id/release`,
    {
      schema: {
        tags: retentionTags,
        summary: 'Releases a legal hold (409 when released before; tenant admin)',
        params: HoldParams,
        body: TenantOnlyBody,
        response: responses(HoldSchema),
      },
    },
    async (request) =>
      holdJson(await retention.releaseHold(callerOf(request), request.params.hold_id, request.body.tenant_id)),
  );

  routes.post<{ Body: ErasureBody }>(
    `${PREFIX}/erasure-requests`,
    {
      schema: {
        tags: retentionTags,
        summary:
          'Erases a data subject: its keys are destroyed, its sealed PII reads [erased] (404 unknown subject, 409 under a legal hold; tenant admin)',
        body: ErasureBody,
        response: { ...responses(ErasureSchema), 201: ErasureSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const record = await erasure.erase(callerOf(request), {
        subjectId: b.subject_id,
        reason: b.reason,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(erasureJson(record));
    },
  );

  routes.get<{ Querystring: TenantOnlyQuery }>(
    `${PREFIX}/erasure-requests`,
    {
      schema: {
        tags: retentionTags,
        summary: "The tenant's erasures, newest first (subjects by reference only)",
        querystring: TenantOnlyQuery,
        response: responses(ErasureList),
      },
    },
    async (request) => ({
      erasures: (await erasure.erasures(callerOf(request), request.query.tenant_id)).map(erasureJson),
    }),
  );
}
