// The config service's REST routes (port 8086): the spec's three routes exactly
// (`GET /api/config/{tenant_id}/effective`, `POST /api/config/bundles`,
// `POST /api/config/rollouts/{bundle_id}/promote`), the rest under /api/config/..., the JWKS of
// the promotion signing keys, and OFREP (/ofrep/v1/evaluate/flags). Thin adapters: one call into
// the domain each, snake_case JSON out. Authentication is the kernel's hook on the whole prefix.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { EvaluationContext } from '@openfeature/core';
import { callerOf } from '../../platform/http/caller';
import { isOfrepFailure } from '../../platform/flags/flag-set';
import type { ConfigModule } from '../../subgraphs/config/config.module';
import type { Bundle, Change, ConfigCaller, Effective, Rollout } from '../../subgraphs/config/config.types';
import { configCaller } from '../../subgraphs/config/graphql.context';
import { EffectiveBodies } from './effective-bodies';
import {
  BundleList,
  BundleParams,
  BundleView,
  Detail,
  ChangeList,
  ChangeView,
  DiffQuery,
  DiffView,
  EffectiveQuery,
  EffectiveView,
  FlagParams,
  Jwks,
  OfrepBody,
  OfrepBulk,
  OfrepResult,
  PromoteBody,
  PublishBody,
  responses,
  RolloutParams,
  RolloutView,
  TenantParams,
} from './config.schemas';

const callerFor = (request: FastifyRequest): ConfigCaller =>
  configCaller(callerOf(request), request.headers.authorization);

const bundleSummary = (b: Bundle) => ({
  id: b.id,
  tenant_id: b.tenantId,
  layer: b.layer,
  scope: b.scope,
  namespace: b.namespace,
  version: b.version,
  sha256: b.sha256,
  schema_version: b.schemaVersion,
  author: b.author,
  created_at: b.createdAt.toISOString(),
});
export const bundleJson = (b: Bundle) => ({ ...bundleSummary(b), content: b.content });

export const changeJson = (c: Change) => ({
  seq: c.seq,
  bundle_id: c.bundleId,
  previous_bundle_id: c.previousBundleId,
  layer: c.layer,
  scope: c.scope,
  namespace: c.namespace,
  percentage: c.percentage,
  hash_by: c.hashBy,
  kind: c.kind,
  rollout_id: c.rolloutId,
  actor: c.actor,
  approved_by: c.approvedBy,
  signature: c.signature,
  key_id: c.keyId,
  at: c.at.toISOString(),
});

export const rolloutJson = (r: Rollout) => ({
  id: r.id,
  bundle_id: r.bundleId,
  percentage: r.percentage,
  hash_by: r.hashBy,
  status: r.status,
  requested_by: r.requestedBy,
  approved_by: r.approvedBy,
  workflow_id: r.workflowId,
  approval_task_id: r.approvalTaskId,
  scheduled_at: r.scheduledAt?.toISOString() ?? null,
  change_seq: r.changeSeq,
  created_at: r.createdAt.toISOString(),
});

export const effectiveJson = (e: Effective) => ({
  tenant_id: e.tenantId,
  seq: e.seq,
  config: e.config,
  provenance: e.provenance.map((p) => ({
    pointer: p.pointer,
    layer: p.layer,
    bundle_id: p.bundleId,
    version: p.version,
    seq: p.seq,
  })),
});

export interface ConfigRouteOptions {
  /** Serialised `/effective` answers kept (CONFIG_EFFECTIVE_BODY_CACHE); 0 keeps none. */
  effectiveBodyCache?: number;
}

