// The scanner's standing work and its newer targets through both doors, over a config-service
// stand-in read with the typed ConfigClient: packs submitted and certified through GraphQL (a
// second person certifies); a repository whose package-lock.json becomes a CycloneDX SBOM with
// licences; the tenant's configuration at the config service scanned by namespace, the key named
// and never its value, the scanner calling as itself for that tenant; a config service that fails
// is a 503 and a failed scan, never a 500; schedules refused without an interval or events, run
// when `config.changed` arrives for the tenant and when their interval passes on the injected
// clock; another tenant sees none of it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { AccessTokens } from '../../../platform/auth/jwt';
import { CONFIG_CHANGED } from '../../../platform/contracts/config.events';
import { contractBus } from '../../../platform/events/contract-bus';
import { createLogger } from '../../../platform/logging/logger';
import baseline from '../../../subgraphs/compliance-scanner/baseline.pack.json';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call } from '../workflow/workflow.support';

jest.setTimeout(180_000);

const A = 'sched-a';
const B = 'sched-b';
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const t: Record<string, string> = {};
const ids: Record<string, string> = {};
let h: Harness;
let url: string;
let configStandIn: FastifyInstance;
let configFails = false;
const configCalls: { tenant: string; namespace?: string; tokenTenant?: string; subject?: string }[] = [];
let allowed: string;
let clock = Date.parse('2026-05-01T00:00:00Z');

const api = (token: string, p: string, body?: unknown, method?: string) =>
  call(`${url}/api/scanner${p}`, { token, body, method });
const gql = async (token: string, query: string, variables?: Record<string, unknown>) =>
  (await call(`${url}/graphql`, { token, body: { query, variables } })).body;

const LOCK = {
  name: 'shop',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': { name: 'shop', version: '1.0.0', license: 'MIT', dependencies: { '@acme/pay': '1.2.3', left: '1.0.0' } },
    'node_modules/@acme/pay': {
      version: '1.2.3',
      license: 'Apache-2.0',
      integrity: 'sha512-' + Buffer.alloc(64, 1).toString('base64'),
    },
    'node_modules/left': { version: '1.0.0', license: '(MIT OR ISC)', dev: true },
    'node_modules/@acme/pay/node_modules/left': { version: '0.9.0', license: 'WTFPL custom text' },
  },
};

beforeAll(async () => {
  allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-sched-'));
  fs.mkdirSync(path.join(allowed, 'shop'));
  fs.writeFileSync(
    path.join(allowed, 'shop/package.json'),
    JSON.stringify({ name: 'shop', dependencies: { '@acme/pay': '1.2.3', left: '^1.0.0' } }),
  );
  fs.writeFileSync(path.join(allowed, 'shop/package-lock.json'), JSON.stringify(LOCK, null, 2));

  // The config service's effective-configuration route, as docs/config.md gives it.
  configStandIn = Fastify();
  configStandIn.get<{ Params: { tenant: string }; Querystring: { namespace?: string } }>(
    '/api/config/:tenant/effective',
    async (request, reply) => {
      const bearer = request.headers.authorization?.replace(/^Bearer /, '');
      const claims = bearer ? await tokens.authenticate(bearer).catch(() => undefined) : undefined;
      configCalls.push({
        tenant: request.params.tenant,
        namespace: request.query.namespace,
        tokenTenant: claims?.tenantId,
        subject: claims?.username,
      });
      if (configFails) return reply.code(500).send({ detail: 'down' });
      const config: Record<string, unknown> = {
        billing: { api_key: 'sk-live-0123456789', db_password: 'secret://env/CONFIG_SECRET_DB', retries: 3 },
        gateway: { cors_origins: ['https://console.example', '*'] },
      };
      const only = request.query.namespace;
      return {
        tenant_id: request.params.tenant,
        seq: 7,
        config: only ? { [only]: config[only] } : config,
        provenance: [],
      };
    },
  );
  await configStandIn.listen({ port: 0, host: '127.0.0.1' });
  const configUrl = `http://127.0.0.1:${(configStandIn.server.address() as { port: number }).port}`;

  h = await startServices([defineComplianceScannerService({ now: () => new Date(clock) })], {
    REQUIRE_AUTH: 'true',
    CONFIG_URL: configUrl,
    WORKFLOW_URL: 'http://127.0.0.1:9',
    SCANNER_ALLOWED_ROOTS: allowed,
    SCANNER_SCHEDULE_TICK_SECONDS: '1',
    SCANNER_SCHEDULE_MIN_SECONDS: '60',
    SCANNER_SWEEP_SECONDS: '3600',
  });
  url = h.services['compliance-scanner']!.url;
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.bob = await user('bob', B, ['admin']);
});

