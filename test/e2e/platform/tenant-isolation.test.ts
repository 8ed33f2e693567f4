// The tenant boundary, walked: every REST route of every registered service (from its own
// OpenAPI document), every /api/v1 gateway route, every GraphQL root field of the composed
// supergraph and `_entities` on every subgraph, called by tenant B's admin with tenant A's
// tenant id and record ids. Each answer must be a refusal (403/404/4xx) or empty of A's data,
// never a 5xx, and nothing of A may change. A new service is walked by being in the registry.
// The walk is first run with A's own token, which must find A's data: so the detector works.
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  GraphQLEnumType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { readSubgraphSchema } from '../../../platform/graphql/subgraph-schema';
import { startPlatform, type Platform } from '../router/platform.support';

jest.setTimeout(180_000);

const A = 'default';
const B = 'tenant-b';
const SECRET = 'A-SECRET-7c1f9e';
const ENV = {
  PASSWORD_SCRYPT_LOG_N: '10',
  DEV_ADMIN_USERNAME: 'alpha-admin',
  DEV_ADMIN_PASSWORD: 'alpha-admin-password',
  DEV_USER_USERNAME: 'alpha-user',
  DEV_USER_PASSWORD: 'alpha-user-password',
  PLATFORM_ADMIN_USERNAME: 'operator',
  PLATFORM_ADMIN_PASSWORD: 'operator-password-1',
  RATE_LIMIT_PER_SECOND: '100000',
  RATE_LIMIT_BURST: '100000',
};

interface Attempt {
  door: string;
  status: number;
  text: string;
  /** What the request carried: a marker it echoes back is no leak (the caller sent it). */
  sent: string;
}

let platform: Platform;
let gateway: string;
let urls: Record<string, string> = {};
const tokens: { a: string; b: string } = { a: '', b: '' };
/** Strings only tenant A's data contains: its records' ids, a secret in its events, its usernames. */
const markers: string[] = [SECRET, 'alpha-admin', 'alpha-user'];
const ids: { event: string; user: string; otherUser: string } = { event: '', user: '', otherUser: '' };

async function json(
  url: string,
  init: RequestInit & { token?: string; body?: string } = {},
): Promise<{ status: number; text: string; sent: string }> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set('authorization', `Bearer ${init.token}`);
  if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const res = await fetch(url, { ...init, headers });
  return { status: res.status, text: await res.text(), sent: `${decodeURIComponent(url)} ${init.body ?? ''}` };
}

async function login(username: string, password: string, tenantId: string): Promise<string> {
  const res = await json(`${urls.identity}/v1/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ username, password, tenant_id: tenantId }),
  });
  if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${res.text}`);
  return (JSON.parse(res.text) as { access_token: string }).access_token;
}

beforeAll(async () => {
  platform = await startPlatform(ENV);
  ({ gateway, urls } = platform);

  // Tenant A (`default`): its admin writes events carrying the secret.
  tokens.a = await login('alpha-admin', 'alpha-admin-password', A);
  const appended = await json(`${urls.ledger}/append`, {
    method: 'POST',
    token: tokens.a,
    body: JSON.stringify({
      tenant_id: A,
      event_type: 'kyc_check',
      event_data: { note: SECRET },
      user_id: 'alpha-admin',
      correlation_id: `corr-${SECRET}`,
    }),
  });
  ids.event = (JSON.parse(appended.text) as { id: string }).id;
  const users = await platform.db.prisma.user.findMany({ where: { tenantId: A }, orderBy: { username: 'asc' } });
  ids.user = users[0]!.id;
  ids.otherUser = users[1]!.id;
  const chain = await platform.db.prisma.ledgerEvent.findUniqueOrThrow({ where: { id: ids.event } });
  markers.push(ids.event, ids.user, ids.otherUser, chain.chainHash, chain.contentHash);

  // Tenant B and its admin (the most a tenant can give anyone), made by the platform operator.
  const operator = await login('operator', 'operator-password-1', 'platform');
  expect(
    (
      await json(`${urls.identity}/v1/tenants`, {
        method: 'POST',
        token: operator,
        body: JSON.stringify({ id: B, name: 'Tenant B' }),
      })
    ).status,
  ).toBe(201);
  expect(
    (
      await json(`${urls.identity}/v1/users`, {
        method: 'POST',
        token: operator,
        body: JSON.stringify({
          username: 'bravo-admin',
          password: 'bravo-admin-password',
          tenant_id: B,
          roles: ['admin', 'user'],
        }),
      })
    ).status,
  ).toBe(201);
  tokens.b = await login('bravo-admin', 'bravo-admin-password', B);
});

