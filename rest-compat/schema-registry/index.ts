// The schema registry's REST routes (port 8084), thin adapters over subgraphs/schema-registry's
// service: each handler builds the Caller, calls one service function and shapes the JSON
// (snake_case; the wire contract of platform/clients/schema-registry.client.ts). Authentication
// is the kernel's hook on the whole prefix. The domain calls the schema body `definition`; here
// it is `schema`, so input errors are renamed (inputNames).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import {
  IncompatibleSchemaError,
  type SchemaRegistryService,
} from '../../subgraphs/schema-registry/schema-registry.service';
import type { SchemaSubject, SchemaVersionView } from '../../subgraphs/schema-registry/schema-registry.types';
import {
  CheckBody,
  CheckResult,
  CompatibilityBody,
  ListQuery,
  NameParams,
  RegisterBody,
  responses,
  SchemaPage,
  SchemaSummary,
  SchemaVersionView as VersionViewSchema,
  TenantQuery,
  VersionList,
  VersionParams,
} from './schema-registry.schemas';

export function summaryJson(s: SchemaSubject) {
  return {
    name: s.name,
    kind: s.kind,
    latest_version: s.latestVersion,
    compatibility: s.compatibility,
    owner: s.owner,
  };
}

export function versionJson({ subject, version }: SchemaVersionView) {
  return {
    name: subject.name,
    kind: subject.kind,
    version: version.version,
    schema: version.definition,
    compatibility: subject.compatibility,
    owner: subject.owner,
    fingerprint: version.fingerprint,
    created_at: version.createdAt.toISOString(),
    created_by: version.createdBy,
  };
}

/** An incompatible version: 409 with the reasons as data, not only as text. */
async function orIncompatible<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | FastifyReply> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof IncompatibleSchemaError)
      return reply.code(409).send({ detail: { message: err.summary, reasons: err.reasons } });
    throw err;
  }
}

const tags = ['schemas'];
const schemaField = { inputNames: { definition: 'schema' } };

export function registerSchemaRegistryRoutes(routes: FastifyInstance, service: SchemaRegistryService): void {
  routes.get<{ Querystring: ListQuery }>(
    '/schemas',
    {
      schema: {
        tags,
        summary: 'The schemas the tenant sees (built-in and its own), by name',
        querystring: ListQuery,
        response: responses(SchemaPage),
      },
      config: { inputNames: { first: 'limit', after: 'cursor' } },
    },
    async (request) => {
      const q = request.query;
      const page = await service.list(callerOf(request), {
        tenantId: q.tenant_id,
        kind: q.kind,
        first: q.limit,
        after: q.cursor,
      });
      return { schemas: page.schemas.map(summaryJson), next_cursor: page.nextCursor };
    },
  );

  routes.post<{ Params: NameParams; Body: RegisterBody }>(
    '/schemas/:name/versions',
    {
      schema: {
        tags,
        summary: 'Register a version (201; the identical schema again under the same version: 200)',
        params: NameParams,
        body: RegisterBody,
        response: responses(VersionViewSchema, 201, { 200: VersionViewSchema }),
      },
      config: schemaField,
    },
    async (request, reply) =>
      orIncompatible(reply, async () => {
        const b = request.body;
        const result = await service.register(callerOf(request), {
          tenantId: b.tenant_id,
          name: request.params.name,
          version: b.version,
          definition: b.schema,
          kind: b.kind,
          compatibility: b.compatibility,
        });
        return reply.code(result.created ? 201 : 200).send(versionJson(result));
      }),
  );

  routes.get<{ Params: NameParams; Querystring: TenantQuery }>(
    '/schemas/:name/versions',
    {
      schema: {
        tags,
        summary: 'The versions of a schema, oldest first',
        params: NameParams,
        querystring: TenantQuery,
        response: responses(VersionList),
      },
    },
    async (request) => {
      const { subject, versions } = await service.versions(callerOf(request), {
        tenantId: request.query.tenant_id,
        name: request.params.name,
      });
      return { name: subject.name, versions: versions.map((v) => v.version) };
    },
  );

  routes.get<{ Params: VersionParams; Querystring: TenantQuery }>(
    '/schemas/:name/versions/:version',
    {
      schema: {
        tags,
        summary: 'One version of a schema (`latest` for the newest)',
        params: VersionParams,
        querystring: TenantQuery,
        response: responses(VersionViewSchema),
      },
    },
    async (request) =>
      versionJson(
        await service.get(callerOf(request), {
          tenantId: request.query.tenant_id,
          name: request.params.name,
          version: request.params.version,
        }),
      ),
  );

  routes.put<{ Params: NameParams; Body: CompatibilityBody }>(
    '/schemas/:name/compatibility',
    {
      schema: {
        tags,
        summary: 'Set the compatibility mode new versions are checked with',
        params: NameParams,
        body: CompatibilityBody,
        response: responses(SchemaSummary),
      },
    },
    async (request) =>
      summaryJson(
        await service.setCompatibility(callerOf(request), {
          tenantId: request.body.tenant_id,
          name: request.params.name,
          compatibility: request.body.compatibility,
        }),
      ),
  );

  routes.post<{ Params: NameParams; Body: CheckBody }>(
    '/schemas/:name/compatibility-check',
    {
      schema: {
        tags,
        summary: 'Would this schema be accepted as the next version? Registers nothing',
        params: NameParams,
        body: CheckBody,
        response: responses(CheckResult),
      },
      config: schemaField,
    },
    async (request) => {
      const r = await service.checkCompatibility(callerOf(request), {
        tenantId: request.body.tenant_id,
        name: request.params.name,
        definition: request.body.schema,
      });
      return { compatible: r.compatible, reasons: r.reasons };
    },
  );
}
