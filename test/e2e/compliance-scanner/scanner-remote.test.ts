// Remote repository targets against a real git remote: `git http-backend` served over HTTP (a
// bare repository with two branches, pushed from a temporary clone). A target on the allowlist
// is shallow-cloned at scan time and its planted secret found; the branch after `#` is the one
// cloned; the clone's temporary directory is gone after the scan; URLs off the allowlist, with
// credentials, or to a private address are 422 and nothing is stored; an unknown ref fails the
// scan with a clear error and the service keeps serving; another tenant sees nothing.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AccessTokens } from '../../../platform/auth/jwt';
import baseline from '../../../subgraphs/compliance-scanner/baseline.pack.json';
import { defineComplianceScannerService } from '../../../services/compliance-scanner';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { call } from '../workflow/workflow.support';
import { startGitServer, type GitServer } from './git-http-server';

jest.setTimeout(180_000);

const A = 'remote-a';
const B = 'remote-b';
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);
const t: Record<string, string> = {};
const KEY = `AKIA${'R'.repeat(16)}`;
const RELEASE_KEY = `AKIA${'Q'.repeat(16)}`;
let h: Harness;
let git: GitServer;
let url: string;
let work: string;
let tmp: string;
const savedTmp = process.env.TMPDIR;

const api = (token: string, p: string, body?: unknown) => call(`${url}/api/scanner${p}`, { token, body });

function run(cwd: string, ...args: string[]) {
  execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], { cwd, stdio: 'pipe' });
}

function makeRemote(root: string) {
  const bare = path.join(root, 'acme', 'app.git');
  fs.mkdirSync(bare, { recursive: true });
  run(bare, 'init', '--bare', '--initial-branch=main');
  const clone = path.join(work, 'clone');
  run(work, 'clone', bare, clone);
  fs.mkdirSync(path.join(clone, 'src'));
  fs.writeFileSync(path.join(clone, 'src/config.ts'), `export const key = "${KEY}";\n`);
  fs.writeFileSync(path.join(clone, 'Dockerfile'), 'FROM node:latest\nRUN npm ci\n');
  fs.writeFileSync(path.join(clone, 'src/huge.ts'), `// ${'x'.repeat(300 * 1024)}\n`);
  run(clone, 'checkout', '-b', 'main');
  run(clone, 'add', '.');
  run(clone, 'commit', '-m', 'first');
  run(clone, 'push', 'origin', 'main');
  run(clone, 'checkout', '-b', 'release');
  fs.writeFileSync(path.join(clone, 'src/release.ts'), `export const other = "${RELEASE_KEY}";\n`);
  run(clone, 'add', '.');
  run(clone, 'commit', '-m', 'release');
  run(clone, 'push', 'origin', 'release');
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-remote-'));
  tmp = path.join(work, 'tmp');
  fs.mkdirSync(tmp);
  // The scanner clones into os.tmpdir(): a directory of this test's own, to see it emptied.
  process.env.TMPDIR = tmp;
  const projects = path.join(work, 'projects');
  makeRemote(projects);
  git = await startGitServer(projects);
  h = await startServices([defineComplianceScannerService()], {
    REQUIRE_AUTH: 'true',
    SCANNER_ALLOWED_REMOTES: `${git.url}/acme/,10.0.0.5,internal.example.com`,
    SCANNER_REMOTE_ALLOW_LOOPBACK: 'true',
    SCANNER_MAX_FILE_BYTES: String(256 * 1024),
    SCANNER_SWEEP_SECONDS: '3600',
  });
  url = h.services['compliance-scanner']!.url;
  const user = (username: string, tenantId: string, roles: string[]) =>
    tokens.issue({ username, tenantId, roles, scopes: ['read', 'write'] });
  t.alice = await user('alice', A, ['user']);
  t.rita = await user('rita', A, ['reviewer']);
  t.bob = await user('bob', B, ['admin']);
  expect((await api(t.alice, '/packs', { pack: baseline })).status).toBe(201);
  expect((await api(t.rita, '/packs/platform-baseline/versions/1.0.0/certify', {})).status).toBe(200);
});

afterAll(async () => {
  await h?.close();
  await git?.close();
  process.env.TMPDIR = savedTmp;
  if (savedTmp === undefined) delete process.env.TMPDIR;
  fs.rmSync(work, { recursive: true, force: true });
});

const ids: Record<string, string> = {};
const clones = () => fs.readdirSync(tmp).filter((n) => n.startsWith('scanner-clone-'));

