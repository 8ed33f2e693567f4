// The request span (platform/telemetry/request-span.ts) against the SDK's span: given the same
// start, attributes, exception, status and end, the exported OTLP JSON is the same field for field
// (ids and times aside); the provider's sampler, span limits and suppression hold; ids are valid.
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { suppressTracing } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type SpanLimits,
  type Sampler,
} from '@opentelemetry/sdk-trace-base';
import { otlpTracesJson } from '../../../platform/telemetry/otlp-json';
import { RequestSpan, requestTracer } from '../../../platform/telemetry/request-span';

const SCOPE = 'regulated-platform/http-server';

function providerWith(options: { sampler?: Sampler; spanLimits?: SpanLimits } = {}) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
    ...options,
  });
  return { memory, sdk: provider.getTracer(SCOPE), light: requestTracer(provider.getTracer(SCOPE)) };
}

const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
});

/** What server-span.ts does to a failed request's span. */
function serve(tracer: Tracer): Span {
  const span = tracer.startSpan('POST', { kind: SpanKind.SERVER }, remoteParent);
  span.setAttributes({
    'http.request.method': 'POST',
    'url.path': '/graphql',
    'server.port': 8080,
    'client.address': '127.0.0.1',
    'user_agent.original': undefined,
    'platform.service': 'gateway',
    tags: ['a', 'mail jane.doe@example.com'],
    ratio: 0.5,
    ok: true,
  });
  span.updateName('POST /graphql');
  span.setAttribute('http.route', '/graphql');
  span.setAttribute('http.route', '/graphql');
  const error = new Error('boom for jane.doe@example.com');
  error.stack = 'Error: boom\n    at here';
  span.recordException(error);
  span.setAttribute('http.response.status_code', 500);
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
  span.end();
  return span;
}

/** The exported span with what differs between two recordings of the same request blanked. */
function exported(span: ReadableSpan): Record<string, unknown> {
  const body = JSON.parse(otlpTracesJson([span])) as {
    resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
  };
  const out = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
  expect(out.startTimeUnixNano).toMatch(/^\d{19}$/);
  expect(BigInt(out.endTimeUnixNano as string)).toBeGreaterThanOrEqual(BigInt(out.startTimeUnixNano as string));
  const events = out.events as { timeUnixNano: string }[];
  for (const e of events) expect(e.timeUnixNano).toMatch(/^\d{19}$/);
  return {
    ...out,
    spanId: 'x',
    startTimeUnixNano: 't',
    endTimeUnixNano: 't',
    events: events.map((e) => ({ ...e, timeUnixNano: 't' })),
  };
}

describe('the request span', () => {
  it('exports what the SDK span exports for the same request', () => {
    const { memory, sdk, light } = providerWith();
    const a = serve(sdk);
    const b = serve(light);
    expect(b).toBeInstanceOf(RequestSpan);
    expect(a).not.toBeInstanceOf(RequestSpan);
    const [sdkSpan, lightSpan] = memory.getFinishedSpans();
    expect(lightSpan).toBe(b);
    expect(exported(lightSpan!)).toEqual(exported(sdkSpan!));
    expect(lightSpan!.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(lightSpan!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(lightSpan!.ended).toBe(true);
    expect(b.isRecording()).toBe(false);
    // Ended: later calls change nothing (as the SDK's).
    b.setAttribute('late', 1);
    expect(lightSpan!.attributes.late).toBeUndefined();
  });

  it('starts a new trace with valid random ids when there is no parent', () => {
    const { light } = providerWith();
    const ids = new Set<string>();
    for (let i = 0; i < 3000; i++) {
      const span = light.startSpan('GET /x', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      const { traceId, spanId, traceFlags } = span.spanContext();
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(traceFlags).toBe(TraceFlags.SAMPLED);
      expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
      ids.add(traceId).add(spanId);
      span.end();
    }
    expect(ids.size).toBe(6000);
  });

  it("asks the provider's sampler: a dropped root is not recorded, a sampled parent's child is", () => {
    const { memory, light } = providerWith({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }),
    });
    const dropped = light.startSpan('GET /x', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
    expect(dropped.isRecording()).toBe(false);
    expect(dropped.spanContext().traceFlags).toBe(TraceFlags.NONE);
    expect(trace.isSpanContextValid(dropped.spanContext())).toBe(true);
    dropped.end();
    const kept = light.startSpan('GET /x', { kind: SpanKind.SERVER }, remoteParent);
    expect(kept.isRecording()).toBe(true);
    kept.end();
    expect(memory.getFinishedSpans()).toHaveLength(1);
  });

  it('records nothing where tracing is suppressed (the exporter’s own calls)', () => {
    const { memory, light } = providerWith();
    const span = light.startSpan('POST /v1/traces', {}, suppressTracing(ROOT_CONTEXT));
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
    span.end();
    expect(memory.getFinishedSpans()).toHaveLength(0);
  });

  it("keeps the provider's span limits", () => {
    const { memory, light } = providerWith({ spanLimits: { attributeCountLimit: 2, attributeValueLengthLimit: 3 } });
    const span = light.startSpan('GET /x', {}, ROOT_CONTEXT);
    span.setAttributes({ a: 'abcdef', b: ['xyzw', 'q'], c: 'dropped', mixed: ['x', 1] as unknown as string[] });
    span.setAttribute('a', 'again');
    span.end();
    const [s] = memory.getFinishedSpans();
    expect(s!.attributes).toEqual({ a: 'aga', b: ['xyz', 'q'] });
    expect(s!.droppedAttributesCount).toBe(1);
  });

  it('leaves to the SDK what it does not do (links, a start time, a span without a context)', () => {
    const { light } = providerWith();
    const link = { context: remoteParent && trace.getSpanContext(remoteParent)! };
    expect(light.startSpan('a', { links: [link] }, ROOT_CONTEXT)).not.toBeInstanceOf(RequestSpan);
    expect(light.startSpan('b', { startTime: Date.now() }, ROOT_CONTEXT)).not.toBeInstanceOf(RequestSpan);
    expect(context.with(ROOT_CONTEXT, () => light.startSpan('c'))).not.toBeInstanceOf(RequestSpan);
  });

  it("is the SDK's tracer itself when the SDK's parts cannot be read (another SDK version)", () => {
    const other: Tracer = {
      startSpan: () => trace.wrapSpanContext(trace.getSpanContext(remoteParent)!),
      startActiveSpan: (() => undefined) as Tracer['startActiveSpan'],
    };
    expect(requestTracer(other)).toBe(other);
  });
});
