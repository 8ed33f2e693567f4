// The request's one SERVER span, made by Fastify hooks (issue 31: tracing costs <= 10%).
//
// Before, two instrumentations traced an incoming request: instrumentation-http's server span
// (17 attributes, metric attributes computed for a meter the platform does not run, the request
// and response emitters patched) and @fastify/otel's span per hook and handler (11 more spans for
// one ledger append). This is one span that follows the HTTP semantic conventions: named
// `{method} {http.route}`, kind SERVER, the parent taken from the W3C `traceparent` header,
// `http.request.method`, `url.path`, `url.scheme`, `http.route`, `server.port`, `client.address`,
// `network.protocol.version`, `user_agent.original`, `http.response.status_code`, `error.type`
// and the exception of a failed handler; plus the platform's own `platform.service` (under
// `npm start` one process serves every service) and `platform.tenant_id`, so a trace search by
// service or tenant finds the request. Attributes are set only when the span is sampled.
//
// The context: the rest of the request runs inside the span's context (outgoing calls, queries
// and log lines join the trace): onRequest enters it and Fastify carries it across the body's
// parsing (an AsyncResource per request), so the handler runs in it.
//
// The span is ended by the caller's own onResponse hook (the service app's one hook for the log
// line and the metrics): each hook Fastify runs is a call chain per request, so the span adds one
// hook on the hot path (onRequest), not three; the tenant is read then too, when auth is known.
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { routeTemplate } from '../http/route-template';

/** The instrumentation scope of request spans (tracing.ts gives it the light tracer of request-span.ts). */
export const REQUEST_SCOPE = 'regulated-platform/http-server';

/** Paths whose requests are telemetry or probes themselves: tracing them would trace the exporter. */
export const UNTRACED = /^\/(v1\/(traces|metrics)|metrics|healthz|livez|readyz|health)(\?|$)/;

interface Traced {
  span: Span;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's server span (server-span.ts), when tracing is on. */
    tracing: Traced | null;
  }
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

function carriesContext(headers: FastifyRequest['headers'], fields: readonly string[]): boolean {
  for (const field of fields) if (headers[field] !== undefined) return true;
  return false;
}

/** Ends the request's span: with the response's status, or `undefined` when the client went away first. */
function finish(
  request: FastifyRequest,
  status: number | undefined,
  tenantOf: (request: FastifyRequest) => string | undefined,
): void {
  const traced = request.tracing;
  if (!traced) return;
  request.tracing = null;
  const { span } = traced;
  if (span.isRecording()) {
    const tenant = tenantOf(request);
    if (tenant) span.setAttribute('platform.tenant_id', tenant);
    if (status === undefined) {
      span.setAttribute('error.type', 'aborted');
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'the client closed the connection' });
    } else {
      span.setAttribute('http.response.status_code', status);
    }
    if (status !== undefined && status >= 500) {
      // Semantic conventions: a server span is an error for a 5xx only (a 4xx is the client's).
      span.setAttribute('error.type', String(status));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
  }
  span.end();
}

/** Ends a request's server span; called from the app's onResponse hook. */
export type EndServerSpan = (request: FastifyRequest, reply: FastifyReply) => void;

export function registerServerSpan(
  app: FastifyInstance,
  service: string,
  tenantOf: (request: FastifyRequest) => string | undefined,
): EndServerSpan {
  // Registered only once the SDK started (request-telemetry.ts): the provider is in place.
  const tracer = trace.getTracer(REQUEST_SCOPE);
  // The headers the process's propagators read (traceparent, tracestate, baggage by default): a
  // request carrying none of them starts a trace, and the propagators are not asked to find out.
  const fields = propagation.fields();
  app.decorateRequest('tracing', null);
  // Callback hooks: no promise per request (issue 35).
  app.addHook('onRequest', (request, _reply, done) => {
    if (UNTRACED.test(request.url)) return done();
    const parent = carriesContext(request.headers, fields)
      ? propagation.extract(ROOT_CONTEXT, request.headers)
      : ROOT_CONTEXT;
    const route = routeTemplate(request);
    const span = tracer.startSpan(
      route === undefined ? request.method : `${request.method} ${route}`,
      { kind: SpanKind.SERVER },
      parent,
    );
    if (span.isRecording()) {
      const raw = request.raw;
      span.setAttributes({
        'http.request.method': request.method,
        'url.path': pathOf(request.url),
        'url.scheme': request.protocol,
        'server.port': raw.socket?.localPort,
        'client.address': request.ip,
        'network.protocol.version': raw.httpVersion,
        'user_agent.original': request.headers['user-agent'],
        'platform.service': service,
      });
      // The template ('/events/:id'), never the path: low cardinality.
      if (route !== undefined) span.setAttribute('http.route', route);
    }
    request.tracing = { span };
    context.with(trace.setSpan(parent, span), done);
  });
  // A handler's exception on the span (the status alone says that it failed, not why).
  app.addHook('onError', (request, _reply, error, done) => {
    const span = request.tracing?.span;
    if (span?.isRecording() && (error.statusCode ?? 500) >= 500) span.recordException(error);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    finish(request, undefined, tenantOf);
    done();
  });
  return (request, reply) => finish(request, reply.statusCode, tenantOf);
}
