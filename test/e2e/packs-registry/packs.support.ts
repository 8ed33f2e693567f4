// Support for the packs registry's e2e tests: small Fastify stand-ins that speak the wire
// contracts of the rule-pack registry (platform/clients/rulepack-registry.client.ts) and the
// schema registry (platform/clients/schema-registry.client.ts), both built in parallel, plus
// users in two tenants made through identity, and workflow-pack builders.
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { RulePackStatus, RulePackVersionView } from '../../../platform/clients/rulepack-registry.client';
import type { SchemaVersionView } from '../../../platform/clients/schema-registry.client';

export interface StandIn {
  url: string;
  /** Authorization headers the stand-in received, in order. */
  authorizations: (string | undefined)[];
  close(): Promise<void>;
}

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

export interface RulePackStandIn extends StandIn {
  put(pack: {
    pack_id: string;
    version: string;
    status?: RulePackStatus;
    owner_tenant?: string;
    replacement?: { pack_id: string; version: string } | null;
  }): void;
  /** Answers 503 to every pack request while true. */
  down: boolean;
}

/** The rule-pack registry's GET rulepacks/{id}[/versions/{version}], from an in-memory table. */
export async function startRulePackStandIn(): Promise<RulePackStandIn> {
  const packs = new Map<string, RulePackVersionView>();
  const authorizations: (string | undefined)[] = [];
  const app = Fastify();
  const state = { down: false };
  app.addHook('onRequest', async (request, reply) => {
    authorizations.push(request.headers.authorization);
    if (!request.headers.authorization) return reply.code(401).send({ detail: 'Not authenticated' });
    if (state.down) return reply.code(503).send({ detail: 'down' });
  });
  app.get<{ Params: { id: string; version: string } }>('/rulepacks/:id/versions/:version', async (request, reply) => {
    const pack = packs.get(`${request.params.id}@${request.params.version}`);
    return pack ?? reply.code(404).send({ detail: 'Rule pack not found' });
  });
  const url = await listen(app);
  return {
    url,
    authorizations,
    get down() {
      return state.down;
    },
    set down(v: boolean) {
      state.down = v;
    },
    put(p) {
      packs.set(`${p.pack_id}@${p.version}`, {
        pack_id: p.pack_id,
        version: p.version,
        status: p.status ?? 'certified',
        pack: { metadata: { pack_id: p.pack_id, version: p.version }, rules: [] },
        sha256: '0'.repeat(64),
        owner_tenant: p.owner_tenant ?? 'default',
        author: 'rule-author',
        reviewers: ['rule-reviewer'],
        submitted_at: new Date().toISOString(),
        certified_at: new Date().toISOString(),
        signature: null,
        key_id: null,
        deprecated_at: p.status === 'deprecated' ? new Date().toISOString() : null,
        replacement: p.replacement ?? null,
      });
    },
    close: () => app.close(),
  };
}

export interface SchemaStandIn extends StandIn {
  put(name: string, version: string): void;
}

/** The schema registry's GET schemas/{name}/versions/{version}, from an in-memory table. */
export async function startSchemaStandIn(): Promise<SchemaStandIn> {
  const schemas = new Map<string, SchemaVersionView>();
  const authorizations: (string | undefined)[] = [];
  const app = Fastify();
  app.addHook('onRequest', async (request, reply) => {
    authorizations.push(request.headers.authorization);
    if (!request.headers.authorization) return reply.code(401).send({ detail: 'Not authenticated' });
  });
  app.get<{ Params: { name: string; version: string } }>('/schemas/:name/versions/:version', async (request, reply) => {
    const s = schemas.get(`${request.params.name}@${request.params.version}`);
    return s ?? reply.code(404).send({ detail: 'Schema not found' });
  });
  const url = await listen(app);
  return {
    url,
    authorizations,
    put(name, version) {
      schemas.set(`${name}@${version}`, {
        name,
        kind: 'data',
        version,
        schema: { type: 'object' },
        compatibility: 'BACKWARD',
        owner: 'platform',
        created_at: new Date().toISOString(),
        created_by: null,
      });
    },
    close: () => app.close(),
  };
}