export function registerConfigRoutes(
  routes: FastifyInstance,
  config: ConfigModule,
  options: ConfigRouteOptions = {},
): void {
  const bodies = new EffectiveBodies(options.effectiveBodyCache ?? 1024);
  routes.get<{ Params: TenantParams; Querystring: EffectiveQuery }>(
    '/api/config/:tenant_id/effective',
    {
      schema: {
        tags: ['config'],
        summary:
          'The merged configuration (platform ← suite ← module ← tenant) for the caller context, with each key’s provenance',
        params: TenantParams,
        querystring: EffectiveQuery,
        response: responses(EffectiveView),
      },
      config: { inputLocation: 'query' },
    },
    // Synchronous for a current read (no promise, no microtask turn per request: issue 35); as
    // of a past change, with secrets or by an operator in another tenant, through effective().
    (request, reply) => {
      const q = request.query;
      // The caller without its bearer token: nothing here forwards it.
      const caller = callerOf(request);
      const query = {
        tenantId: request.params.tenant_id,
        suite: q.suite,
        module: q.module,
        namespace: q.namespace,
        user: q.user,
        asOf: q.as_of,
        resolveSecrets: q.resolve_secrets,
      };
      const send = (answer: Effective): void => {
        const body = bodies.body(config.effective.servedKey(answer), () => effectiveJson(answer));
        reply.header('etag', body.etag);
        // The raw headers: Fastify's `request.headers` accessor is slow at a site every service shares.
        if (request.raw.headers['if-none-match'] === body.etag) reply.code(304).send();
        // Already JSON: sent as it is, without the route's serialiser.
        else reply.type('application/json; charset=utf-8').send(body.text);
      };
      const current = config.effective.current(caller, query);
      if (current) return send(current);
      return config.effective.effective(caller, query).then(send);
    },
  );

  routes.post<{ Body: PublishBody }>(
    '/api/config/bundles',
    {
      schema: {
        tags: ['config'],
        summary:
          'Publish a new bundle version (201); the same content again for the same target returns the stored bundle (200)',
        body: PublishBody,
        response: { ...responses(BundleView, 201), 200: BundleView },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const { bundle, created } = await config.bundles.publish(callerFor(request), {
        layer: b.layer,
        scope: b.scope,
        namespace: b.namespace,
        content: b.content,
        tenantId: b.tenant_id,
      });
      return reply.code(created ? 201 : 200).send(bundleJson(bundle));
    },
  );

  routes.get<{ Params: BundleParams }>(
    '/api/config/bundles/:bundle_id',
    {
      schema: {
        tags: ['config'],
        summary: 'One bundle with its content',
        params: BundleParams,
        response: responses(BundleView),
      },
    },
    async (request) => bundleJson(await config.bundles.get(callerFor(request), request.params.bundle_id)),
  );

  routes.get<{ Params: BundleParams }>(
    '/api/config/bundles/:bundle_id/versions',
    {
      schema: {
        tags: ['config'],
        summary: 'Every version of the bundle’s layer, scope and namespace',
        params: BundleParams,
        response: responses(BundleList),
      },
    },
    async (request) => ({
      versions: (await config.bundles.versions(callerFor(request), request.params.bundle_id)).map(bundleSummary),
    }),
  );

  routes.get<{ Params: BundleParams; Querystring: DiffQuery }>(
    '/api/config/bundles/:bundle_id/diff',
    {
      schema: {
        tags: ['config'],
        summary: 'RFC 6902 operations from this bundle to another (`to`), e.g. before promoting',
        params: BundleParams,
        querystring: DiffQuery,
        response: responses(DiffView),
      },
      config: { inputLocation: 'query' },
    },
    async (request) => {
      const d = await config.bundles.diff(callerFor(request), request.params.bundle_id, request.query.to);
      return { from: bundleSummary(d.from), to: bundleSummary(d.to), ops: d.ops };
    },
  );

  routes.get<{ Params: BundleParams }>(
    '/api/config/bundles/:bundle_id/changes',
    {
      schema: {
        tags: ['config'],
        summary: 'The signed change log of the bundle’s target',
        params: BundleParams,
        response: responses(ChangeList),
      },
    },
    async (request) => ({
      changes: (await config.rollouts.history(callerFor(request), request.params.bundle_id)).map(changeJson),
    }),
  );

  routes.post<{ Params: BundleParams }>(
    '/api/config/bundles/:bundle_id/rollback',
    {
      schema: {
        tags: ['config'],
        summary: 'Put this earlier version back in force for everyone, in one call (signed, audited, announced)',
        params: BundleParams,
        response: responses(ChangeView),
      },
    },
    async (request) => changeJson(await config.rollouts.rollback(callerFor(request), request.params.bundle_id)),
  );

  routes.post<{ Params: BundleParams; Body: PromoteBody }>(
    '/api/config/rollouts/:bundle_id/promote',
    {
      schema: {
        tags: ['config'],
        summary:
          'Promote a bundle rollout: a percentage of tenants (or users), applied once a second person approves the workflow task',
        params: BundleParams,
        body: PromoteBody,
        response: responses(RolloutView, 202),
      },
    },
    async (request, reply) => {
      const b = request.body ?? {};
      const rollout = await config.rollouts.promote(callerFor(request), request.params.bundle_id, {
        percentage: b.percentage,
        hashBy: b.hash_by,
        scheduledAt: b.scheduled_at,
      });
      return reply.code(202).send(rolloutJson(rollout));
    },
  );

  routes.get<{ Params: RolloutParams }>(
    '/api/config/rollouts/:rollout_id',
    {
      schema: {
        tags: ['config'],
        summary: 'A rollout, moved on if its approval was decided',
        params: RolloutParams,
        response: responses(RolloutView),
      },
    },
    async (request) => rolloutJson(await config.rollouts.get(callerFor(request), request.params.rollout_id)),
  );

  routes.get(
    '/.well-known/config-keys.json',
    {
      schema: {
        tags: ['config'],
        summary: 'JWKS of the Ed25519 keys promotions are signed with',
        response: { 200: Jwks },
      },
      config: { auth: 'public' },
    },
    async () => config.signer.jwks(),
  );

  routes.post<{ Params: FlagParams; Body: OfrepBody }>(
    '/ofrep/v1/evaluate/flags/:key',
    {
      schema: {
        tags: ['ofrep'],
        summary: 'OFREP: evaluate one flag of the caller’s tenant',
        params: FlagParams,
        body: OfrepBody,
        response: { 200: OfrepResult, 400: OfrepResult, 404: OfrepResult, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      const result = await config.flags.evaluate(
        callerFor(request),
        request.params.key,
        (request.body?.context ?? {}) as EvaluationContext,
      );
      if (isOfrepFailure(result)) return reply.code(result.errorCode === 'FLAG_NOT_FOUND' ? 404 : 400).send(result);
      return result;
    },
  );

  routes.post<{ Body: OfrepBody }>(
    '/ofrep/v1/evaluate/flags',
    {
      schema: {
        tags: ['ofrep'],
        summary: 'OFREP: evaluate every flag of the caller’s tenant',
        body: OfrepBody,
        response: { 200: OfrepBulk, 401: Detail, 403: Detail, 422: Detail },
      },
    },
    async (request, reply) => {
      const { flags, etag } = await config.flags.evaluateAll(
        callerFor(request),
        (request.body?.context ?? {}) as EvaluationContext,
        request.headers['if-none-match'],
      );
      if (!flags) return reply.code(304).send();
      return reply.header('etag', etag).send({ flags });
    },
  );
}
