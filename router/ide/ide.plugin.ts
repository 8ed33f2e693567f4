// The offline GraphQL IDE (GRAPHQL_IDE): GET /graphql from a browser gets the GraphiQL page
// (ide.page.ts) instead of Apollo's landing page, which loads Apollo Sandbox from Apollo's CDN
// and so cannot work offline or air-gapped; Apollo's own landing page is always off. The page's
// scripts and stylesheets are served here under /graphql-ide/<hash>/<file>, cached for good.
// Without the development dependencies (an `npm ci --omit=dev` install) the router logs one
// warning and a browser gets a short note instead of the page; the API is unaffected.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from '../../platform/logging/logger';
import type { RateLimiter } from '../edge/rate-limit/rate-limiter';
import { limitClientIp } from '../http/client-ip.limit';
import { loadIdeAssets, type Asset, type PackageLocator } from './ide.assets';
import { prefersHtml } from './html-preference';
import { ASSET_PREFIX, ideContentSecurityPolicy, ideHtml, ideUnavailableHtml } from './ide.page';

export interface GraphQLIde {
  /** True when this request to /graphql is a browser asking for a page. */
  wantsPage(request: FastifyRequest): boolean;
  sendPage(request: FastifyRequest, reply: FastifyReply): FastifyReply;
}

export interface GraphQLIdeOptions {
  logger: Pick<Logger, 'warn'>;
  /** The per-address budget of /graphql, spent by asset requests too. */
  ipLimiter?: RateLimiter;
  /** Where the npm packages are installed (tests pass one that finds none). */
  locate?: PackageLocator;
}

const YEAR_SECONDS = 365 * 24 * 3600;

export function mountGraphQLIde(app: FastifyInstance, options: GraphQLIdeOptions): GraphQLIde {
  const assets = loadIdeAssets(options.locate);
  const wantsPage = (request: FastifyRequest) => prefersHtml(request.method, request.headers.accept);

  if (!assets.available) {
    options.logger.warn(
      { missing: assets.missing },
      "GRAPHQL_IDE is on but the IDE's development dependencies are not installed: browsers get a note instead of the IDE (set GRAPHQL_IDE=false to turn it off)",
    );
    const note = ideUnavailableHtml(assets.missing);
    return {
      wantsPage,
      sendPage: (_request, reply) =>
        reply
          .code(503)
          .headers({
            'content-type': 'text/html; charset=utf-8',
            'content-security-policy': "default-src 'none'",
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
          })
          .send(note),
    };
  }

  const gzipped = new Map<Asset, Buffer>();
  app.get<{ Params: { hash: string; file: string } }>(
    `/${ASSET_PREFIX}/:hash/:file`,
    { schema: { hide: true } },
    async (request, reply) => {
      if (!(await limitClientIp(options.ipLimiter, request, reply))) return reply;
      const asset = assets.byPath.get(`${request.params.hash}/${request.params.file}`);
      if (!asset) return reply.code(404).send({ detail: 'Not Found' });
      reply.headers({
        'content-type': asset.contentType,
        'cache-control': `public, max-age=${YEAR_SECONDS}, immutable`,
        etag: asset.etag,
        vary: 'Accept-Encoding',
        'x-content-type-options': 'nosniff',
        'cross-origin-resource-policy': 'same-origin',
      });
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      if (!acceptsGzip(request.headers['accept-encoding'])) return reply.send(asset.body);
      let body = gzipped.get(asset);
      if (!body) gzipped.set(asset, (body = gzipSync(asset.body)));
      return reply.header('content-encoding', 'gzip').send(body);
    },
  );

  return {
    wantsPage,
    sendPage(request, reply) {
      const nonce = randomBytes(16).toString('base64');
      return reply
        .code(200)
        .headers({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': ideContentSecurityPolicy(nonce, request.headers.host),
          // The nonce is per response: never reuse a stored copy.
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
          'x-frame-options': 'DENY',
          'referrer-policy': 'no-referrer',
          'cross-origin-opener-policy': 'same-origin',
        })
        .send(ideHtml(assets, nonce));
    },
  };
}

/** Accept-Encoding gives gzip (named, else through `*`) a quality above 0. */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const qualities = new Map<string, number>();
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    qualities.set(coding, q === undefined ? 1 : Number.parseFloat(q.slice(2)));
  }
  return (qualities.get('gzip') ?? qualities.get('*') ?? 0) > 0;
}
