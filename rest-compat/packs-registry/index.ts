// The packs registry's REST routes (port 8089), thin adapters over subgraphs/packs-registry's
// service: each handler builds the caller (with its token, forwarded to the rule-pack and schema
// registries), calls one service function and shapes snake_case JSON. Authentication is the
// kernel's hook on the whole prefix (platform/service-app.ts).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import { packsCaller } from '../../subgraphs/packs-registry/graphql.context';
import type { DependencyGraph } from '../../subgraphs/packs-registry/pack-dependencies';
import type { PacksService } from '../../subgraphs/packs-registry/pack.service';
import type { PackEntry, PacksCaller } from '../../subgraphs/packs-registry/pack.types';
import {
  DeprecateBody,
  EntryDetail,
  Graph,
  ListQuery,
  PackPage,
  PackParams,
  responses,
  SubmitBody,
  TenantQuery,
  VersionList,
  VersionParams,
} from './packs-registry.schemas';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A catalog entry as REST shows it; `detail` adds the artifact itself. */
export function entryJson(e: PackEntry, detail = false) {
  return {
    pack_id: e.packId,
    version: e.version,
    kind: e.kind,
    status: e.status,
    owner_tenant: e.ownerTenant,
    author: e.author,
    reviewers: e.reviewers,
    submitted_at: e.submittedAt.toISOString(),
    certified_at: iso(e.certifiedAt),
    deprecated_at: iso(e.deprecatedAt),
    replacement: e.replacement,
    artifact: {
      format: e.artifactFormat,
      sha256: e.artifactSha256,
      pointer: e.artifactPointer,
      ...(detail ? { content: e.artifactContent, source: e.artifactSource } : {}),
    },
    dependencies: e.dependencies,
  };
}

export function graphJson(g: DependencyGraph) {
  return {
    root: g.root,
    nodes: g.nodes.map((n) => ({
      id: n.id,
      kind: n.kind,
      name: n.name,
      version: n.version,
      status: n.status,
      source: n.source,
      owner_tenant: n.ownerTenant,
      replacement: n.replacement,
    })),
    edges: g.edges,
  };
}

const callerFor = (request: FastifyRequest): PacksCaller =>
  packsCaller(callerOf(request), request.headers.authorization);

export function registerPacksRegistryRoutes(routes: FastifyInstance, packs: PacksService): void {
  routes.post<{ Body: SubmitBody }>(
    '/packs',
    {
      schema: {
        tags: ['packs'],
        summary:
          'Submit a workflow pack (JSON or YAML) as a draft; the same id, version and content again returns the stored entry (200)',
        body: SubmitBody,
        response: { ...responses(EntryDetail, 201), 200: EntryDetail },
      },
    },
    async (request, reply) => {
      const { entry, created } = await packs.submit(callerFor(request), {
        artifact: request.body.artifact,
        format: request.body.format,
        tenantId: request.body.tenant_id,
      });
      return reply.code(created ? 201 : 200).send(entryJson(entry, true));
    },
  );

  routes.get<{ Querystring: ListQuery }>(
    '/packs',
    {
      schema: {
        tags: ['packs'],
        summary: 'Catalog entries visible to the caller, by pack id and version',
        querystring: ListQuery,
        response: responses(PackPage),
      },
      config: { inputNames: { first: 'limit', after: 'cursor' } },
    },
    async (request) => {
      const q = request.query;
      const page = await packs.list(callerFor(request), {
        kind: q.kind,
        status: q.status,
        first: q.limit,
        after: q.cursor,
        tenantId: q.tenant_id,
      });
      return { packs: page.entries.map((e) => entryJson(e)), next_cursor: page.hasNextPage ? page.endCursor : null };
    },
  );

  routes.get<{ Params: PackParams; Querystring: TenantQuery }>(
    '/packs/:pack_id',
    {
      schema: {
        tags: ['packs'],
        summary: 'The newest certified version of a pack',
        params: PackParams,
        querystring: TenantQuery,
        response: responses(EntryDetail),
      },
      config: { inputLocation: 'path' },
    },
    async (request) =>
      entryJson(
        await packs.latestCertified(callerFor(request), {
          packId: request.params.pack_id,
          tenantId: request.query.tenant_id,
        }),
        true,
      ),
  );

  routes.get<{ Params: PackParams; Querystring: TenantQuery }>(
    '/packs/:pack_id/versions',
    {
      schema: {
        tags: ['packs'],
        summary: 'Every visible version of a pack, oldest first',
        params: PackParams,
        querystring: TenantQuery,
        response: responses(VersionList),
      },
      config: { inputLocation: 'path' },
    },
    async (request) => {
      const versions = await packs.versions(callerFor(request), {
        packId: request.params.pack_id,
        tenantId: request.query.tenant_id,
      });
      return { pack_id: request.params.pack_id, versions: versions.map((e) => entryJson(e)) };
    },
  );

  routes.get<{ Params: VersionParams; Querystring: TenantQuery }>(
    '/packs/:pack_id/versions/:version',
    {
      schema: {
        tags: ['packs'],
        summary: 'One pack version with its artifact',
        params: VersionParams,
        querystring: TenantQuery,
        response: responses(EntryDetail),
      },
      config: { inputLocation: 'path' },
    },
    async (request) =>
      entryJson(
        await packs.get(callerFor(request), {
          packId: request.params.pack_id,
          version: request.params.version,
          tenantId: request.query.tenant_id,
        }),
        true,
      ),
  );

  routes.get<{ Params: VersionParams; Querystring: TenantQuery }>(
    '/packs/:pack_id/versions/:version/dependencies',
    {
      schema: {
        tags: ['packs'],
        summary: 'The resolved dependency graph (422 for missing dependencies or cycles, 409 for deprecated ones)',
        params: VersionParams,
        querystring: TenantQuery,
        response: responses(Graph),
      },
      config: { inputLocation: 'path' },
    },
    async (request) =>
      graphJson(
        await packs.dependencies(callerFor(request), {
          packId: request.params.pack_id,
          version: request.params.version,
          tenantId: request.query.tenant_id,
        }),
      ),
  );

  routes.post<{ Params: VersionParams }>(
    '/packs/:pack_id/versions/:version/certify',
    {
      schema: {
        tags: ['packs'],
        summary:
          'draft -> certified: role admin or reviewer in the owner tenant, never the author; every dependency resolved and certified',
        params: VersionParams,
        response: responses(EntryDetail),
      },
      config: { inputLocation: 'path' },
    },
    async (request) =>
      entryJson(
        await packs.certify(callerFor(request), { packId: request.params.pack_id, version: request.params.version }),
        true,
      ),
  );

  routes.post<{ Params: VersionParams; Body: DeprecateBody | undefined }>(
    '/packs/:pack_id/versions/:version/deprecate',
    {
      schema: {
        tags: ['packs'],
        summary: 'certified -> deprecated, optionally naming a certified replacement version',
        params: VersionParams,
        body: DeprecateBody,
        response: responses(EntryDetail),
      },
    },
    async (request) =>
      entryJson(
        await packs.deprecate(callerFor(request), {
          packId: request.params.pack_id,
          version: request.params.version,
          replacementVersion: request.body?.replacement_version,
          tenantId: request.body?.tenant_id,
        }),
        true,
      ),
  );
}
