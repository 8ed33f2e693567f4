// The container deployment's files, generated from the service registry so they cannot drift from
// it: deploy/nginx.conf (the balancer in front of `<service>-<n>` containers), deploy/compose.yaml
// (PostgreSQL with pgvector, NATS JetStream on file storage, Redis, N containers per service, nginx)
// and deploy/k8s/platform.yaml (a Deployment and a ClusterIP Service per service, the shared
// ConfigMap; Kubernetes Services balance there, so no nginx). `npm run deploy:files` rewrites them; test/unit/platform/deploy-files.test.ts fails when the
// committed copies differ from what this produces. Every service container runs the image's
// entrypoint, `node scripts/dist-check.cjs && exec node dist/launcher/start-one.js <name>`, which is
// what `npm run service` runs and what CI's scale-out suite starts.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { ServiceManifest } from '../platform/service';
import { PROJECT_ROOT } from '../platform/project-root';
import { nginxConfig, ROUTED_BY_TENANT } from './nginx.config';
import { SERVICES } from './registry';

export const CONTAINER_REPLICAS = 2;
/** Where every service's balancer is reached inside the compose network. */
export const BALANCER_HOST = 'balancer';
/**
 * The compose network's range and the balancer's fixed address in it: the gateways trust that one
 * address's X-Forwarded-For (TRUSTED_PROXIES), no other container's. Change the subnet if it
 * collides with a network of the host.
 */
export const COMPOSE_SUBNET = '172.30.0.0/24';
/** Where Docker picks the other containers' addresses: never the balancer's. */
export const COMPOSE_DYNAMIC_RANGE = '172.30.0.0/25';
export const COMPOSE_BALANCER_ADDRESS = '172.30.0.250';
/**
 * Kubernetes: the gateway is reached through an Ingress controller, whose pods take addresses from
 * the cluster's pod network. 10.244.0.0/16 is the default pod CIDR of kubeadm (flannel), kind and
 * minikube; the ConfigMap's TRUSTED_PROXIES is the place to narrow or replace it (docs/operations.md).
 */
export const K8S_TRUSTED_PROXIES = '10.244.0.0/16';

const container = (name: string, i: number) => `${name}-${i}`;

export function deployNginxConfig(
  services: readonly ServiceManifest[] = SERVICES,
  replicas = CONTAINER_REPLICAS,
): string {
  return nginxConfig({
    prefix: '/tmp',
    listenHost: '0.0.0.0',
    services: services.map((s) => ({
      name: s.name,
      listenPort: s.port,
      backends: Array.from({ length: replicas }, (_, i) => `${container(s.name, i + 1)}:${s.port}`),
      routeByTenant: ROUTED_BY_TENANT.has(s.name),
    })),
  });
}

