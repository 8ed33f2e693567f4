// The compliance scanner's REST door with a real workflow service behind its suppressions: the
// baseline pack certified by a second person and signed; a fixture copy of the platform's own
// repository (its Dockerfile, compose and Kubernetes files, package.json, example settings) plus
// hostile files (a symlink out of the root, an oversized file, an inline skip nobody approved);
// the production profile; findings that keep their fingerprints when lines shift, are fixed and
// reopen; SARIF 2.1.0 checked against the schema; `scanner.finding` on the backbone with the
// rule's controls; a suppression approved in the workflow by someone other than its requester,
// expiring and reopening its findings; and another tenant seeing none of it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import { parsePayload } from '../../../platform/contracts/event-contract';
import { SCANNER_FINDING } from '../../../platform/contracts/pipeline.events';
import { scannerFindingEvent } from '../../../subgraphs/compliance/compliance.intake';
import { verifyPack } from '../../../subgraphs/rulepack-registry/pack-signature';
import { sarifProblem } from '../../../subgraphs/compliance-scanner/sarif';
import baseline from '../../../subgraphs/compliance-scanner/baseline.pack.json';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { defineWorkflowService } from '../../../services/workflow';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { call, PacksStandIn } from '../workflow/workflow.support';

jest.setTimeout(180_000);

const ROOT = path.resolve(__dirname, '../../..');
const A = 'scan-a';
const B = 'scan-b';
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const t: Record<string, string> = {};
let h: Harness;
let url: string;
let workflowUrl: string;
let allowed: string;
let repo: string;
let outside: string;
let clock = Date.now();
const events: any[] = [];

const api = (token: string, p: string, body?: unknown) => call(`${url}/api/scanner${p}`, { token, body });

