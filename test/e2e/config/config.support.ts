// Support for the config service's e2e tests: identity, the schema registry, the workflow service
// and config on one test database, with users of two tenants and two platform operators, and the
// helpers that register a namespace schema and approve a promotion through the workflow.
import { identityService } from '../../../services/identity';
import { schemaRegistryService } from '../../../services/schema-registry';
import { workflowService } from '../../../services/workflow';
import { defineConfigService, type ConfigServiceOptions } from '../../../services/config';
import type { ServiceDefinition } from '../../../platform/service';
import { startServices, type Harness } from '../../support/service-harness';
import { freePort } from '../../support/waiting';
import { call, IDENTITY_ENV, login, type Res } from '../packs-registry/packs.support';

export { call, type Res };

export interface ConfigTokens {
  /** Tenant `default`'s seeded admin. */
  admin: string;
  /** A second admin of `default` (approves what `admin` requests). */
  bob: string;
  /** Tenant `default`'s development user (read only). */
  user: string;
  /** Tenant `tenant-b`'s admin. */
  otherAdmin: string;
  operator: string;
  /** A second platform operator. */
  operator2: string;
}

export interface ConfigPlatform {
  h: Harness;
  url: string;
  identity: string;
  registry: string;
  workflow: string;
  t: ConfigTokens;
  close(): Promise<void>;
}

/** `consumers`: services that read config at run time (the AI broker), started after it on the same bus. */
export async function startConfigPlatform(
  env: Record<string, string> = {},
  options: ConfigServiceOptions = {},
  consumers: ServiceDefinition[] = [],
): Promise<ConfigPlatform> {
  const ports = {
    identity: await freePort(),
    'schema-registry': await freePort(),
    workflow: await freePort(),
    config: await freePort(),
  };
  const at = (p: number) => `http://127.0.0.1:${p}`;
  const h = await startServices(
    [identityService, schemaRegistryService, workflowService, defineConfigService(options), ...consumers],
    {
      ...IDENTITY_ENV,
      IDENTITY_URL: at(ports.identity),
      SCHEMA_REGISTRY_URL: at(ports['schema-registry']),
      WORKFLOW_URL: at(ports.workflow),
      CONFIG_URL: at(ports.config),
      CONFIG_ROLLOUT_POLL_MS: '100',
      ...env,
    },
    { ports },
  );
  const identity = h.services.identity!.url;
  const admin = await login(identity, 'admin', 'admin-dev-password');
  const operator = await login(identity, 'operator', 'operator-password-1', 'platform');
  const mk = async (json: Record<string, unknown>) => {
    const r = await call(`${identity}/v1/users`, { token: json.tenant_id ? operator : admin, json });
    if (r.status !== 201) throw new Error(`user ${String(json.username)}: ${r.status} ${JSON.stringify(r.body)}`);
  };
  await mk({ username: 'bob', password: 'bob-password-1', roles: ['admin', 'user'] });
  const tb = await call(`${identity}/v1/tenants`, { token: operator, json: { id: 'tenant-b', name: 'Tenant B' } });
  if (tb.status !== 201) throw new Error(`tenant-b: ${tb.status}`);
  await mk({ username: 'bravo', password: 'bravo-password-1', tenant_id: 'tenant-b', roles: ['admin', 'user'] });
  await mk({
    username: 'operator2',
    password: 'operator2-password-1',
    tenant_id: 'platform',
    roles: ['platform-admin'],
  });
  const t: ConfigTokens = {
    admin,
    operator,
    bob: await login(identity, 'bob', 'bob-password-1'),
    user: await login(identity, 'user', 'user-dev-password'),
    otherAdmin: await login(identity, 'bravo', 'bravo-password-1', 'tenant-b'),
    operator2: await login(identity, 'operator2', 'operator2-password-1', 'platform'),
  };
  return {
    h,
    url: h.services.config!.url,
    identity,
    registry: h.services['schema-registry']!.url,
    workflow: h.services.workflow!.url,
    t,
    close: () => h.close(),
  };
}

/** Registers `config.<namespace>` in the schema registry (as the given caller). */
export async function registerSchema(
  p: ConfigPlatform,
  token: string,
  namespace: string,
  schema: Record<string, unknown>,
  version = '1.0.0',
) {
  const r = await call(`${p.registry}/schemas/config.${namespace}/versions`, { token, json: { version, schema } });
  if (r.status !== 201 && r.status !== 200)
    throw new Error(`schema config.${namespace}: ${r.status} ${JSON.stringify(r.body)}`);
  return r;
}

/** Decides a promotion's approval task in the workflow service as `username`. */
export async function decide(
  p: ConfigPlatform,
  token: string,
  username: string,
  taskId: string,
  decision = 'approve',
): Promise<Res> {
  const res = await fetch(`${p.workflow}/approve/${taskId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'x-user-id': username, 'content-type': 'application/json' },
    body: JSON.stringify({ decision, notes: 'config promotion' }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
