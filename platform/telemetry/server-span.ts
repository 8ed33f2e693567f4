// The request's server span, finished by Fastify's hooks. instrumentation-http opens one SERVER
// span per incoming request and keeps it in the request's context with its RPC metadata; the
// route Fastify matched is written there, so the span ends named `{method} {http.route}` with
// `http.route` set (the HTTP semantic conventions), as @fastify/otel did, without its span per
// hook and handler (issue 31: those were most of tracing's cost). The span also gets the
// platform's own attributes: which service answered (under `npm start` one process serves them
// all) and the tenant, so a trace search by service or tenant finds the request.
import { context, SpanStatusCode, type Span } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The server span of the request being handled, when it is recorded (sampled). */
function serverSpan(): Span | undefined {
  const meta = getRPCMetadata(context.active());
  return meta?.type === RPCType.HTTP && meta.span.isRecording() ? meta.span : undefined;
}

export function registerServerSpan(
  app: FastifyInstance,
  service: string,
  tenantOf: (request: FastifyRequest) => string | undefined,
): void {
  // Callback hooks (no promise per request), and nothing computed for an unsampled request.
  app.addHook('onRequest', (request, _reply, done) => {
    const meta = getRPCMetadata(context.active());
    if (meta?.type === RPCType.HTTP && meta.span.isRecording()) {
      // The template ('/events/:id'), never the path: the span name stays low-cardinality.
      const route = request.routeOptions.url;
      if (route !== undefined) meta.route = route;
      meta.span.setAttribute('platform.service', service);
    }
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const span = serverSpan();
    if (span) {
      const tenant = tenantOf(request);
      if (tenant) span.setAttribute('platform.tenant_id', tenant);
    }
    done();
  });
  // A handler's exception on the span (instrumentation-http marks a 5xx as an error, not why).
  app.addHook('onError', (_request, _reply, error, done) => {
    const span = serverSpan();
    if (span) {
      span.recordException(error);
      if ((error.statusCode ?? 500) >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
    }
    done();
  });
}
