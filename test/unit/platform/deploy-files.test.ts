// The deployment files stay honest: deploy/nginx.conf, deploy/compose.yaml and
// deploy/k8s/platform.yaml are what the generator (launcher/deploy-files.ts) makes from the registry
// today; every container runs a service the registry has on its documented port (in Kubernetes also:
// probes on paths every service app serves, non-root, every `<NAME>_URL` an existing Service); the image is multi-stage, non-root, has a
// health check and starts with exactly the command `npm run service` runs; the env example names
// only settings the code reads; nginx accepts the generated configuration (when nginx is installed).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import YAML from 'yaml';
import { BlockList } from 'node:net';
import {
  COMPOSE_BALANCER_ADDRESS,
  composeFile,
  deployNginxConfig,
  K8S_CONFIG,
  K8S_PROBES,
  K8S_SECRET,
  kubernetesManifests,
} from '../../../launcher/deploy-files';
import { parseTrustedProxies } from '../../../platform/http/trusted-proxies';
import { registerHealthRoutes } from '../../../platform/http/health';
import { nginxConfig } from '../../../launcher/nginx.config';
import { SERVICES } from '../../../launcher/registry';

const ROOT = path.join(__dirname, '../../..');
const read = (f: string) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const REGENERATE = 'run `npm run build && npm run deploy:files` and commit deploy/';

it('deploy/nginx.conf and deploy/compose.yaml are what the registry generates', () => {
  expect({
    file: 'deploy/nginx.conf',
    same: read('deploy/nginx.conf') === deployNginxConfig(),
    fix: REGENERATE,
  }).toEqual({ file: 'deploy/nginx.conf', same: true, fix: REGENERATE });
  expect({ file: 'deploy/compose.yaml', same: read('deploy/compose.yaml') === composeFile(), fix: REGENERATE }).toEqual(
    { file: 'deploy/compose.yaml', same: true, fix: REGENERATE },
  );
  expect({
    file: 'deploy/k8s/platform.yaml',
    same: read('deploy/k8s/platform.yaml') === kubernetesManifests(),
    fix: REGENERATE,
  }).toEqual({ file: 'deploy/k8s/platform.yaml', same: true, fix: REGENERATE });
});

it('compose runs every registry service, on its documented port, behind the balancer', () => {
  const compose = YAML.parse(read('deploy/compose.yaml')) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string>; ports?: string[] }>;
  };
  for (const s of SERVICES) {
    const containers = Object.entries(compose.services).filter(([, c]) => c.command?.[0] === s.name);
    expect(containers.length).toBeGreaterThanOrEqual(2);
    for (const [, c] of containers) expect(c.environment?.PORT).toBe(String(s.port));
    expect(compose.services.balancer!.ports).toContain(`${s.port}:${s.port}`);
    expect(read('deploy/nginx.conf')).toContain(`listen 0.0.0.0:${s.port};`);
  }
  const commands = Object.values(compose.services).flatMap((c) =>
    c.command && !c.command[0]!.startsWith('-') && c.command[0] !== 'nginx' ? [c.command[0]!] : [],
  );
  for (const name of commands) expect(SERVICES.map((s) => s.name)).toContain(name);
});

it("compose gives the balancer a fixed address outside Docker's dynamic range, and only the gateways trust it", () => {
  interface Net {
    ipam: { config: { subnet: string; ip_range: string }[] };
  }
  const compose = YAML.parse(read('deploy/compose.yaml')) as {
    networks: { default: Net };
    services: Record<
      string,
      { command?: string[]; environment?: Record<string, string>; networks?: { default: { ipv4_address: string } } }
    >;
  };
  const balancer = compose.services.balancer!.networks!.default.ipv4_address;
  expect(balancer).toBe(COMPOSE_BALANCER_ADDRESS);
  const [{ subnet, ip_range: range }] = compose.networks.default.ipam.config as [{ subnet: string; ip_range: string }];
  const inside = (cidr: string) => {
    const [address, bits] = cidr.split('/');
    const list = new BlockList();
    list.addSubnet(address!, Number(bits), 'ipv4');
    return list.check(balancer, 'ipv4');
  };
  expect({ inSubnet: inside(subnet), inDynamicRange: inside(range) }).toEqual({
    inSubnet: true,
    inDynamicRange: false,
  });
  for (const [name, c] of Object.entries(compose.services)) {
    const trusted = c.environment?.TRUSTED_PROXIES;
    if (c.command?.[0] === 'gateway')
      expect({
        name,
        trusts: parseTrustedProxies(trusted).trust(balancer),
        entries: parseTrustedProxies(trusted).entries.length,
      }).toEqual({ name, trusts: true, entries: 1 });
    else expect({ name, trusted }).toEqual({ name, trusted: undefined });
  }
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
  for (const file of ['scripts/dist-check.cjs', 'launcher/start-one.ts'])
    expect(fs.existsSync(path.join(ROOT, file))).toBe(true);
  expect(dockerfile).toContain('/health');
});