afterAll(async () => platform?.close());

/** What of tenant A's is visible to B: nothing, or the route leaks. */
function leaked(attempts: Attempt[]): { door: string; status: number; marker: string }[] {
  return attempts.flatMap((a) =>
    markers
      .filter((m) => a.text.includes(m) && !a.sent.includes(m))
      .map((marker) => ({ door: a.door, status: a.status, marker })),
  );
}

function serverErrors(attempts: Attempt[]): Attempt[] {
  return attempts.filter((a) => a.status >= 500);
}

/** A's data as the outside world can count it: nothing B does may change it. */
async function snapshotOfA(): Promise<unknown> {
  const [events, users, roles] = await Promise.all([
    platform.db.prisma.ledgerEvent.count({ where: { tenantId: A } }),
    platform.db.prisma.user.findMany({
      where: { tenantId: A },
      select: { username: true, isActive: true, roles: { select: { roleId: true } } },
      orderBy: { username: 'asc' },
    }),
    platform.db.prisma.role.count(),
  ]);
  return { events, users, roles };
}

// ---------------------------------------------------------------- REST, from each OpenAPI document

interface OpenApiOperation {
  parameters?: { name: string; in: string; required?: boolean; schema?: SchemaObject }[];
  requestBody?: { content?: Record<string, { schema?: SchemaObject }> };
}
interface SchemaObject {
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
  required?: string[];
  enum?: unknown[];
  items?: SchemaObject;
  format?: string;
}

/** A value for a field named `name`: A's tenant and ids wherever a name suggests them. */
function valueFor(name: string, schema: SchemaObject = {}): unknown {
  if (/tenant/i.test(name)) return A;
  if (/^(entry_id|event_id|id)$/i.test(name)) return ids.event;
  if (/user_id|userId/.test(name)) return ids.user;
  if (/username|user/i.test(name)) return 'alpha-admin';
  if (/correlation/i.test(name)) return `corr-${SECRET}`;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [valueFor(name, schema.items)];
  if (type === 'object') return bodyFor(schema);
  if (schema.format === 'uuid') return ids.user;
  return 'x';
}

function bodyFor(schema: SchemaObject = {}): Record<string, unknown> {
  const body: Record<string, unknown> = { tenant_id: A };
  for (const [name, prop] of Object.entries(schema.properties ?? {})) body[name] = valueFor(name, prop);
  return body;
}

async function walkRest(token: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const service of SERVICES.filter((s) => s.name !== 'gateway')) {
    const doc = JSON.parse((await json(`${urls[service.name]}/docs/openapi.json`)).text) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const concrete = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(valueFor(name))));
        const query = new URLSearchParams({ tenant_id: A });
        for (const p of op.parameters ?? [])
          if (p.in === 'query') query.set(p.name, String(valueFor(p.name, p.schema)));
        const content = op.requestBody?.content ?? {};
        const form = content['application/x-www-form-urlencoded'];
        let body: string | undefined;
        let contentType: string | undefined;
        if (content['application/json']) {
          body = JSON.stringify(bodyFor(content['application/json'].schema));
          contentType = 'application/json';
        } else if (form) {
          body = new URLSearchParams(
            Object.entries(bodyFor(form.schema)).map(([k, v]): [string, string] => [k, String(v)]),
          ).toString();
          contentType = 'application/x-www-form-urlencoded';
        } else if (['post', 'put', 'patch'].includes(method)) {
          body = JSON.stringify({ tenant_id: A });
          contentType = 'application/json';
        }
        const headers: Record<string, string> = {
          'x-tenant-id': A,
          ...(contentType ? { 'content-type': contentType } : {}),
        };
        const res = await json(`${urls[service.name]}${concrete}?${query}`, {
          method: method.toUpperCase(),
          token,
          headers,
          body,
        });
        attempts.push({ door: `${service.name} ${method.toUpperCase()} ${path}`, ...res });
      }
    }
  }
  return attempts;
}

