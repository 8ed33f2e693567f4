// The rule-pack registry's REST routes (port 8091), thin adapters over
// subgraphs/rulepack-registry's service: each handler builds the Caller, calls one service method
// and shapes the JSON (snake_case, the wire contract of platform/clients/rulepack-registry.client.ts).
// Authentication is the kernel's hook on the whole prefix; the key set is public.
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { RulePackService } from '../../subgraphs/rulepack-registry/rulepack-registry.service';
import type { DecisionRecord, RulePackVersionRecord } from '../../subgraphs/rulepack-registry/rulepack-registry.types';
import {
  CertifyBody,
  DecisionsResponse,
  DeprecateBody,
  KeySet,
  ListQuery,
  ListResponse,
  PackParams,
  RejectBody,
  responses,
  SubmitBody,
  VersionParams,
  VersionsResponse,
  VersionView,
} from './rulepack-registry.schemas';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A version without its pack (listings). */
export function summaryJson(v: RulePackVersionRecord) {
  return {
    pack_id: v.packId,
    version: v.version,
    status: v.status,
    sha256: v.sha256,
    owner_tenant: v.ownerTenant,
    author: v.author,
    reviewers: v.reviewers,
    submitted_at: v.submittedAt.toISOString(),
    certified_at: iso(v.certifiedAt),
    signature: v.signature,
    key_id: v.keyId,
    deprecated_at: iso(v.deprecatedAt),
    replacement: v.replacement ? { pack_id: v.replacement.packId, version: v.replacement.version } : null,
  };
}

/** RulePackVersionView of the client. */
export function versionJson(v: RulePackVersionRecord) {
  return { ...summaryJson(v), pack: v.pack };
}

function decisionJson(d: DecisionRecord) {
  return {
    decision: d.decision,
    actor: d.actor,
    from_state: d.fromState,
    to_state: d.toState,
    notes: d.notes,
    created_at: d.createdAt.toISOString(),
  };
}

const security = [{ bearerAuth: [] }];
const tags = ['rulepacks'];
const ref = (p: VersionParams) => ({ packId: p.id, version: p.version });

export function registerRulePackRegistryRoutes(routes: FastifyInstance, service: RulePackService): void {
  routes.post<{ Body: SubmitBody }>(
    '/rulepacks',
    {
      schema: {
        tags,
        security,
        summary: 'Submit a rule pack version (stored as a draft)',
        description:
          'Body `{pack}` or `{artifact, format}`. Checked against the rule-pack schema and compiled by the engine; 422 names the path inside the pack. ' +
          '201 when stored; 200 when the same id, version and content is already stored; 409 when the id and version hold other content or the id belongs to another tenant.',
        body: SubmitBody,
        response: { ...responses(VersionView, 201), 200: VersionView },
      },
    },
    async (request, reply) => {
      const { version, created } = await service.submit(callerOf(request), request.body);
      return reply.code(created ? 201 : 200).send(versionJson(version));
    },
  );

  routes.get<{ Querystring: ListQuery }>(
    '/rulepacks',
    {
      schema: {
        tags,
        security,
        summary: "The caller's tenant's drafts and reviews plus every tenant's certified and deprecated versions",
        querystring: ListQuery,
        response: responses(ListResponse),
      },
      config: { inputNames: { first: 'limit', after: 'cursor' } },
    },
    async (request) => {
      const q = request.query;
      const page = await service.list(callerOf(request), { status: q.status, first: q.limit, after: q.cursor });
      return { rulepacks: page.versions.map(summaryJson), next_cursor: page.hasNextPage ? page.endCursor : null };
    },
  );

  routes.get<{ Params: PackParams }>(
    '/rulepacks/:id',
    {
      schema: {
        tags,
        security,
        summary: 'The newest certified version (by semantic version)',
        description:
          '404 when the pack has no certified version; 409 when every published version is deprecated (the detail names the replacement).',
        params: PackParams,
        response: responses(VersionView),
      },
    },
    async (request) => versionJson(await service.latestCertified(callerOf(request), request.params.id)),
  );

  routes.get<{ Params: PackParams }>(
    '/rulepacks/:id/versions',
    {
      schema: {
        tags,
        security,
        summary: 'Every version the caller may see, newest first',
        params: PackParams,
        response: responses(VersionsResponse),
      },
    },
    async (request) => ({
      pack_id: request.params.id,
      versions: (await service.versions(callerOf(request), request.params.id)).map(summaryJson),
    }),
  );

  routes.get<{ Params: VersionParams }>(
    '/rulepacks/:id/versions/:version',
    {
      schema: {
        tags,
        security,
        summary: 'One version, with its pack',
        params: VersionParams,
        response: responses(VersionView),
      },
    },
    async (request) => versionJson(await service.get(callerOf(request), ref(request.params))),
  );

  routes.get<{ Params: VersionParams }>(
    '/rulepacks/:id/versions/:version/decisions',
    {
      schema: {
        tags,
        security,
        summary: 'Who moved the version and why, oldest first',
        params: VersionParams,
        response: responses(DecisionsResponse),
      },
    },
    async (request) => ({
      decisions: (await service.decisions(callerOf(request), ref(request.params))).map(decisionJson),
    }),
  );

  routes.post<{ Params: VersionParams }>(
    '/rulepacks/:id/versions/:version/submit',
    {
      schema: {
        tags,
        security,
        summary: 'draft → review (the author or a writer of the owner tenant)',
        params: VersionParams,
        response: responses(VersionView),
      },
    },
    async (request) => versionJson(await service.requestReview(callerOf(request), ref(request.params))),
  );

  routes.post<{ Params: VersionParams; Body: CertifyBody | undefined }>(
    '/rulepacks/:id/versions/:version/certify',
    {
      schema: {
        tags,
        security,
        summary: 'review → certified, signed (role admin or reviewer of the owner tenant, never the author)',
        params: VersionParams,
        body: CertifyBody,
        response: responses(VersionView),
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => versionJson(await service.certify(callerOf(request), ref(request.params), request.body?.notes)),
  );

  routes.post<{ Params: VersionParams; Body: RejectBody }>(
    '/rulepacks/:id/versions/:version/reject',
    {
      schema: {
        tags,
        security,
        summary: 'review → draft, with notes',
        params: VersionParams,
        body: RejectBody,
        response: responses(VersionView),
      },
    },
    async (request) => versionJson(await service.reject(callerOf(request), ref(request.params), request.body.notes)),
  );

  routes.post<{ Params: VersionParams; Body: DeprecateBody | undefined }>(
    '/rulepacks/:id/versions/:version/deprecate',
    {
      schema: {
        tags,
        security,
        summary: 'certified → deprecated, optionally naming a certified replacement',
        params: VersionParams,
        body: DeprecateBody,
        response: responses(VersionView),
      },
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const b = request.body ?? {};
      return versionJson(
        await service.deprecate(callerOf(request), ref(request.params), {
          replacementVersion: b.replacement_version,
          replacement: b.replacement ? { packId: b.replacement.pack_id, version: b.replacement.version } : null,
          notes: b.notes,
        }),
      );
    },
  );

  routes.get(
    '/.well-known/rulepack-keys.json',
    {
      schema: {
        tags: ['keys'],
        summary: 'The public keys that sign certified packs (JWK set; retired keys stay listed)',
        response: { 200: KeySet },
      },
      config: { auth: 'public' },
    },
    async () => service.keySet(),
  );
}
