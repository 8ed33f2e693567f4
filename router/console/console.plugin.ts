// The reviewer console at /console (issue 25): the built single-page app (console/, Vite) and its
// session routes. index.html is served for /console/ and every page path under it, never cached,
// so a new build is picked up on the next load; assets/ carry content-hashed names and are
// cached for good. Every response carries the strict CSP (console.csp.ts).
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { IdentityClient } from '../../platform/clients/identity.client';
import type { Logger } from '../../platform/logging/logger';
import type { RateLimiter } from '../edge/rate-limit/rate-limiter';
import { limitClientIp } from '../http/client-ip.limit';
import { loadConsoleAssets, type ConsoleAsset } from './console.assets';
import type { ConsoleConfig } from './console.config';
import { consoleHeaders } from './console.csp';
import { registerSessionRoutes } from './session.routes';

export interface ConsoleOptions {
  config: ConsoleConfig;
  identityUrl: string;
  refreshTokenDays: number;
  /** The OIDC provider's issuer (platform config auth.oidc): the console signs in through it. */
  oidcIssuer?: string;
  logger: Pick<Logger, 'warn'>;
  ipLimiter?: RateLimiter;
}

const YEAR_SECONDS = 365 * 24 * 3600;

function acceptsGzip(header: string | undefined): boolean {
  return /(^|,)\s*(gzip|\*)\s*(;\s*q=(?!0(\.0*)?\s*(,|$))[\d.]+)?\s*(,|$)/i.test(header ?? '');
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  asset: ConsoleAsset,
  cacheControl: string,
  headers: Readonly<Record<string, string>>,
): FastifyReply {
  reply.headers({
    ...headers,
    'content-type': asset.contentType,
    'cache-control': cacheControl,
    etag: asset.etag,
    vary: 'Accept-Encoding',
  });
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(asset.body);
  asset.gzipped ??= gzipSync(asset.body);
  return reply.header('content-encoding', 'gzip').send(asset.gzipped);
}

/** Mounts /console when CONSOLE_ENABLED; without a build it answers a short 503 note instead. */
export function mountConsole(app: FastifyInstance, options: ConsoleOptions): void {
  if (!options.config.enabled) return;
  const assets = loadConsoleAssets(options.config.dir);
  if (!assets.index)
    options.logger.warn(
      { dir: options.config.dir },
      'the console is on but not built (run `npm run build`): /console answers 503',
    );
  const providerOrigin = options.oidcIssuer ? new URL(options.oidcIssuer).origin : undefined;
  const headers = consoleHeaders(providerOrigin);
  // Where the page starts a provider sign-in: the issuer, and the console's client per tenant
  // (`console.<tenant id>`, derived by identity: docs/identity.md "The console's client").
  app.get('/console/session/provider', { schema: { hide: true } }, async (request, reply) => {
    if (!(await limitClientIp(options.ipLimiter, request, reply))) return reply;
    if (!options.oidcIssuer) return reply.code(404).headers(headers).send({ detail: 'Not Found' });
    return reply
      .headers({ ...headers, 'cache-control': 'no-store' })
      .send({ issuer: options.oidcIssuer, client_id_prefix: 'console.' });
  });
  registerSessionRoutes(app, {
    identity: new IdentityClient(options.identityUrl),
    refreshTokenDays: options.refreshTokenDays,
    ipLimiter: options.ipLimiter,
  });

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await limitClientIp(options.ipLimiter, request, reply))) return reply;
    if (!assets.index) {
      return reply
        .code(503)
        .headers({ ...headers, 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
        .send('The console is not built: run `npm run build`.');
    }
    return send(request, reply, assets.index, 'no-cache', headers);
  };
  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', { schema: { hide: true } }, page);
  // Page paths (/console/approvals, ...) are the app's own routes: the same index.html.
  app.get<{ Params: { page: string } }>('/console/:page', { schema: { hide: true } }, page);
  app.get<{ Params: { file: string } }>('/console/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    if (!(await limitClientIp(options.ipLimiter, request, reply))) return reply;
    const asset = assets.files.get(request.params.file);
    if (!asset) return reply.code(404).headers(headers).send({ detail: 'Not Found' });
    return send(request, reply, asset, `public, max-age=${YEAR_SECONDS}, immutable`, headers);
  });
}
