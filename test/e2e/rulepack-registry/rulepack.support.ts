// The registry behind identity for e2e tests: real HTTP, one fresh database, an in-process bus
// the test can watch, and the people a pack's lifecycle needs (created through identity's admin
// routes): the author (tenant `default`'s admin), a reviewer (a tenant role made by that admin),
// a second admin, a read-only user, another tenant's admin and the platform operator.
import { RULEPACK_CERTIFIED, RULEPACK_DEPRECATED } from '../../../platform/contracts/rulepack.events';
import { contractBus, type NoticeMeta } from '../../../platform/events/contract-bus';
import { createMemoryEventBus } from '../../../platform/events/memory-event-bus';
import type { EventBus } from '../../../platform/events/event-bus';
import type { Env, ServiceDefinition } from '../../../platform/service';
import { identityService } from '../../../services/identity';
import { defineRulePackRegistryService, type RulePackRegistryOptions } from '../../../services/rulepack-registry';
import { startServices, type Harness } from '../../support/service-harness';
import type { TestDatabase } from '../../support/database';
import { call, login, loginOperator, TEST_ENV, type Res } from '../identity/identity.helpers';

export { call, type Res };

export interface People {
  /** root: admin of `default`, the author in most tests. */
  author: string;
  /** rita: role `reviewer` in `default`. */
  reviewer: string;
  /** ada: a second admin of `default`. */
  admin: string;
  /** alice: role `user` (read only) in `default`. */
  reader: string;
  /** bravo-admin: admin of tenant `tenant-b`. */
  otherTenant: string;
  operator: string;
}

export interface RegistryFixture {
  harness: Harness;
  identity: string;
  registry: string;
  bus: EventBus;
  people: People;
  /** Notices published on the bus, by topic. */
  notices: { topic: string; payload: any; meta?: NoticeMeta }[];
  close(): Promise<void>;
}

export async function startRegistry(
  env: Env = {},
  options: RulePackRegistryOptions & { db?: TestDatabase } = {},
): Promise<RegistryFixture> {
  const bus = options.bus ?? createMemoryEventBus();
  const notices: RegistryFixture['notices'] = [];
  // Relayed from the registry's notice outbox as CloudEvents envelopes: the contract bus unwraps them.
  for (const contract of [RULEPACK_CERTIFIED, RULEPACK_DEPRECATED])
    await contractBus(bus, { warn: () => {} }).subscribe(contract, (payload, meta) => {
      notices.push({ topic: contract.topic, payload, meta });
    });
  const registryService: ServiceDefinition = defineRulePackRegistryService({ ...options, bus });
  const harness = await startServices([identityService, registryService], { ...TEST_ENV, ...env }, { db: options.db });
  const identity = harness.services.identity!.url;
  const registry = harness.services['rulepack-registry']!.url;
  const people = await createPeople(identity);
  return {
    harness,
    identity,
    registry,
    bus,
    people,
    notices,
    async close() {
      await harness.close();
      if (!options.bus) await bus.close();
    },
  };
}