function writeFixture() {
  // A copy of the platform's own files, so the scan is of the real thing without touching it.
  for (const file of [
    'deploy/Dockerfile',
    'deploy/compose.yaml',
    'deploy/k8s/platform.yaml',
    'package.json',
    'deploy/platform.env.example',
  ]) {
    fs.mkdirSync(path.dirname(path.join(repo, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(repo, file));
  }
  fs.writeFileSync(path.join(repo, 'Dockerfile.dev'), 'FROM node:latest\nRUN npm ci\n');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(
    path.join(repo, 'src/run.ts'),
    'export const run = (s: string) => eval(s);\nconst t = eval("1"); // scanner:ignore code.dynamic-eval\n',
  );
  fs.writeFileSync(path.join(outside, 'secret.ts'), `export const key = "AKIA${'B'.repeat(16)}";\n`);
  fs.symlinkSync(path.join(outside, 'secret.ts'), path.join(repo, 'src/escape.ts'));
  fs.writeFileSync(path.join(repo, 'src/huge.ts'), `// ${'x'.repeat(300 * 1024)}\n`);
}

beforeAll(async () => {
  allowed = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-allowed-'));
  repo = path.join(allowed, 'platform');
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-outside-'));
  fs.mkdirSync(repo);
  writeFixture();
  const workflowPort = await freePort();
  h = await startServices(
    [
      defineWorkflowService({ packs: new PacksStandIn() }),
      defineComplianceScannerService({ now: () => new Date(clock) }),
    ],
    {
      REQUIRE_AUTH: 'true',
      WORKFLOW_URL: `http://127.0.0.1:${workflowPort}`,
      SCANNER_ALLOWED_ROOTS: allowed,
      SCANNER_MAX_FILE_BYTES: String(256 * 1024),
      SCANNER_SWEEP_SECONDS: '3600',
    },
    { ports: { workflow: workflowPort } },
  );
  url = h.services['compliance-scanner']!.url;
  workflowUrl = h.services.workflow!.url;
  await h.bus.subscribe('scanner.finding', (m: any) => void events.push(m.data ?? m));
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.bob = await user('bob', B, ['admin']);
});

afterAll(async () => {
  await h?.close();
  fs.rmSync(allowed, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

const ids: Record<string, string> = {};

describe('packs', () => {
  it('refuses a rule whose cost is unbounded, naming it', async () => {
    const r = await api(t.alice!, '/packs', {
      pack: {
        ...baseline,
        metadata: { ...baseline.metadata, version: '9.9.9' },
        rules: [
          {
            ...baseline.rules[0],
            cel: 'file.instructions.all(a, file.instructions.all(b, file.instructions.exists(c, a.cmd == b.cmd + c.cmd)))',
          },
        ],
      },
    });
    expect(r.status).toBe(422);
    expect(r.body.detail[0].loc).toEqual(['body', 'pack', 'rules', 0, 'cel']);
  });

  it('needs a second person to certify, then signs', async () => {
    const submitted = await api(t.alice!, '/packs', { pack: baseline });
    expect([submitted.status, submitted.body.status]).toEqual([201, 'draft']);
    expect((await api(t.alice!, '/packs', { pack: baseline })).status).toBe(200);
    const draftScan = await api(t.alice!, '/scans', { target_id: 'none', pack_id: 'platform-baseline' });
    expect(draftScan.status).toBe(404);
    expect((await api(t.alice!, '/packs/platform-baseline/versions/1.0.0/certify', {})).status).toBe(403);
    const certified = await api(t.rita!, '/packs/platform-baseline/versions/1.0.0/certify', {});
    expect([certified.status, certified.body.status, certified.body.certified_by]).toEqual([200, 'certified', 'rita']);
    const keys = await call(`${url}/api/scanner/pack-keys`);
    const key = keys.body.keys.find((k: any) => k.kid === certified.body.key_id);
    expect(verifyPack(certified.body.pack, certified.body.signature, key)).toBe(true);
  });
});

describe('targets', () => {
  it('refuses paths outside the allowed roots, by traversal or not', async () => {
    expect((await api(t.alice!, '/targets', { name: 'etc', kind: 'repository', path: '/etc' })).status).toBe(403);
    expect((await api(t.alice!, '/targets', { name: 'up', kind: 'repository', path: `${allowed}/../` })).status).toBe(
      403,
    );
    const relative = await api(t.alice!, '/targets', { name: 'rel', kind: 'repository', path: 'platform' });
    expect([relative.status, relative.body.detail[0].loc]).toEqual([422, ['body', 'path']]);
  });

  it('registers the repository and a production profile without keeping its secret', async () => {
    const r = await api(t.alice!, '/targets', { name: 'platform', kind: 'repository', path: repo });
    expect(r.status).toBe(201);
    ids.repo = r.body.id;
    const c = await api(t.alice!, '/targets', {
      name: 'production',
      kind: 'configuration',
      settings: {
        NODE_ENV: 'production',
        GRAPHQL_INTROSPECTION: 'true',
        CORS_ORIGINS: '*',
        JWT_SECRET_KEY: 'too-short-secret',
        WORKFLOW_HTTP_ALLOWED_HOSTS: '*',
      },
    });
    expect(c.status).toBe(201);
    expect(c.body.settings.JWT_SECRET_KEY_BYTES).toBe('16');
    expect(JSON.stringify(c.body)).not.toContain('too-short-secret');
    ids.config = c.body.id;
  });
});

describe('scans', () => {
  it("scans the platform's repository: findings, skipped hostile files, ignored inline skips", async () => {
    const r = await api(t.alice!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' });
    expect([r.status, r.body.status]).toEqual([201, 'completed']);
    ids.scan = r.body.id;
    expect(r.body.summary.skipped_files).toEqual(
      expect.arrayContaining([
        { path: 'src/escape.ts', reason: 'symlink_escape' },
        { path: 'src/huge.ts', reason: 'too_large' },
      ]),
    );
    expect(r.body.summary.ignored_inline_skips).toEqual([
      expect.objectContaining({ rule_id: 'code.dynamic-eval', path: 'src/run.ts', line: 2 }),
    ]);
    const findings = (await api(t.alice!, `/findings?target_id=${ids.repo}`)).body.findings;
    const rules = new Set(findings.map((f: any) => `${f.rule_id} ${f.path}`));
    expect([...rules]).toEqual(
      expect.arrayContaining([
        'docker.unpinned-base-image Dockerfile.dev',
        'docker.root-user Dockerfile.dev',
        'code.dynamic-eval src/run.ts',
        'secrets.hardcoded deploy/platform.env.example',
      ]),
    );
    // The platform's own Dockerfile pins its base image and switches to an unprivileged user.
    expect([...rules].filter((x) => String(x).endsWith('deploy/Dockerfile'))).toEqual([]);
    // Nothing was read through the symlink.
    expect(findings.some((f: any) => f.path === 'src/escape.ts')).toBe(false);
    expect(findings.every((f: any) => f.status === 'open' && f.first_seen === f.last_seen)).toBe(true);
  });

  it('publishes scanner.finding with the controls, without values', async () => {
    const isSecret = (e: any) => e.scan_id === ids.scan && e.rule_id === 'secrets.hardcoded';
    await until(() => events.some(isSecret), 'the secret finding on the backbone');
    const secret = events.find(isSecret);
    expect(secret).toMatchObject({
      tenant_id: A,
      status: 'open',
      target_kind: 'repository',
      controls: ['ia-5', 'sc-28'],
    });
    expect(JSON.stringify(events)).not.toContain('platform:platform');
    // What the compliance service's intake makes of it (its consumer parses by the same contract):
    // evidence for the rule's controls (test/integration/compliance/pipeline-intake.test.ts maps
    // such payloads to the tenant's frameworks).
    expect(parsePayload(SCANNER_FINDING, secret).ok).toBe(true);
    expect(scannerFindingEvent(secret)).toMatchObject({
      tenantId: A,
      topic: 'scanner.finding',
      types: ['scanner_finding', 'scanner.finding', 'scanner.finding.open'],
      rulePackId: 'platform-baseline',
      controlIds: ['ia-5', 'sc-28'],
    });
  });

  it('serves the report as valid SARIF 2.1.0, the ignored inline skip marked rejected', async () => {
    const r = await api(t.alice!, `/scans/${ids.scan}/sarif`);
    expect(r.status).toBe(200);
    expect(sarifProblem(r.body)).toBeNull();
    const results = r.body.runs[0].results;
    expect(results.length).toBe((await api(t.alice!, `/findings?scan_id=${ids.scan}`)).body.findings.length);
    const skipped = results.find(
      (x: any) => x.locations[0].physicalLocation.region?.startLine === 2 && x.ruleId === 'code.dynamic-eval',
    );
    expect(skipped.suppressions).toEqual([expect.objectContaining({ kind: 'inSource', status: 'rejected' })]);
  });

  it('keeps fingerprints when lines shift, fixes what is gone and reopens what returns', async () => {
    const before = (await api(t.alice!, `/findings?target_id=${ids.repo}`)).body.findings;
    const evalLine1 = before.find((f: any) => f.path === 'src/run.ts' && f.line === 1);
    const root = before.find((f: any) => f.rule_id === 'docker.root-user');
    fs.writeFileSync(path.join(repo, 'src/run.ts'), '// moved down\n\nexport const run = (s: string) => eval(s);\n');
    fs.writeFileSync(path.join(repo, 'Dockerfile.dev'), 'FROM node:latest\nUSER node\n');
    clock += 60_000;
    const second = await api(t.alice!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' });
    expect(second.body.summary).toMatchObject({ fixed: 2, opened: 0 });
    const after = (await api(t.alice!, `/findings?target_id=${ids.repo}`)).body.findings;
    const moved = after.find((f: any) => f.fingerprint === evalLine1.fingerprint);
    expect([moved.id, moved.line, moved.status]).toEqual([evalLine1.id, 3, 'open']);
    expect(moved.last_seen > moved.first_seen).toBe(true);
    expect(after.find((f: any) => f.id === root.id).status).toBe('fixed');
    fs.writeFileSync(path.join(repo, 'Dockerfile.dev'), 'FROM node:latest\nRUN npm ci\n');
    const third = await api(t.alice!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' });
    expect(third.body.summary).toMatchObject({ reopened: 1 });
    expect(
      (await api(t.alice!, `/findings?target_id=${ids.repo}&status=reopened`)).body.findings.map((f: any) => f.id),
    ).toEqual([root.id]);
  });

  it('scans the production profile: introspection, CORS *, a short JWT secret, any workflow host', async () => {
    const r = await api(t.alice!, '/scans', { target_id: ids.config, pack_id: 'platform-baseline' });
    expect(r.status).toBe(201);
    const found = (await api(t.alice!, `/findings?target_id=${ids.config}`)).body.findings
      .map((f: any) => f.rule_id)
      .sort();
    expect(found).toEqual([
      'settings.cors-any-origin',
      'settings.introspection-in-production',
      'settings.short-jwt-secret',
      'settings.workflow-any-host',
    ]);
    expect(sarifProblem((await api(t.alice!, `/scans/${r.body.id}/sarif`)).body)).toBeNull();
  });
});

describe('suppressions', () => {
  it('needs an expiry in the future and a reason', async () => {
    const base = {
      scope: 'rule_path',
      rule_id: 'code.dynamic-eval',
      path_glob: 'src/**',
      owner: 'alice',
      justification: 'Sandboxed evaluation, ticket SEC-12',
    };
    const missing = await api(t.alice!, '/suppressions', base);
    expect([missing.status, missing.body.detail[0].loc]).toEqual([422, ['body', 'expires_at']]);
    const past = await api(t.alice!, '/suppressions', { ...base, expires_at: new Date(clock - 1000).toISOString() });
    expect([past.status, past.body.detail[0].loc]).toEqual([422, ['body', 'expires_at']]);
    const short = await api(t.alice!, '/suppressions', {
      ...base,
      justification: 'ok',
      expires_at: new Date(clock + 86_400_000).toISOString(),
    });
    expect([short.status, short.body.detail[0].loc]).toEqual([422, ['body', 'justification']]);
  });

  it('is approved only by a second person in the workflow, suppresses, shows in SARIF, expires and reopens', async () => {
    const evalFinding = (await api(t.alice!, `/findings?target_id=${ids.repo}&status=open`)).body.findings.find(
      (f: any) => f.rule_id === 'code.dynamic-eval',
    );
    const r = await api(t.alice!, '/suppressions', {
      scope: 'fingerprint',
      fingerprint: evalFinding.fingerprint,
      owner: 'alice',
      justification: 'Sandboxed evaluation of operator formulas, ticket SEC-12',
      expires_at: new Date(clock + 30 * 86_400_000).toISOString(),
    });
    expect([r.status, r.body.status]).toEqual([201, 'pending']);
    expect(r.body.workflow_id).toEqual(expect.any(String));
    const pending = await api(t.alice!, '/suppressions?status=pending');
    expect(pending.body.suppressions.map((s: any) => s.id)).toEqual([r.body.id]);

    const wf = await call(`${workflowUrl}/status/${r.body.workflow_id}`, { token: t.alice });
    const task = wf.body.approval_tasks[0].approval_task_id;
    // The requester cannot approve her own suppression.
    const self = await call(`${workflowUrl}/approve/${task}`, {
      token: t.alice,
      body: { decision: 'approve' },
      headers: { 'x-user-id': 'alice' },
    });
    expect(self.status).toBe(403);
    expect((await api(t.alice!, `/suppressions/${r.body.id}/refresh`, {})).body.status).toBe('pending');
    const ok = await call(`${workflowUrl}/approve/${task}`, {
      token: t.rita,
      body: { decision: 'approve', notes: 'accepted risk' },
      headers: { 'x-user-id': 'rita' },
    });
    expect(ok.status).toBe(200);
    let approved: any;
    await until(async () => {
      approved = (await api(t.alice!, `/suppressions/${r.body.id}/refresh`, {})).body;
      return approved.status === 'approved';
    }, 'the approval read from the workflow');
    expect(approved.approver).toBe('rita');
    const now = (await api(t.alice!, `/findings?target_id=${ids.repo}`)).body.findings.find(
      (f: any) => f.id === evalFinding.id,
    );
    expect([now.status, now.suppression_id]).toEqual(['suppressed', r.body.id]);
    await until(
      () => events.some((e) => e.finding_id === evalFinding.id && e.status === 'suppressed'),
      'suppressed notice',
    );

    // The next scan keeps it suppressed, and the report shows it with its justification.
    const scan = await api(t.alice!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' });
    const sarif = (await api(t.alice!, `/scans/${scan.body.id}/sarif`)).body;
    expect(sarifProblem(sarif)).toBeNull();
    const result = sarif.runs[0].results.find((x: any) => x.properties.finding_id === evalFinding.id);
    expect(result.suppressions[0]).toMatchObject({
      kind: 'external',
      status: 'accepted',
      justification: 'Sandboxed evaluation of operator formulas, ticket SEC-12',
    });

    // Past its expiry, the suppression expires and its finding reopens with a notice.
    clock += 31 * 86_400_000;
    const expired = (await api(t.alice!, '/suppressions?status=expired')).body.suppressions;
    expect(expired.map((s: any) => s.id)).toEqual([r.body.id]);
    const reopened = (await api(t.alice!, `/findings?target_id=${ids.repo}`)).body.findings.find(
      (f: any) => f.id === evalFinding.id,
    );
    expect([reopened.status, reopened.suppression_id]).toEqual(['reopened', null]);
    await until(
      () => events.some((e) => e.finding_id === evalFinding.id && e.status === 'reopened'),
      'reopened notice',
    );
  });
});

describe('tenancy', () => {
  it("shows another tenant none of A's targets, scans, findings or suppressions", async () => {
    expect((await api(t.bob!, `/targets/${ids.repo}`)).status).toBe(404);
    expect((await api(t.bob!, `/scans/${ids.scan}`)).status).toBe(404);
    expect((await api(t.bob!, `/scans/${ids.scan}/sarif`)).status).toBe(404);
    expect((await api(t.bob!, '/scans', { target_id: ids.repo, pack_id: 'platform-baseline' })).status).toBe(404);
    expect((await api(t.bob!, `/findings?target_id=${ids.repo}`)).body.findings).toEqual([]);
    expect((await api(t.bob!, '/suppressions')).body.suppressions).toEqual([]);
    expect((await api(t.bob!, '/targets')).body.targets).toEqual([]);
    expect((await api(t.bob!, `/targets?tenant_id=${A}`)).status).toBe(403);
  });
});