describe('remote repository targets', () => {
  it('refuses URLs off the allowlist, with credentials or a query, or to private addresses: 422, nothing stored', async () => {
    const cases = [
      `${git.url}/other/app.git`,
      `${git.url}/acme-evil/app.git`,
      'https://github.com/acme/app.git',
      `http://alice:s3cr3t-token@${git.url.slice('http://'.length)}/acme/app.git`,
      `${git.url}/acme/app.git?access_token=s3cr3t-token`,
      'https://10.0.0.5/acme/app.git',
      'http://internal.example.com/acme/app.git',
      `${git.url}/acme/app.git#../../etc`,
      'ftp://127.0.0.1/acme/app.git',
    ];
    for (const [i, p] of cases.entries()) {
      const r = await api(t.alice!, '/targets', { name: `bad-${i}`, kind: 'repository', path: p });
      expect([p, r.status, r.body.detail[0].loc]).toEqual([p, 422, ['body', 'path']]);
      expect(JSON.stringify(r.body)).not.toContain('s3cr3t-token');
    }
    expect((await api(t.alice!, '/targets')).body.targets).toEqual([]);
  });

  it('clones an allowed remote shallow at scan time and finds its planted secret; the clone is removed', async () => {
    const target = await api(t.alice!, '/targets', {
      name: 'app',
      kind: 'repository',
      path: `${git.url}/acme/app.git`,
    });
    expect(target.status).toBe(201);
    expect(target.body.path).toBe(`${git.url}/acme/app.git`);
    ids.main = target.body.id;
    const scan = await api(t.alice!, '/scans', { target_id: ids.main, pack_id: 'platform-baseline' });
    expect([scan.status, scan.body.status, scan.body.error]).toEqual([201, 'completed', null]);
    expect(scan.body.summary.skipped_files).toEqual([{ path: 'src/huge.ts', reason: 'too_large' }]);
    const findings = (await api(t.alice!, `/findings?target_id=${ids.main}`)).body.findings;
    expect(findings.map((f: any) => `${f.rule_id} ${f.path}`).sort()).toEqual(
      expect.arrayContaining(['docker.unpinned-base-image Dockerfile', 'secrets.hardcoded src/config.ts']),
    );
    // The main branch only: the release branch's file was not cloned; the key itself is in no finding.
    expect(findings.some((f: any) => f.path === 'src/release.ts')).toBe(false);
    expect(JSON.stringify(findings)).not.toContain(KEY);
    expect(clones()).toEqual([]);
  });

  it('clones the branch a target names after #', async () => {
    const target = await api(t.alice!, '/targets', {
      name: 'app-release',
      kind: 'repository',
      path: `${git.url}/acme/app.git#release`,
    });
    expect(target.status).toBe(201);
    const scan = await api(t.alice!, '/scans', { target_id: target.body.id, pack_id: 'platform-baseline' });
    expect(scan.body.status).toBe('completed');
    const findings = (await api(t.alice!, `/findings?target_id=${target.body.id}`)).body.findings;
    expect(
      findings
        .filter((f: any) => f.rule_id === 'secrets.hardcoded')
        .map((f: any) => f.path)
        .sort(),
    ).toEqual(['src/config.ts', 'src/release.ts']);
    expect(clones()).toEqual([]);
  });

  it('fails a scan whose ref or repository is missing with a clear error, and keeps serving', async () => {
    const noRef = await api(t.alice!, '/targets', {
      name: 'no-ref',
      kind: 'repository',
      path: `${git.url}/acme/app.git#nope`,
    });
    const noRepo = await api(t.alice!, '/targets', {
      name: 'no-repo',
      kind: 'repository',
      path: `${git.url}/acme/gone.git`,
    });
    const a = await api(t.alice!, '/scans', { target_id: noRef.body.id, pack_id: 'platform-baseline' });
    expect(a.status).toBe(422);
    expect(JSON.stringify(a.body.detail)).toContain('nope');
    const b = await api(t.alice!, '/scans', { target_id: noRepo.body.id, pack_id: 'platform-baseline' });
    expect(b.status).toBe(503);
    expect(b.body.detail).toMatch(/could not be cloned/);
    const scans = (await api(t.alice!, '/scans')).body.scans;
    expect(scans.filter((s: any) => s.status === 'failed')).toHaveLength(2);
    expect(clones()).toEqual([]);
    const again = await api(t.alice!, '/scans', { target_id: ids.main, pack_id: 'platform-baseline' });
    expect([again.status, again.body.status]).toEqual([201, 'completed']);
  });

  it("keeps a tenant's remote targets and findings from another tenant", async () => {
    expect((await api(t.bob!, `/targets/${ids.main}`)).status).toBe(404);
    expect((await api(t.bob!, '/scans', { target_id: ids.main, pack_id: 'platform-baseline' })).status).toBe(404);
    expect((await api(t.bob!, `/findings?target_id=${ids.main}`)).body.findings).toEqual([]);
  });
});
