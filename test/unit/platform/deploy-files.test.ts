// The deployment files stay honest: deploy/nginx.conf and deploy/compose.yaml are what the
// generator (launcher/deploy-files.ts) makes from the registry today; every container runs a
// service the registry has on its documented port; the image is multi-stage, non-root, has a
// health check and starts with exactly the command `npm run service` runs; the env example names
// only settings the code reads; nginx accepts the generated configuration (when nginx is installed).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { composeFile, deployNginxConfig } from '../../../launcher/deploy-files';
import { nginxConfig } from '../../../launcher/nginx.config';
import { SERVICES } from '../../../launcher/registry';

const ROOT = path.join(__dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const REGENERATE = 'run `npm run build && npm run deploy:files` and commit deploy/';

it('deploy/nginx.conf and deploy/compose.yaml are what the registry generates', () => {
  expect({ file: 'deploy/nginx.conf', same: read('deploy/nginx.conf') === deployNginxConfig(), fix: REGENERATE }).toEqual({ file: 'deploy/nginx.conf', same: true, fix: REGENERATE });
  expect({ file: 'deploy/compose.yaml', same: read('deploy/compose.yaml') === composeFile(), fix: REGENERATE }).toEqual({ file: 'deploy/compose.yaml', same: true, fix: REGENERATE });
});

it('compose runs every registry service, on its documented port, behind the balancer', () => {
  const compose = YAML.parse(read('deploy/compose.yaml')) as { services: Record<string, { command?: string[]; environment?: Record<string, string>; ports?: string[] }> };
  for (const s of SERVICES) {
    const containers = Object.entries(compose.services).filter(([, c]) => c.command?.[0] === s.name);
    expect(containers.length).toBeGreaterThanOrEqual(2);
    for (const [, c] of containers) expect(c.environment?.PORT).toBe(String(s.port));
    expect(compose.services.balancer!.ports).toContain(`${s.port}:${s.port}`);
    expect(read('deploy/nginx.conf')).toContain(`listen 0.0.0.0:${s.port};`);
  }
  const commands = Object.values(compose.services).flatMap((c) => (c.command && !c.command[0]!.startsWith('-') && c.command[0] !== 'nginx' ? [c.command[0]!] : []));
  for (const name of commands) expect(SERVICES.map((s) => s.name)).toContain(name);
});

it('the image is multi-stage, non-root, health-checked and starts what npm run service runs', () => {
  const dockerfile = read('deploy/Dockerfile');
  expect(dockerfile.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2);
  expect(dockerfile).toMatch(/^USER (?!root)\w+/m);
  expect(dockerfile).toMatch(/^HEALTHCHECK /m);
  // No build when a container starts: the build happens in the build stage only.
  const runtime = dockerfile.split(/^FROM /m).pop()!;
  expect(runtime).not.toMatch(/npm run build|tsc/);
  const service = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.service!;
  const entrypoint = /^ENTRYPOINT (.+)$/m.exec(dockerfile)![1]!;
  expect(JSON.parse(entrypoint)[2]).toBe(`${service} "$@"`);
  for (const file of ['scripts/dist-check.cjs', 'launcher/start-one.ts']) expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  expect(dockerfile).toContain('/health');
});

it('the env example names only settings the code reads', () => {
  const keys = read('deploy/platform.env.example').split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')[0]!);
  const sources = ['platform/config/platform.config.ts', 'launcher/deploy-local.ts'].map(read).join('\n');
  for (const key of keys) expect({ key, read: sources.includes(`'${key}'`) }).toEqual({ key, read: true });
});

const nginx = spawnSync('nginx', ['-v']).status === 0 ? it : it.skip;
nginx('nginx accepts the generated configuration', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-check-'));
  const conf = path.join(dir, 'nginx.conf');
  // The container's upstream host names do not resolve here: the same generator with local addresses.
  fs.writeFileSync(conf, nginxConfig({ prefix: dir, services: SERVICES.map((s, i) => ({ name: s.name, listenPort: 40000 + i, backends: ['127.0.0.1:1', '127.0.0.1:2'] })) }));
  const result = spawnSync('nginx', ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', conf], { encoding: 'utf8' });
  expect(result.stderr).toContain('test is successful');
});