async function walkGateway(token: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const service of registryOf()) {
    for (const route of service.gatewayRoutes ?? []) {
      for (const method of [route.method].flat()) {
        const url = `${gateway}${route.url.replace('*', 'jobs/x')}?tenant_id=${A}`;
        const body =
          method === 'GET' || method === 'DELETE'
            ? undefined
            : JSON.stringify({ tenant_id: A, event_type: 'x', event_data: {} });
        const res = await json(url, { method, token, headers: { 'x-tenant-id': A }, body });
        attempts.push({ door: `gateway ${method} ${route.url}`, ...res });
      }
    }
  }
  return attempts;
}

// ---------------------------------------------------------------- GraphQL, from the supergraph

function argValue(arg: { name: string; type: GraphQLInputType }, depth = 0): unknown {
  const type = isNonNullType(arg.type) ? arg.type.ofType : arg.type;
  if (isListType(type)) return [argValue({ name: arg.name, type: type.ofType }, depth)];
  if (isInputObjectType(type)) {
    if (depth > 3) return {};
    return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, argValue(f, depth + 1)]));
  }
  if (type instanceof GraphQLEnumType) return type.getValues()[0]!.value;
  const scalar = (type as GraphQLScalarType).name;
  if (/tenant/i.test(arg.name)) return A;
  if (arg.name === 'first' || arg.name === 'limit') return 5;
  if (arg.name === 'after') return null;
  if (/userId/.test(arg.name)) return ids.user;
  if (scalar === 'ID' || arg.name === 'id') return ids.event;
  if (/username/i.test(arg.name)) return 'alpha-admin';
  if (scalar === 'Int' || scalar === 'Float') return 1;
  if (scalar === 'Boolean') return false;
  if (scalar === 'JSON') return { probe: true };
  return 'x';
}

/** Every scalar field, and the scalars of nested objects, two levels down. */
function selection(type: GraphQLOutputType, depth: number): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!isObjectType(named) || depth > 2) return '{ __typename }';
  const fields = Object.values((named as GraphQLObjectType).getFields())
    .filter((f) => f.args.every((a: GraphQLArgument) => !(a.type instanceof GraphQLNonNull)))
    .map((f) => (isLeafType(getNamedType(f.type)) ? f.name : `${f.name} ${selection(f.type, depth + 1)}`));
  return `{ __typename ${fields.join(' ')} }`;
}

