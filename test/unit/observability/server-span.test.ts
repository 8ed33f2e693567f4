// The request's one server span (platform/telemetry/server-span.ts): named by the route, parented
// by the caller's traceparent, the handler running in its context (across a JSON body's parsing),
// a 5xx marked with its exception, the tenant and service on it, telemetry paths not traced, and
// nothing but the one span per request.
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { registerServerSpan } from '../../../platform/telemetry/server-span';

const exporter = new InMemorySpanExporter();
let provider: NodeTracerProvider;
let app: FastifyInstance;
let base: string;

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

beforeAll(async () => {
  provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register({
    contextManager: new AsyncLocalStorageContextManager(),
    propagator: new W3CTraceContextPropagator(),
  });
  app = Fastify();
  const end = registerServerSpan(app, 'things', (request) => request.headers['x-tenant-id'] as string | undefined);
  // The service app ends the span from its one onResponse hook (platform/http/service-app.ts).
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply);
    done();
  });
  app.post('/things/:id', async (request) => {
    // Work done after the body was read, in a promise turn: still inside the request's span.
    await new Promise((resolve) => setTimeout(resolve, 1));
    trace.getTracer('t').startSpan('inner').end();
    const active = trace.getActiveSpan()?.spanContext();
    return { id: (request.params as { id: string }).id, active: active?.spanId, trace: active?.traceId };
  });
  app.get('/boom', async () => {
    throw new Error('handler failed');
  });
  app.get('/metrics', async () => 'ok');
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
  await provider.shutdown();
  trace.disable();
  context.disable();
});

beforeEach(() => exporter.reset());

/** The span ends on the response's 'finish', which may come just after the client has the body. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
}

test('one SERVER span per request, named by the route, child of the traceparent, the handler in its context', async () => {
  const res = await fetch(`${base}/things/42?secret=x`, {
    method: 'POST',
    headers: {
      traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`,
      'x-tenant-id': 'acme',
      'content-type': 'application/json',
    },
    body: JSON.stringify({ a: 1 }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { active: string };
  await until(() => exporter.getFinishedSpans().some((s) => s.kind === SpanKind.SERVER));
  const spans = exporter.getFinishedSpans();
  const server = spans.filter((s) => s.kind === SpanKind.SERVER);
  expect(server).toHaveLength(1);
  const span = server[0]!;
  expect(span.name).toBe('POST /things/:id');
  expect(span.spanContext().traceId).toBe(PARENT_TRACE);
  expect(span.parentSpanContext?.spanId).toBe(PARENT_SPAN);
  expect(span.attributes).toMatchObject({
    'http.request.method': 'POST',
    'http.route': '/things/:id',
    'url.path': '/things/42',
    'http.response.status_code': 200,
    'platform.service': 'things',
    'platform.tenant_id': 'acme',
  });
  expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
  // The handler ran in the span's context: its active span and its child span.
  expect(body.active).toBe(span.spanContext().spanId);
  const inner = spans.find((s) => s.name === 'inner')!;
  expect(inner.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  // Nothing else: no span per hook or handler.
  expect(spans).toHaveLength(2);
});

test('a 5xx is an error with the exception recorded; a request without traceparent starts a trace', async () => {
  const res = await fetch(`${base}/boom`);
  expect(res.status).toBe(500);
  await until(() => exporter.getFinishedSpans().length > 0);
  const [span] = exporter.getFinishedSpans();
  expect(span!.name).toBe('GET /boom');
  expect(span!.parentSpanContext).toBeUndefined();
  expect(span!.status.code).toBe(SpanStatusCode.ERROR);
  expect(span!.attributes['error.type']).toBe('500');
  expect(span!.events.map((e) => e.name)).toContain('exception');
});

test('telemetry and probe paths are not traced', async () => {
  expect((await fetch(`${base}/metrics`)).status).toBe(200);
  // A traced request after it: its span is there, the probe's is not.
  await fetch(`${base}/boom`);
  await until(() => exporter.getFinishedSpans().length > 0);
  expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['GET /boom']);
});

test('an unsampled caller: no span recorded, the trace context still passed on', async () => {
  const res = await fetch(`${base}/things/7`, {
    method: 'POST',
    headers: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-00`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  // The handler saw the caller's (unsampled) context, so calls it makes would carry it on.
  const { trace: traceId } = (await res.json()) as { trace: string };
  expect(traceId).toBe(PARENT_TRACE);
  await fetch(`${base}/boom`); // a sampled request after it, to know the first has ended
  await until(() => exporter.getFinishedSpans().length > 0);
  expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['GET /boom']);
});