export function composeFile(services: readonly ServiceManifest[] = SERVICES, replicas = CONTAINER_REPLICAS): string {
  const envName = (n: string) => n.toUpperCase().replace(/-/g, '_');
  // Every process reaches every service through the balancer.
  const urls = Object.fromEntries(services.map((s) => [`${envName(s.name)}_URL`, `http://${BALANCER_HOST}:${s.port}`]));
  const common = {
    image: 'regulated-platform:latest',
    env_file: ['platform.env'],
    environment: {
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgresql://platform:platform@postgres:5432/platform',
      NATS_URL: 'nats://nats:4222',
      REDIS_URL: 'redis://redis:6379',
      ...urls,
    },
    depends_on: {
      postgres: { condition: 'service_healthy' },
      nats: { condition: 'service_started' },
      redis: { condition: 'service_started' },
    },
    restart: 'unless-stopped',
  };
  const doc: Record<string, unknown> = {
    name: 'regulated-platform',
    services: {
      postgres: {
        image: 'pgvector/pgvector:pg16',
        environment: { POSTGRES_USER: 'platform', POSTGRES_PASSWORD: 'platform', POSTGRES_DB: 'platform' },
        volumes: ['pgdata:/var/lib/postgresql/data'],
        healthcheck: { test: ['CMD-SHELL', 'pg_isready -U platform'], interval: '5s', retries: 20 },
      },
      nats: { image: 'nats:2.10', command: ['-js', '-sd', '/data'], volumes: ['natsdata:/data'] },
      redis: { image: 'redis:7' },
      ...Object.fromEntries(
        services.flatMap((s) =>
          Array.from({ length: replicas }, (_, i) => [
            container(s.name, i + 1),
            {
              ...common,
              // The build stage runs once, for the first container of the first service.
              ...(s === services[0] && i === 0 ? { build: { context: '..', dockerfile: 'deploy/Dockerfile' } } : {}),
              command: [s.name],
              // Only the gateway reads TRUSTED_PROXIES: the balancer's address, whose X-Forwarded-For names the client.
              environment: {
                ...common.environment,
                PORT: String(s.port),
                ...(s.name === 'gateway' ? { TRUSTED_PROXIES: COMPOSE_BALANCER_ADDRESS } : {}),
              },
            },
          ]),
        ),
      ),
      [BALANCER_HOST]: {
        image: 'nginx:1.27',
        command: ['nginx', '-c', '/etc/platform/nginx.conf', '-g', 'daemon off;'],
        volumes: ['./nginx.conf:/etc/platform/nginx.conf:ro'],
        ports: services.map((s) => `${s.port}:${s.port}`),
        networks: { default: { ipv4_address: COMPOSE_BALANCER_ADDRESS } },
        depends_on: services.flatMap((s) => Array.from({ length: replicas }, (_, i) => container(s.name, i + 1))),
      },
    },
    networks: { default: { ipam: { config: [{ subnet: COMPOSE_SUBNET, ip_range: COMPOSE_DYNAMIC_RANGE }] } } },
    volumes: { pgdata: {}, natsdata: {} },
  };
  return `# Generated by launcher/deploy-files.ts (npm run deploy:files); checked by test/unit/platform/deploy-files.test.ts.\n# docker compose -f deploy/compose.yaml up --build (after cp deploy/platform.env.example deploy/platform.env and editing it).\n${YAML.stringify(doc, { aliasDuplicateObjects: false })}`;
}

/** The Secret every Deployment reads (JWT_SECRET_KEY, DATABASE_URL, ...): created by the operator, never committed. */
export const K8S_SECRET = 'platform-secrets';
/** The ConfigMap every Deployment reads: the shared settings that are not secret. */
export const K8S_CONFIG = 'platform-config';
/** The non-root user of deploy/Dockerfile's runtime stage (`node` in the node images). */
const K8S_UID = 1000;

/** The Kubernetes probes: the paths platform/http/health.ts registers for every service app. */
export const K8S_PROBES = { startup: '/healthz', liveness: '/healthz', readiness: '/readyz' } as const;