function operationFor(
  schema: GraphQLSchema,
  kind: 'query' | 'mutation',
  fieldName: string,
): { query: string; variables: Record<string, unknown> } {
  const root = kind === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
  const field = root.getFields()[fieldName]!;
  const defs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`);
  const args = field.args.map((a) => `${a.name}: $${a.name}`);
  return {
    query: `${kind}${defs.length ? `(${defs.join(', ')})` : ''} { ${fieldName}${args.length ? `(${args.join(', ')})` : ''} ${selection(field.type, 0)} }`,
    variables: Object.fromEntries(field.args.map((a) => [a.name, argValue(a)])),
  };
}

async function supergraphSchema(token: string): Promise<GraphQLSchema> {
  const res = await json(`${gateway}/graphql`, {
    method: 'POST',
    token,
    body: JSON.stringify({ query: getIntrospectionQuery() }),
  });
  return buildClientSchema((JSON.parse(res.text) as { data: IntrospectionQuery }).data);
}

async function walkGraphQL(token: string, kinds: ('query' | 'mutation')[]): Promise<Attempt[]> {
  const schema = await supergraphSchema(token);
  const attempts: Attempt[] = [];
  for (const kind of kinds) {
    const root = kind === 'query' ? schema.getQueryType() : schema.getMutationType();
    for (const name of Object.keys(root?.getFields() ?? {})) {
      const op = operationFor(schema, kind, name);
      const res = await json(`${gateway}/graphql`, {
        method: 'POST',
        token,
        headers: { 'x-tenant-id': A },
        body: JSON.stringify(op),
      });
      attempts.push({ door: `graphql ${kind} ${name}`, ...res });
    }
  }
  return attempts;
}

/** Every @key entity of every subgraph, referenced by A's ids, straight at the subgraph. */
async function walkEntities(token: string): Promise<Attempt[]> {
  const attempts: Attempt[] = [];
  for (const service of SERVICES.filter((s) => s.subgraph)) {
    const sdl = readSubgraphSchema(service.subgraph!);
    for (const match of sdl.matchAll(/type (\w+) @key\(fields: "([^"]+)"(?![^)]*resolvable: false)/g)) {
      const [, typename, keyFields] = match as unknown as [string, string, string];
      const representation: Record<string, unknown> = { __typename: typename };
      for (const key of keyFields!.split(/\s+/))
        representation[key] =
          key === 'username' ? 'alpha-admin' : typename === 'User' ? ids.user : typename === 'Tenant' ? A : ids.event;
      const res = await json(`${urls[service.name]}/graphql`, {
        method: 'POST',
        token,
        headers: { 'x-tenant-id': A },
        body: JSON.stringify({
          query: `query ($r: [_Any!]!) { _entities(representations: $r) { __typename ... on ${typename} { ${keyFields} } } }`,
          variables: { r: [representation] },
        }),
      });
      attempts.push({ door: `${service.name} _entities ${typename}`, ...res });
    }
  }
  return attempts;
}

// ---------------------------------------------------------------- the walks

it("the detector works: tenant A's own token finds A's data by REST, the gateway and GraphQL", async () => {
  const own = [
    ...(await walkRest(tokens.a)),
    ...(await walkGateway(tokens.a)),
    ...(await walkGraphQL(tokens.a, ['query'])),
    ...(await walkEntities(tokens.a)),
  ];
  const found = new Set(leaked(own).map((l) => l.door.split(' ')[0]));
  expect([...found].sort()).toEqual(expect.arrayContaining(['gateway', 'graphql', 'identity', 'ledger']));
});

it("every REST route of every service: tenant B's admin gets a refusal or nothing of A's", async () => {
  const before = await snapshotOfA();
  const attempts = await walkRest(tokens.b);
  expect(attempts.length).toBeGreaterThanOrEqual(20);
  expect(serverErrors(attempts)).toEqual([]);
  expect(leaked(attempts)).toEqual([]);
  expect(await snapshotOfA()).toEqual(before);
});

it("every /api/v1 gateway route: a refusal or nothing of A's", async () => {
  const attempts = await walkGateway(tokens.b);
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  expect(leaked(attempts)).toEqual([]);
  // Naming A's tenant at the gateway is refused outright.
  for (const a of attempts.filter((x) => x.door.includes('/ledger/')))
    expect({ door: a.door, status: a.status }).toEqual({ door: a.door, status: 403 });
});

it("every GraphQL root field, queries and mutations: refused or empty of A's data, and A unchanged", async () => {
  const before = await snapshotOfA();
  const attempts = await walkGraphQL(tokens.b, ['query', 'mutation']);
  expect(attempts.length).toBeGreaterThanOrEqual(10);
  expect(serverErrors(attempts)).toEqual([]);
  expect(leaked(attempts)).toEqual([]);
  expect(await snapshotOfA()).toEqual(before);
});

it("_entities on every subgraph: A's records resolve to null for B", async () => {
  const attempts = await walkEntities(tokens.b);
  expect(attempts.length).toBeGreaterThanOrEqual(3);
  expect(serverErrors(attempts)).toEqual([]);
  expect(leaked(attempts)).toEqual([]);
});