export async function createPeople(identity: string): Promise<People> {
  const author = (await login(identity, TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD)).access_token;
  const operator = (await loginOperator(identity)).access_token;
  const expectStatus = (res: Res, status: number) => {
    if (res.status !== status) throw new Error(`setup call answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  // A tenant role `reviewer`, made by the tenant's own admin.
  expectStatus(
    await call(`${identity}/v1/roles?role_name=reviewer&scopes=read`, { method: 'POST', token: author }),
    200,
  );
  expectStatus(
    await call(`${identity}/v1/users`, {
      method: 'POST',
      token: author,
      json: { username: 'rita', password: 'rita-password-1', roles: ['reviewer'] },
    }),
    201,
  );
  expectStatus(
    await call(`${identity}/v1/users`, {
      method: 'POST',
      token: author,
      json: { username: 'ada', password: 'ada-password-1', roles: ['admin'] },
    }),
    201,
  );
  expectStatus(
    await call(`${identity}/v1/tenants`, {
      method: 'POST',
      token: operator,
      json: { id: 'tenant-b', name: 'Tenant B' },
    }),
    201,
  );
  expectStatus(
    await call(`${identity}/v1/users`, {
      method: 'POST',
      token: operator,
      json: { username: 'bravo-admin', password: 'bravo-password-1', tenant_id: 'tenant-b', roles: ['admin'] },
    }),
    201,
  );
  return {
    author,
    operator,
    reviewer: (await login(identity, 'rita', 'rita-password-1')).access_token,
    admin: (await login(identity, 'ada', 'ada-password-1')).access_token,
    reader: (await login(identity, TEST_ENV.DEV_USER_USERNAME, TEST_ENV.DEV_USER_PASSWORD)).access_token,
    otherTenant: (await login(identity, 'bravo-admin', 'bravo-password-1', 'tenant-b')).access_token,
  };
}

/** A valid pack (spec 03's fields plus the engine's operands). */
export function samplePack(packId: string, version: string, overrides: Record<string, unknown> = {}) {
  return {
    metadata: { pack_id: packId, version, name: `${packId} checks` },
    rules: [
      {
        rule_id: 'amount-positive',
        type: 'FATAL',
        field: 'amount',
        operator: '>',
        value: 0,
        error_message: 'amount must be positive',
      },
      {
        rule_id: 'iban-format',
        type: 'WARNING',
        field: 'iban',
        operator: 'matches',
        value: '^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$',
        error_message: 'IBAN looks wrong',
        kind: 'format',
      },
    ],
    ...overrides,
  };
}

/** The REST calls of the registry, with a token. */
export function registryClient(base: string) {
  const v = (id: string, version: string) =>
    `${base}/rulepacks/${encodeURIComponent(id)}/versions/${encodeURIComponent(version)}`;
  return {
    submit: (token: string, body: unknown) => call(`${base}/rulepacks`, { method: 'POST', token, json: body }),
    requestReview: (token: string, id: string, version: string) =>
      call(`${v(id, version)}/submit`, { method: 'POST', token, json: {} }),
    certify: (token: string, id: string, version: string, body: unknown = {}) =>
      call(`${v(id, version)}/certify`, { method: 'POST', token, json: body }),
    reject: (token: string, id: string, version: string, notes: string) =>
      call(`${v(id, version)}/reject`, { method: 'POST', token, json: { notes } }),
    deprecate: (token: string, id: string, version: string, body: unknown = {}) =>
      call(`${v(id, version)}/deprecate`, { method: 'POST', token, json: body }),
    get: (token: string, id: string, version: string) => call(v(id, version), { token }),
    decisions: (token: string, id: string, version: string) => call(`${v(id, version)}/decisions`, { token }),
    latest: (token: string, id: string) => call(`${base}/rulepacks/${encodeURIComponent(id)}`, { token }),
    versions: (token: string, id: string) => call(`${base}/rulepacks/${encodeURIComponent(id)}/versions`, { token }),
    list: (token: string, query = '') => call(`${base}/rulepacks${query}`, { token }),
    keys: () => call(`${base}/.well-known/rulepack-keys.json`),
  };
}

/** Submits, asks for review and certifies (by the reviewer); returns the certified view. */
export async function certified(
  api: ReturnType<typeof registryClient>,
  people: People,
  pack: ReturnType<typeof samplePack>,
): Promise<any> {
  const { pack_id: id, version } = pack.metadata;
  const submitted = await api.submit(people.author, { pack });
  if (submitted.status !== 201 && submitted.status !== 200)
    throw new Error(`submit: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  const review = await api.requestReview(people.author, id, version);
  if (review.status !== 200) throw new Error(`review: ${review.status} ${JSON.stringify(review.body)}`);
  const done = await api.certify(people.reviewer, id, version);
  if (done.status !== 200) throw new Error(`certify: ${done.status} ${JSON.stringify(done.body)}`);
  return done.body;
}
