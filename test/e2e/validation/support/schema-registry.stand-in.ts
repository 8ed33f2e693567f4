// A stand-in for the schema registry's GET /schemas (platform/clients/schema-registry.client.ts),
// recording what the validation service forwards.
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import type { SchemaSummary } from '../../../../platform/clients/schema-registry.client';
import type { Seen } from './rulepack-registry.stand-in';

export const BUILT_IN: SchemaSummary[] = [
  { name: 'rule-pack', kind: 'rule-pack', latest_version: '1.0.0', compatibility: 'BACKWARD', owner: 'platform' },
  {
    name: 'workflow-pack',
    kind: 'workflow-pack',
    latest_version: '1.0.0',
    compatibility: 'BACKWARD',
    owner: 'platform',
  },
];

export async function startSchemaRegistry(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const app = Fastify();
  app.get<{ Querystring: { kind?: string } }>('/schemas', async (request) => {
    const tenant = request.headers['x-tenant-id'];
    seen.push({
      path: request.url,
      authorization: request.headers.authorization,
      tenant: typeof tenant === 'string' ? tenant : undefined,
    });
    return { schemas: BUILT_IN.filter((s) => !request.query.kind || s.kind === request.query.kind) };
  });
  app.get<{ Params: { name: string; version: string } }>('/schemas/:name/versions/:version', async (request, reply) => {
    const tenant = request.headers['x-tenant-id'];
    seen.push({
      path: request.url,
      authorization: request.headers.authorization,
      tenant: typeof tenant === 'string' ? tenant : undefined,
    });
    const found = BUILT_IN.find(
      (s) =>
        s.name === request.params.name &&
        (request.params.version === 'latest' || request.params.version === s.latest_version),
    );
    if (!found) return reply.code(404).send({ detail: 'Schema not found' });
    return {
      name: found.name,
      kind: found.kind,
      version: found.latest_version,
      schema: { type: 'object' },
      compatibility: found.compatibility,
      owner: found.owner,
      created_at: '2026-01-01T00:00:00Z',
      created_by: null,
    };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, seen, close: () => app.close() };
}
