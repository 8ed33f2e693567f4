// The streaming reverse proxy behind every /api/v1 route: Node's fetch (undici, pooled keep-alive
// connections) with the request body passed through as a stream (`duplex: 'half'`) and the
// response body piped back as it arrives, so uploads and large answers are never held whole.
// Each call runs under the backend's circuit breaker; a timer aborts calls whose headers do not
// arrive in time (504).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Backend } from '../backends/backend.registry';
import { failureFor, UpstreamServerError } from './upstream.errors';

// Hop-by-hop headers (RFC 9110 §7.6.1) and those the gateway owns.
const DROP_REQUEST = new Set(['host', 'connection', 'keep-alive', 'proxy-connection', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'expect', 'x-tenant-id', 'x-correlation-id']);
const DROP_RESPONSE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'trailer', 'upgrade', 'proxy-authenticate', 'set-cookie']);

export interface ProxyTarget {
  backend: Backend;
  /** Upstream path, e.g. `/events`. */
  path: string;
  /** Query string to send, including `?`, or ''. */
  search: string;
  tenantId: string;
  /** A replacement body (JSON the gateway had to read); otherwise the request streams through. */
  body?: Buffer;
  timeoutMs: number;
  resetTimeoutMs: number;
}

export async function proxyRequest(request: FastifyRequest, reply: FastifyReply, target: ProxyTarget): Promise<FastifyReply> {
  const { backend } = target;
  const url = `${backend.url}${target.path}${target.search}`;
  const headers = forwardHeaders(request, target);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let body: RequestInit['body'];
  if (hasBody) {
    if (target.body) {
      body = target.body;
      headers.set('content-length', String(target.body.length));
    } else {
      const stream = request.body instanceof Readable ? request.body : request.raw;
      body = stream as unknown as NonNullable<RequestInit['body']>;
    }
  }

  let response: Response;
  try {
    response = await backend.call(async () => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(Object.assign(new Error('upstream timeout'), { code: 'ETIMEDOUT' })), target.timeoutMs);
      // The client went away before its answer was sent: stop the upstream call too.
      // (The request's own 'close' fires as soon as its body is read, so watch the response.)
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) controller.abort();
      });
      try {
        const res = await fetch(url, { method: request.method, headers, body, signal: controller.signal, redirect: 'manual', duplex: 'half' } as RequestInit);
        if (res.status >= 500) throw new UpstreamServerError(res);
        return res;
      } catch (err) {
        if (controller.signal.aborted && controller.signal.reason instanceof Error) throw controller.signal.reason;
        throw err;
      } finally {
        clearTimeout(timer);
      }
    });
  } catch (err) {
    if (err instanceof UpstreamServerError) {
      response = err.response as Response;
    } else {
      const failure = failureFor(backend.name, backend.url, err, target.resetTimeoutMs);
      if (failure.status === 502) request.log.warn({ err, backend: backend.name }, 'upstream call failed');
      if (failure.retryAfterSeconds) reply.header('Retry-After', String(failure.retryAfterSeconds));
      return reply.code(failure.status).send({ detail: failure.detail });
    }
  }

  reply.code(response.status);
  const decoded = response.headers.has('content-encoding');
  response.headers.forEach((value, key) => {
    if (DROP_RESPONSE.has(key)) return;
    // fetch decodes compressed bodies, so their encoding and length no longer apply.
    if (decoded && (key === 'content-encoding' || key === 'content-length')) return;
    reply.header(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) reply.header('set-cookie', cookies);
  if (!response.body) return reply.send();
  return reply.send(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream));
}

function forwardHeaders(request: FastifyRequest, target: ProxyTarget): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value === undefined || DROP_REQUEST.has(key)) continue;
    if (target.body && key === 'content-length') continue;
    headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  headers.set('x-tenant-id', target.tenantId);
  headers.set('x-correlation-id', request.id);
  headers.set('x-forwarded-for', request.ip);
  headers.set('x-forwarded-proto', request.protocol);
  if (request.headers.host) headers.set('x-forwarded-host', request.headers.host);
  return headers;
}