/** Identity's environment for these tests: cheap hashing and a platform operator. */
export const IDENTITY_ENV = {
  PASSWORD_SCRYPT_LOG_N: '10',
  PLATFORM_ADMIN_USERNAME: 'operator',
  PLATFORM_ADMIN_PASSWORD: 'operator-password-1',
};

export interface Res {
  status: number;
  body: any;
}

export async function call(
  url: string,
  init: { method?: string; token?: string; json?: unknown; raw?: string } = {},
): Promise<Res> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined || init.raw !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.json === undefined && init.raw === undefined ? 'GET' : 'POST'),
    headers,
    body: init.raw ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.status, body };
}

export async function login(identity: string, username: string, password: string, tenantId?: string): Promise<string> {
  const res = await call(`${identity}/v1/auth/login`, {
    json: { username, password, ...(tenantId ? { tenant_id: tenantId } : {}) },
  });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

export interface Tokens {
  /** Tenant `default`'s admin (roles admin, user). */
  admin: string;
  /** Tenant `default`: role `author` (read, write): submits, never certifies. */
  author: string;
  /** Tenant `default`: role `reviewer` (read): certifies and deprecates. */
  reviewer: string;
  /** Tenant `default`: the development user (role user, read only). */
  user: string;
  /** Tenant `tenant-b`'s admin. */
  otherAdmin: string;
  /** The platform operator. */
  operator: string;
}

/** Users of both tenants, made through identity's own admin routes. */
export async function makeUsers(identity: string): Promise<Tokens> {
  const admin = await login(identity, 'admin', 'admin-dev-password');
  const operator = await login(identity, 'operator', 'operator-password-1', 'platform');
  for (const [role, scopes] of [
    ['author', 'read,write'],
    ['reviewer', 'read'],
  ] as const) {
    const r = await call(`${identity}/v1/roles?role_name=${role}&scopes=${scopes}`, { method: 'POST', token: admin });
    if (r.status !== 200) throw new Error(`role ${role}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  for (const [username, role] of [
    ['alice', 'author'],
    ['rita', 'reviewer'],
  ]) {
    const r = await call(`${identity}/v1/users`, {
      token: admin,
      json: { username, password: `${username}-password-1`, roles: [role] },
    });
    if (r.status !== 201) throw new Error(`user ${username}: ${r.status} ${JSON.stringify(r.body)}`);
  }
  const t = await call(`${identity}/v1/tenants`, { token: operator, json: { id: 'tenant-b', name: 'Tenant B' } });
  if (t.status !== 201) throw new Error(`tenant-b: ${t.status} ${JSON.stringify(t.body)}`);
  const b = await call(`${identity}/v1/users`, {
    token: operator,
    json: { username: 'bravo', password: 'bravo-password-1', tenant_id: 'tenant-b', roles: ['admin', 'user'] },
  });
  if (b.status !== 201) throw new Error(`bravo: ${b.status} ${JSON.stringify(b.body)}`);
  return {
    admin,
    operator,
    author: await login(identity, 'alice', 'alice-password-1'),
    reviewer: await login(identity, 'rita', 'rita-password-1'),
    user: await login(identity, 'user', 'user-dev-password'),
    otherAdmin: await login(identity, 'bravo', 'bravo-password-1', 'tenant-b'),
  };
}

/** A valid workflow pack; `extra` replaces top-level members, `steps` the steps. */
export function workflowPack(
  packId: string,
  version: string,
  options: { steps?: unknown[]; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  return {
    metadata: { pack_id: packId, version, workflow_type: 'legal', name: `Pack ${packId}`, created_by: 'tests' },
    steps: options.steps ?? [
      {
        step: 'record',
        type: 'action',
        action: 'record_transfer',
        compensation: 'void_transfer',
        idempotency_key: '${workflow_id}:record',
      },
    ],
    ...options.extra,
  };
}