it('the env example names only settings the code reads', () => {
  const keys = read('deploy/platform.env.example')
    .split('\n')
    .filter((l) => /^[A-Z_]+=/.test(l))
    .map((l) => l.split('=')[0]!);
  const sources = ['platform/config/platform.config.ts', 'launcher/deploy-local.ts'].map(read).join('\n');
  for (const key of keys) expect({ key, read: sources.includes(`'${key}'`) }).toEqual({ key, read: true });
});

const nginx = spawnSync('nginx', ['-v']).status === 0 ? it : it.skip;
nginx('nginx accepts the generated configuration', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nginx-check-'));
  const conf = path.join(dir, 'nginx.conf');
  // The container's upstream host names do not resolve here: the same generator with local addresses.
  fs.writeFileSync(
    conf,
    nginxConfig({
      prefix: dir,
      services: SERVICES.map((s, i) => ({
        name: s.name,
        listenPort: 40000 + i,
        backends: ['127.0.0.1:1', '127.0.0.1:2'],
      })),
    }),
  );
  const result = spawnSync('nginx', ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', conf], {
    encoding: 'utf8',
  });
  expect(result.stderr).toContain('test is successful');
  // deploy:local's variant: connections to the processes from the one address the gateways trust.
  const bound = nginxConfig({
    prefix: dir,
    bindAddress: '127.0.0.1',
    services: [{ name: 'gateway', listenPort: 40000, backends: ['127.0.0.1:1'] }],
  });
  expect(bound).toContain('proxy_bind 127.0.0.1;');
  fs.writeFileSync(conf, bound);
  expect(
    spawnSync('nginx', ['-t', '-p', dir, '-e', path.join(dir, 'error.log'), '-c', conf], { encoding: 'utf8' }).stderr,
  ).toContain('test is successful');
});

