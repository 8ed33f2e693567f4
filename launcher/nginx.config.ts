// The load balancer's configuration, generated from the service registry (launcher/registry.ts):
// for each service one nginx upstream of its processes and one server listening on the service's
// documented port, so clients, the gateway, the outbox relay and service clients keep addressing
// `<SERVICE>_URL` = the balancer and never pair with a process by hand.
//
// Health checks are nginx's passive ones (open-source nginx has no active checks): a process that
// refuses connections, times out or answers 502/503/504 is marked down for `failTimeoutS` after
// `maxFails` failures, and the request goes to the next process (proxy_next_upstream). A request
// with a non-idempotent method (POST) is retried only when it never reached the process (connect
// refused): an append sent to a process that then died may have committed, so the client, which
// got a 502, retries it with its idempotency key rather than nginx blindly.

/**
 * Services whose processes each keep per-tenant state that another process's writes invalidate:
 * nginx sends one tenant's requests to one process (consistent hash of the tenant). The ledger
 * appends in one statement only on heads this process wrote last (docs/ledger.md, "One statement
 * when the head is known"); spread round-robin, two processes kept taking each other's heads and
 * were slower than one (issue 35). The key is X-Tenant-ID, else the bearer token (one caller's
 * requests stay together); with neither, round-robin. A process that fails is skipped as before
 * (its tenants move to the others until it is back).
 */
export const ROUTED_BY_TENANT: ReadonlySet<string> = new Set(['ledger']);

/**
 * Idle upstream connections nginx keeps, per process of the service. `keepalive` caps the idle
 * connections of the whole upstream, not of each server: at a fixed 64, two processes routed by
 * tenant (all of a moment's requests can go to one of them, then to the other) made nginx close
 * and reopen ~60 connections a second under the 50-connection scale-out load (issue 35 item 2).
 */
export const KEEPALIVE_PER_PROCESS = 64;

export interface BalancedService {
  name: string;
  /** Where the balancer listens for this service. */
  listenPort: number;
  /** The service's processes (host:port). */
  backends: string[];
  /** One tenant's requests to one process (see ROUTED_BY_TENANT). */
  routeByTenant?: boolean;
}

export interface NginxOptions {
  services: BalancedService[];
  /** Folder for the pid file, logs and temp files (nginx -p). */
  prefix: string;
  listenHost?: string;
  maxFails?: number;
  failTimeoutS?: number;
  /** Connect timeout to a process before the next one is tried. */
  connectTimeoutS?: number;
  /**
   * The local address nginx connects to the processes from (proxy_bind): the one address the
   * gateway trusts as its balancer (TRUSTED_PROXIES), so no other local client shares that trust.
   * Unset: the system's choice (containers, where the balancer has its own address).
   */
  bindAddress?: string;
}

export function nginxConfig(options: NginxOptions): string {
  const { prefix } = options;
  const host = options.listenHost ?? '127.0.0.1';
  const maxFails = options.maxFails ?? 1;
  const failTimeout = options.failTimeoutS ?? 5;
  const connectTimeout = options.connectTimeoutS ?? 2;
  const lines = [
    '# Generated from the service registry by launcher/nginx.config.ts (npm run deploy:local writes its own copy).',
    '# Do not edit by hand: test/unit/platform/deploy-files.test.ts checks deploy/nginx.conf against the generator.',
    'worker_processes 1;',
    `pid ${prefix}/nginx.pid;`,
    `error_log ${prefix}/error.log warn;`,
    'events { worker_connections 4096; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${prefix}/client_body_temp;`,
    `  proxy_temp_path ${prefix}/proxy_temp;`,
    `  fastcgi_temp_path ${prefix}/fastcgi_temp;`,
    `  uwsgi_temp_path ${prefix}/uwsgi_temp;`,
    `  scgi_temp_path ${prefix}/scgi_temp;`,
    '  client_max_body_size 64m;',
    '  # WebSocket upgrade (graphql-ws subscriptions on /graphql) passes through; plain requests keep upstream keepalive.',
    '  map $http_upgrade $connection_upgrade { default upgrade; "" ""; }',
    '  # The tenant a request is for, for the services routed by tenant (launcher/nginx.config.ts).',
    '  map $http_x_tenant_id $tenant_route { "" $http_authorization; default $http_x_tenant_id; }',
  ];
  for (const s of options.services) {
    const upstream = `svc_${s.name.replace(/-/g, '_')}`;
    lines.push(
      '',
      `  # ${s.name}: ${s.backends.length} process(es)`,
      `  upstream ${upstream} {`,
      ...(s.routeByTenant ? ['    hash $tenant_route consistent;'] : []),
      ...s.backends.map((b) => `    server ${b} max_fails=${maxFails} fail_timeout=${failTimeout}s;`),
      `    keepalive ${KEEPALIVE_PER_PROCESS * s.backends.length};`,
      '  }',
      '  server {',
      `    listen ${host}:${s.listenPort};`,
      '    location / {',
      `      proxy_pass http://${upstream};`,
      '      proxy_http_version 1.1;',
      '      proxy_set_header Upgrade $http_upgrade;',
      '      proxy_set_header Connection $connection_upgrade;',
      '      proxy_set_header Host $host;',
      // The client's address appended to whatever it sent: the gateway believes only the
      // right-most untrusted entry (TRUSTED_PROXIES, platform/http/trusted-proxies.ts).
      '      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '      proxy_set_header X-Forwarded-Proto $scheme;',
      ...(options.bindAddress ? [`      proxy_bind ${options.bindAddress};`] : []),
      `      proxy_connect_timeout ${connectTimeout}s;`,
      '      proxy_read_timeout 3600s;',
      '      proxy_send_timeout 3600s;',
      '      proxy_next_upstream error timeout http_502 http_503 http_504;',
      '      proxy_next_upstream_tries 3;',
      '    }',
      '  }',
    );
  }
  lines.push('}', '');
  return lines.join('\n');
}
