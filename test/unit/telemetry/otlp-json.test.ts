// The direct OTLP JSON writer (platform/telemetry/otlp-json.ts) against the SDK's own serializer:
// the same ExportTraceServiceRequest, field for field, for spans with every kind of attribute,
// events, links, a remote parent, a trace state, two scopes and an error status; PII redacted
// as the redactor does; and the text accepted by the platform's receiver (otlp.decode.ts).
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type SpanContext } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { TraceState } from '@opentelemetry/core';
import { otlpTracesJson } from '../../../platform/telemetry/otlp-json';
import { redactedSpan } from '../../../platform/telemetry/redacting-exporter';
import { decodeOtlpTraces } from '../../../subgraphs/observability/otlp.decode';

function finishedSpans(): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'svc', 'service.instance.id': 'i-1' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  const remote: SpanContext = {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState('vendor=abc,other=1'),
  };
  const tracer = provider.getTracer('regulated-platform/http-server', '1.2.3');
  const server = tracer.startSpan(
    'POST /graphql',
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': 'POST',
        'url.path': '/graphql',
        'server.port': 8080,
        'client.address': '127.0.0.1',
        'user_agent.original': 'curl/8 "quoted" \\ back\nslash é ✓',
        'db.statement': "SELECT * FROM users WHERE email = 'jane.doe@example.com'",
        ratio: 0.25,
        ok: true,
        nope: false,
        tags: ['a', 'jane.doe@example.com'],
        counts: [1, 2, 3],
      },
      links: [{ context: remote, attributes: { 'link.note': 'mail jane.doe@example.com' } }],
    },
    ROOT_CONTEXT,
  );
  server.addEvent('exception', { 'exception.message': 'user jane.doe@example.com not found' });
  server.addEvent('plain');
  server.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
  server.end();
  // A child of a remote parent, in another scope, no version.
  const child = provider
    .getTracer('apollo/gateway-js')
    .startSpan('gateway.plan', { kind: SpanKind.INTERNAL }, trace.setSpanContext(ROOT_CONTEXT, remote));
  child.setStatus({ code: SpanStatusCode.OK });
  child.end();
  const plain = tracer.startSpan('GET /healthz');
  plain.end();
  return memory.getFinishedSpans();
}

test('the text is the SDK serializer’s ExportTraceServiceRequest of the redacted spans', () => {
  const spans = finishedSpans();
  const sdk = JSON.parse(Buffer.from(JsonTraceSerializer.serializeRequest(spans.map(redactedSpan))!).toString());
  const ours = JSON.parse(otlpTracesJson(spans));
  expect(ours).toEqual(sdk);
  // Two scopes under one resource; the remote parent's flags say so (0x100 | 0x200 | sampled).
  expect(ours.resourceSpans).toHaveLength(1);
  expect(ours.resourceSpans[0].scopeSpans).toHaveLength(2);
  const plan = ours.resourceSpans[0].scopeSpans[1].spans[0];
  expect(plan.parentSpanId).toBe('b7ad6b7169203331');
  expect(plan.flags).toBe(0x301);
  expect(plan.traceState).toBe('vendor=abc,other=1');
});

test('PII in span, event and link attributes is masked; numbers, booleans and ids stay', () => {
  const text = otlpTracesJson(finishedSpans());
  expect(text).not.toContain('jane.doe@example.com');
  const server = JSON.parse(text).resourceSpans[0].scopeSpans[0].spans[0];
  const attr = (k: string) => server.attributes.find((a: { key: string }) => a.key === k)?.value;
  expect(attr('server.port')).toEqual({ intValue: 8080 });
  expect(attr('ratio')).toEqual({ doubleValue: 0.25 });
  expect(attr('nope')).toEqual({ boolValue: false });
  expect(attr('counts')).toEqual({ arrayValue: { values: [{ intValue: 1 }, { intValue: 2 }, { intValue: 3 }] } });
  expect(server.kind).toBe(2);
  expect(server.status).toEqual({ code: 2, message: 'boom' });
});

test('the receiver decodes it: ids, times, service, error status', () => {
  const spans = finishedSpans();
  const records = decodeOtlpTraces(JSON.parse(otlpTracesJson(spans)));
  expect(records).toHaveLength(3);
  const server = records.find((r) => r.name === 'POST /graphql')!;
  expect(server.traceId).toBe(spans[0]!.spanContext().traceId);
  expect(server.spanId).toBe(spans[0]!.spanContext().spanId);
  expect(server.service).toBe('svc');
  expect(server.error).toBe(true);
  const start = spans[0]!.startTime;
  expect(server.startTime).toBe(new Date(start[0] * 1000 + Math.floor(start[1] / 1e6)).toISOString());
});

test('timestamps are exact nanoseconds, small and large', () => {
  const spans = finishedSpans();
  const [span] = spans;
  const at = (startTime: [number, number]) =>
    JSON.parse(otlpTracesJson([{ ...redactedSpan(span!), startTime }])).resourceSpans[0].scopeSpans[0].spans[0]
      .startTimeUnixNano;
  expect(at([0, 5])).toBe('5');
  expect(at([1, 5])).toBe('1000000005');
  expect(at([1764384000, 123456789])).toBe('1764384000123456789');
});

test('attributes written once and reused are still each span’s own: a string and a number apart, redacted', () => {
  const [span] = finishedSpans();
  const attrsOf = (attributes: Record<string, string | number>) =>
    JSON.parse(otlpTracesJson([{ ...redactedSpan(span!), attributes }])).resourceSpans[0].scopeSpans[0].spans[0]
      .attributes;
  for (let round = 0; round < 2; round++) {
    expect(attrsOf({ status: 200, code: '200' })).toEqual([
      { key: 'status', value: { intValue: 200 } },
      { key: 'code', value: { stringValue: '200' } },
    ]);
    expect(attrsOf({ status: '200', who: 'mail jane.doe@example.com' })).toEqual([
      { key: 'status', value: { stringValue: '200' } },
      { key: 'who', value: { stringValue: expect.not.stringContaining('jane.doe@example.com') } },
    ]);
  }
});