export function kubernetesManifests(
  services: readonly ServiceManifest[] = SERVICES,
  replicas = CONTAINER_REPLICAS,
): string {
  const envName = (n: string) => n.toUpperCase().replace(/-/g, '_');
  const labels = (name: string) => ({
    'app.kubernetes.io/name': name,
    'app.kubernetes.io/part-of': 'regulated-platform',
  });
  // Every process reaches every service through its Kubernetes Service (same namespace).
  const urls = services.map((s) => ({ name: `${envName(s.name)}_URL`, value: `http://${s.name}:${s.port}` }));
  const probe = (p: string, periodSeconds: number, failureThreshold: number) => ({
    httpGet: { path: p, port: 'http' },
    periodSeconds,
    timeoutSeconds: 3,
    failureThreshold,
  });
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: K8S_CONFIG, labels: { 'app.kubernetes.io/part-of': 'regulated-platform' } },
    // The same values as deploy/platform.env.example (but TRUSTED_PROXIES, the Ingress controller's
    // pods); NATS and Redis are expected as Services named nats and redis.
    data: {
      NATS_URL: 'nats://nats:4222',
      REDIS_URL: 'redis://redis:6379',
      PLATFORM_NAMESPACE: '',
      NATS_STREAM_STORAGE: 'file',
      NATS_STREAM_MAX_BYTES: '1073741824',
      NATS_STREAM_MAX_MSGS: '5000000',
      NATS_STREAM_MAX_AGE_SECONDS: '86400',
      // Read by the gateway only: the Ingress controller's pods, whose X-Forwarded-For names the client.
      TRUSTED_PROXIES: K8S_TRUSTED_PROXIES,
    },
  };
  const perService = services.flatMap((s) => [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: s.name, labels: labels(s.name) },
      spec: {
        replicas,
        selector: { matchLabels: labels(s.name) },
        // A new pod is ready before an old one stops: the service keeps serving through a rollout.
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        template: {
          metadata: { labels: labels(s.name) },
          spec: {
            // Kubernetes would otherwise inject LEDGER_PORT=tcp://10.0.0.1:8136 and the like for
            // every Service, which the configuration reads as `<SERVICE>_PORT` overrides.
            enableServiceLinks: false,
            // Above the preStop pause plus SHUTDOWN_GRACE_MS (10 s): the drain finishes before SIGKILL.
            terminationGracePeriodSeconds: 30,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: K8S_UID,
              runAsGroup: K8S_UID,
              seccompProfile: { type: 'RuntimeDefault' },
            },
            containers: [
              {
                name: s.name,
                image: 'regulated-platform:latest',
                imagePullPolicy: 'IfNotPresent',
                // The image's entrypoint is `npm run service`'s command; the argument names the service.
                args: [s.name],
                ports: [{ name: 'http', containerPort: s.port, protocol: 'TCP' }],
                env: [{ name: 'PORT', value: String(s.port) }, { name: 'HOST', value: '0.0.0.0' }, ...urls],
                envFrom: [{ configMapRef: { name: K8S_CONFIG } }, { secretRef: { name: K8S_SECRET } }],
                // The first start applies migrations before listening: the startup probe allows 5 minutes.
                startupProbe: probe(K8S_PROBES.startup, 5, 60),
                livenessProbe: probe(K8S_PROBES.liveness, 10, 3),
                readinessProbe: probe(K8S_PROBES.readiness, 5, 2),
                // Endpoints drop the pod before it stops accepting (SIGTERM then drains in-flight requests).
                lifecycle: { preStop: { exec: { command: ['sleep', '5'] } } },
                resources: { requests: { cpu: '100m', memory: '256Mi' } },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: s.name, labels: labels(s.name) },
      spec: {
        type: 'ClusterIP',
        selector: labels(s.name),
        ports: [{ name: 'http', port: s.port, targetPort: 'http', protocol: 'TCP' }],
      },
    },
  ]);
  const header = [
    '# Generated by launcher/deploy-files.ts (npm run deploy:files); checked by test/unit/platform/deploy-files.test.ts.',
    `# kubectl create secret generic ${K8S_SECRET} --from-env-file=<file> (JWT_SECRET_KEY, DATABASE_URL, ...), then`,
    '# kubectl apply -f deploy/k8s/platform.yaml. PostgreSQL with pgvector, NATS JetStream (Service nats) and Redis',
    '# (Service redis) must exist; the gateway Service is ClusterIP: expose it with an Ingress. docs/operations.md.',
    `# TRUSTED_PROXIES (ConfigMap) is ${K8S_TRUSTED_PROXIES}, a common pod CIDR: set it to your Ingress controller's pod addresses.`,
  ].join('\n');
  return `${header}\n${[configMap, ...perService].map((d) => `---\n${YAML.stringify(d, { aliasDuplicateObjects: false })}`).join('')}`;
}

if (require.main === module) {
  const dir = path.join(PROJECT_ROOT, 'deploy');
  fs.writeFileSync(path.join(dir, 'nginx.conf'), deployNginxConfig());
  fs.writeFileSync(path.join(dir, 'compose.yaml'), composeFile());
  fs.mkdirSync(path.join(dir, 'k8s'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'k8s', 'platform.yaml'), kubernetesManifests());
  process.stdout.write('wrote deploy/nginx.conf, deploy/compose.yaml and deploy/k8s/platform.yaml\n');
}