afterAll(async () => {
  await h?.close();
  await configStandIn?.close();
  fs.rmSync(allowed, { recursive: true, force: true });
});

describe('GraphQL doors', () => {
  it('submits a pack and has a second person certify it', async () => {
    const submit = `mutation($input: SubmitScannerPackInput!) { submitScannerPack(input: $input) { packId version status } }`;
    expect((await gql(t.alice!, submit, { input: { pack: baseline } })).data.submitScannerPack).toEqual({
      packId: 'platform-baseline',
      version: '1.0.0',
      status: 'draft',
    });
    const bad = await gql(t.alice!, submit, { input: { pack: { ...baseline, rules: [] } } });
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const certify = `mutation { certifyScannerPack(packId: "platform-baseline", version: "1.0.0") { status certifiedBy signature } }`;
    expect((await gql(t.alice!, certify)).errors[0].extensions.code).toBe('FORBIDDEN');
    const ok = (await gql(t.rita!, certify)).data.certifyScannerPack;
    expect([ok.status, ok.certifiedBy, typeof ok.signature]).toEqual(['certified', 'rita', 'string']);
  });

  it('registers targets, refusing an unknown kind', async () => {
    const create = `mutation($input: CreateScannerTargetInput!) { createScannerTarget(input: $input) { id kind path namespace } }`;
    const repo = (await gql(t.alice!, create, { input: { name: 'shop', kind: 'repository', path: `${allowed}/shop` } }))
      .data.createScannerTarget;
    expect(repo).toMatchObject({ kind: 'repository', path: `${allowed}/shop`, namespace: null });
    ids.repo = repo.id;
    const config = (await gql(t.alice!, create, { input: { name: 'tenant config', kind: 'config' } })).data
      .createScannerTarget;
    expect(config).toMatchObject({ kind: 'config', path: null, namespace: null });
    ids.config = config.id;
    const wrong = await gql(t.alice!, create, { input: { name: 'x', kind: 'database' } });
    expect(wrong.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const pathless = await gql(t.alice!, create, { input: { name: 'y', kind: 'config', path: allowed } });
    expect(pathless.errors[0].extensions.code).toBe('BAD_USER_INPUT');
  });
});

describe('SBOM', () => {
  it("makes the repository's package-lock.json a CycloneDX SBOM with licences", async () => {
    const scan = await api(t.alice!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' });
    expect([scan.status, scan.body.status, scan.body.trigger]).toEqual([201, 'completed', 'manual']);
    ids.repoScan = scan.body.id;
    const res = await fetch(`${url}/api/scanner/scans/${ids.repoScan}/sbom`, {
      headers: { authorization: `Bearer ${t.alice}` },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/vnd\.cyclonedx\+json/);
    const bom = (await res.json()) as any;
    expect(bom).toMatchObject({ bomFormat: 'CycloneDX', specVersion: '1.5', version: 1 });
    expect(bom.serialNumber).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(bom.metadata.component).toMatchObject({ name: 'shop', version: '1.0.0', purl: 'pkg:npm/shop@1.0.0' });
    const byPurl = Object.fromEntries(bom.components.map((c: any) => [c.purl, c]));
    expect(Object.keys(byPurl).sort()).toEqual([
      'pkg:npm/%40acme/pay@1.2.3',
      'pkg:npm/left@0.9.0',
      'pkg:npm/left@1.0.0',
    ]);
    expect(byPurl['pkg:npm/%40acme/pay@1.2.3']).toMatchObject({
      group: '@acme',
      name: 'pay',
      scope: 'required',
      licenses: [{ license: { id: 'Apache-2.0' } }],
      hashes: [{ alg: 'SHA-512', content: '01'.repeat(64) }],
    });
    expect(byPurl['pkg:npm/left@1.0.0']).toMatchObject({ scope: 'optional', licenses: [{ expression: 'MIT OR ISC' }] });
    expect(byPurl['pkg:npm/left@0.9.0'].licenses).toEqual([{ license: { name: 'WTFPL custom text' } }]);
    // Through GraphQL too; another tenant sees none of it.
    const viaGraphql = await gql(t.alice!, `query($id: ID!) { scannerScan(id: $id) { trigger sbom } }`, {
      id: ids.repoScan,
    });
    expect(viaGraphql.data.scannerScan.sbom.components).toHaveLength(3);
    expect((await api(t.bob!, `/scans/${ids.repoScan}/sbom`)).status).toBe(404);
  });
});

describe('config-service targets', () => {
  it("scans the tenant's configuration by namespace, naming keys and never values", async () => {
    const scan = await api(t.alice!, '/scans', { target_id: ids.config, pack_id: 'platform-baseline' });
    expect([scan.status, scan.body.status]).toEqual([201, 'completed']);
    const findings = (await api(t.alice!, `/findings?target_id=${ids.config}`)).body.findings;
    expect(findings.map((f: any) => `${f.rule_id} ${f.path} ${f.detail}`).sort()).toEqual([
      'config.cors-any-origin config/gateway cors_origins',
      'config.plaintext-secret config/billing api_key',
    ]);
    expect(JSON.stringify(findings)).not.toContain('sk-live');
    const sarif = (await api(t.alice!, `/scans/${scan.body.id}/sarif`)).body;
    expect(sarif.runs[0].results).toHaveLength(2);
    // The scanner read tenant A's configuration as itself, for tenant A.
    expect(configCalls.at(-1)).toEqual({
      tenant: A,
      namespace: undefined,
      tokenTenant: A,
      subject: 'compliance-scanner-service',
    });
  });

  it('reads one namespace when the target names it', async () => {
    const target = await api(t.alice!, '/targets', { name: 'billing only', kind: 'config', namespace: 'billing' });
    expect([target.status, target.body.namespace]).toEqual([201, 'billing']);
    const scan = await api(t.alice!, '/scans', { target_id: target.body.id, pack_id: 'platform-baseline' });
    expect(scan.body.summary.opened).toBe(1);
    expect(configCalls.at(-1)!.namespace).toBe('billing');
    const repoWithNamespace = await api(t.alice!, '/targets', {
      name: 'z',
      kind: 'repository',
      path: `${allowed}/shop`,
      namespace: 'billing',
    });
    expect([repoWithNamespace.status, repoWithNamespace.body.detail[0].loc]).toEqual([422, ['body', 'namespace']]);
  });

  it('answers 503 and records a failed scan when the config service fails', async () => {
    configFails = true;
    try {
      const r = await api(t.alice!, '/scans', { target_id: ids.config, pack_id: 'platform-baseline' });
      expect(r.status).toBe(503);
      expect(r.body.detail).toMatch(/config service could not be read/);
      const last = (await api(t.alice!, `/scans?target_id=${ids.config}&limit=1`)).body.scans[0];
      expect(last.status).toBe('failed');
      // Nothing it found before was marked fixed by a scan that could not read.
      const open = (await api(t.alice!, `/findings?target_id=${ids.config}&status=open`)).body.findings;
      expect(open).toHaveLength(2);
    } finally {
      configFails = false;
    }
  });
});

describe('schedules', () => {
  it('refuses a schedule without an interval or events, a short interval and an unknown event', async () => {
    const base = { target_id: ids.config, pack_id: 'platform-baseline' };
    const none = await api(t.alice!, '/schedules', base);
    expect([none.status, none.body.detail[0].loc]).toEqual([422, ['body', 'every_seconds']]);
    const short = await api(t.alice!, '/schedules', { ...base, every_seconds: 5 });
    expect([short.status, short.body.detail[0].loc]).toEqual([422, ['body', 'every_seconds']]);
    const unknown = await api(t.alice!, '/schedules', { ...base, on_events: ['config.changed', 'nope'] });
    expect([unknown.status, unknown.body.detail[0].loc]).toEqual([422, ['body', 'on_events', 1]]);
    expect((await api(t.alice!, '/schedules', { ...base, pack_id: 'missing', every_seconds: 600 })).status).toBe(404);
  });

  it('runs on config.changed for the tenant and when its interval passes', async () => {
    const created = await api(t.alice!, '/schedules', {
      target_id: ids.config,
      pack_id: 'platform-baseline',
      every_seconds: 3600,
      on_events: ['config.changed'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ every_seconds: 3600, on_events: ['config.changed'], last_run_at: null });
    expect(Date.parse(created.body.due_at)).toBe(clock + 3600_000);
    ids.schedule = created.body.id;
    const scansOf = async (trigger: string) =>
      (await api(t.alice!, `/scans?target_id=${ids.config}&limit=100`)).body.scans.filter(
        (s: any) => s.trigger === trigger && s.schedule_id === ids.schedule,
      );

    await contractBus(h.bus, createLogger('ERROR', 'test')).publish(CONFIG_CHANGED, {
      tenant_id: A,
      layer: 'tenant',
      scope: A,
      namespace: 'billing',
      bundle_id: 'bundle-1',
      version: 2,
      sha256: 'a'.repeat(64),
      seq: 8,
      percentage: 100,
      kind: 'promote',
      at: new Date(clock).toISOString(),
    });
    // Listed as soon as it is recorded (running): waited for until it has finished and the schedule knows it.
    const finished = async (trigger: string) =>
      (await scansOf(trigger)).filter((s: any) => s.status !== 'running').length === 1 &&
      (await api(t.alice!, `/schedules/${ids.schedule}`)).body.last_scan_id === (await scansOf(trigger))[0].id;
    await until(() => finished('config.changed'), 'the scan config.changed started');
    const [byEvent] = await scansOf('config.changed');
    expect([byEvent.status, byEvent.requested_by]).toEqual(['completed', 'compliance-scanner-scheduler']);

    clock += 3601_000;
    await until(() => finished('schedule'), 'the scheduled scan');
    const schedule = (await api(t.alice!, `/schedules/${ids.schedule}`)).body;
    expect(schedule.last_scan_id).toBe((await scansOf('schedule'))[0].id);
    expect(Date.parse(schedule.due_at)).toBeGreaterThan(clock);
  });

  it('lists and deletes through GraphQL as well', async () => {
    const create = await gql(
      t.alice!,
      `mutation($input: CreateScannerScheduleInput!) { createScannerSchedule(input: $input) { id onEvents everySeconds } }`,
      { input: { targetId: ids.repo, packId: 'platform-baseline', onEvents: ['ingestion.completed'] } },
    );
    const id = create.data.createScannerSchedule.id;
    expect(create.data.createScannerSchedule).toMatchObject({ onEvents: ['ingestion.completed'], everySeconds: null });
    const listed = await gql(t.alice!, `{ scannerSchedules { id } }`);
    expect(listed.data.scannerSchedules.map((s: any) => s.id).sort()).toEqual([id, ids.schedule].sort());
    expect((await gql(t.alice!, `mutation($id: ID!) { deleteScannerSchedule(id: $id) }`, { id })).data).toEqual({
      deleteScannerSchedule: true,
    });
  });

  it("shows and gives another tenant none of A's schedules", async () => {
    expect((await api(t.bob!, '/schedules')).body.schedules).toEqual([]);
    expect((await api(t.bob!, `/schedules/${ids.schedule}`)).status).toBe(404);
    expect((await api(t.bob!, `/schedules/${ids.schedule}`, undefined, 'DELETE')).status).toBe(404);
    expect(
      (await api(t.bob!, '/schedules', { target_id: ids.config, pack_id: 'platform-baseline', every_seconds: 600 }))
        .status,
    ).toBe(404);
    expect((await api(t.bob!, `/schedules?tenant_id=${A}`)).status).toBe(403);
    expect((await gql(t.bob!, `{ scannerSchedules { id } }`)).data.scannerSchedules).toEqual([]);
    const del = await api(t.alice!, `/schedules/${ids.schedule}`, undefined, 'DELETE');
    expect(del.status).toBe(204);
    expect((await api(t.alice!, '/schedules')).body.schedules).toEqual([]);
  });
});