describe('deploy/k8s/platform.yaml', () => {
  interface Probe {
    httpGet: { path: string; port: string | number };
  }
  interface Container {
    args: string[];
    image: string;
    ports: { name: string; containerPort: number }[];
    env: { name: string; value: string }[];
    envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
    startupProbe: Probe;
    livenessProbe: Probe;
    readinessProbe: Probe;
    resources: { requests: Record<string, string> };
    securityContext: { allowPrivilegeEscalation: boolean };
  }
  interface Manifest {
    apiVersion: string;
    kind: string;
    metadata: { name: string; labels?: Record<string, string> };
    data?: Record<string, unknown>;
    spec: {
      replicas: number;
      selector: Record<string, unknown> & { matchLabels: Record<string, string> };
      ports: { port: number; targetPort: string | number }[];
      type: string;
      template: {
        metadata: { labels: Record<string, string> };
        spec: {
          enableServiceLinks: boolean;
          securityContext: { runAsNonRoot: boolean; runAsUser: number };
          containers: Container[];
        };
      };
    };
  }
  const docs = YAML.parseAllDocuments(read('deploy/k8s/platform.yaml'));
  const manifests = docs.map((d) => d.toJS() as Manifest);
  const ofKind = (kind: string) => manifests.filter((m) => m.kind === kind);

  it('parses, and every document has apiVersion, kind and metadata.name, each name once per kind', () => {
    for (const d of docs) expect(d.errors).toEqual([]);
    for (const m of manifests) {
      expect(typeof m.apiVersion).toBe('string');
      expect(typeof m.kind).toBe('string');
      expect(m.metadata.name).toMatch(/^[a-z]([-a-z0-9]*[a-z0-9])?$/);
    }
    const keys = manifests.map((m) => `${m.kind}/${m.metadata.name}`);
    expect(new Set(keys).size).toBe(keys.length);
    // The Secret's values are the operator's: never committed.
    expect(ofKind('Secret')).toEqual([]);
    expect(ofKind('ConfigMap').map((m) => m.metadata.name)).toEqual([K8S_CONFIG]);
  });

  it('runs every registry service, and only those, on its documented port', () => {
    const deployments = ofKind('Deployment');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    for (const d of deployments) {
      const service = SERVICES.find((s) => s.name === d.metadata.name)!;
      const [container, ...others] = d.spec.template.spec.containers;
      expect(others).toEqual([]);
      // The same argument compose passes: the image's entrypoint runs `npm run service`'s command.
      expect(container!.args).toEqual([service.name]);
      expect(container!.image).toBe('regulated-platform:latest');
      expect(container!.ports).toEqual([expect.objectContaining({ name: 'http', containerPort: service.port })]);
      expect(container!.env).toEqual(
        expect.arrayContaining([
          { name: 'PORT', value: String(service.port) },
          { name: 'HOST', value: '0.0.0.0' },
        ]),
      );
      expect(d.spec.replicas).toBeGreaterThanOrEqual(2);
      expect(d.spec.template.metadata.labels).toMatchObject(d.spec.selector.matchLabels);
      expect(container!.resources.requests).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    }
  });

  it('probes paths every service app serves, on its port', async () => {
    // Every service app is built by the kernel's createServiceApp (the gateway directly, the others
    // through buildServiceApp), which registers the health routes.
    for (const s of SERVICES) {
      const source = read(`services/${s.name}.ts`);
      expect({ service: s.name, healthRoutes: /\b(buildServiceApp|createServiceApp)(<\w+>)?\(/.test(source) }).toEqual({
        service: s.name,
        healthRoutes: true,
      });
    }
    const app = Fastify();
    registerHealthRoutes(app, { readiness: {}, service: 'probe', version: '0' });
    await app.ready();
    for (const d of ofKind('Deployment')) {
      const c = d.spec.template.spec.containers[0]!;
      for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe]) {
        expect(app.hasRoute({ method: 'GET', url: probe.httpGet.path })).toBe(true);
        expect(probe.httpGet.port).toBe('http');
      }
      // Readiness is the check that includes the database (platform/http/health.ts).
      expect(c.readinessProbe.httpGet.path).toBe(K8S_PROBES.readiness);
    }
    await app.close();
  });

  it('runs as non-root, and without service-link variables that would read as <SERVICE>_PORT', () => {
    for (const d of ofKind('Deployment')) {
      const pod = d.spec.template.spec;
      expect(pod.securityContext.runAsNonRoot).toBe(true);
      // The image's USER is a name (node); runAsNonRoot needs a numeric user to verify.
      expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
      expect(pod.containers[0]!.securityContext.allowPrivilegeEscalation).toBe(false);
      expect(pod.enableServiceLinks).toBe(false);
    }
  });

  it("every <NAME>_URL names an existing Service on that service's port; every Service selects its pods", () => {
    const services = ofKind('Service');
    expect(services.map((s) => s.metadata.name).sort()).toEqual(SERVICES.map((s) => s.name).sort());
    for (const d of ofKind('Deployment')) {
      const c = d.spec.template.spec.containers[0]!;
      const urls = c.env.filter((e) => /_URL$/.test(e.name));
      expect(urls.length).toBe(SERVICES.length);
      for (const { name, value } of urls) {
        const url = new URL(value);
        const target = services.find((s) => s.metadata.name === url.hostname);
        expect({ name, service: target?.metadata.name }).toEqual({ name, service: url.hostname });
        expect(name).toBe(`${url.hostname.toUpperCase().replace(/-/g, '_')}_URL`);
        expect(target!.spec.ports.map((p) => p.port)).toContain(Number(url.port));
      }
      expect(c.envFrom).toEqual(
        expect.arrayContaining([{ configMapRef: { name: K8S_CONFIG } }, { secretRef: { name: K8S_SECRET } }]),
      );
    }
    for (const svc of services) {
      const d = ofKind('Deployment').find((m) => m.metadata.name === svc.metadata.name)!;
      expect(svc.spec.type).toBe('ClusterIP');
      expect(d.spec.template.metadata.labels).toMatchObject(svc.spec.selector);
      const named = d.spec.template.spec.containers[0]!.ports.map((p) => p.name);
      for (const p of svc.spec.ports) expect(named).toContain(p.targetPort);
    }
  });

  it("the ConfigMap's TRUSTED_PROXIES parses (the gateway would stop on a bad entry)", () => {
    expect(parseTrustedProxies(String(ofKind('ConfigMap')[0]!.data!.TRUSTED_PROXIES)).entries.length).toBeGreaterThan(
      0,
    );
  });

  it('the ConfigMap names only settings the code reads', () => {
    const sources = ['platform/config/platform.config.ts', 'router/gateway.config.ts'].map(read).join('\n');
    for (const key of Object.keys(ofKind('ConfigMap')[0]!.data!))
      expect({ key, read: sources.includes(`'${key}'`) }).toEqual({ key, read: true });
  });
});
