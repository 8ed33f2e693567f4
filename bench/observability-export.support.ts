// `npm run bench -- observability export`: what the span exporter's body costs per span, in CPU
// (process.cpuUsage, the least of 9 runs: a shared machine only ever adds time), for batches of
// 512 router server spans as server-span.ts makes them (13 attributes, a remote parent):
//   - sdk: the redactor's copy of each span (redactedSpan), then @opentelemetry/otlp-transformer's
//     JsonTraceSerializer (what @opentelemetry/exporter-trace-otlp-http sent);
//   - direct: platform/telemetry/otlp-json.ts, redacting as it writes.
// and what recording one such span costs (started with its attributes, the tenant and status set,
// ended onto a span processor), the SDK's span against the request span (request-span.ts).
// Both bodies are checked to parse to the same request first: a faster wrong body says nothing.
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { isDeepStrictEqual } from 'node:util';
import { otlpTracesJson } from '../platform/telemetry/otlp-json';
import { requestTracer } from '../platform/telemetry/request-span';
import { redactedSpan } from '../platform/telemetry/redacting-exporter';

const BATCH = 512;

function serverSpans(n: number): ReadableSpan[] {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'platform' }),
    spanProcessors: [new SimpleSpanProcessor(memory)],
  });
  record(provider.getTracer('regulated-platform/http-server'), n);
  return memory.getFinishedSpans();
}

/** `n` router server spans as server-span.ts makes them, children of a remote parent. */
function record(tracer: Tracer, n: number): void {
  for (let i = 0; i < n; i++) {
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: `${i.toString(16).padStart(8, '0')}${'a'.repeat(24)}`,
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const span = tracer.startSpan('POST /graphql', { kind: SpanKind.SERVER }, parent);
    span.setAttributes({
      'http.request.method': 'POST',
      'url.path': '/graphql',
      'url.scheme': 'http',
      'server.port': 8080,
      'client.address': '127.0.0.1',
      'network.protocol.version': '1.1',
      'user_agent.original': 'autocannon/7.15.0',
      'platform.service': 'gateway',
      'http.route': '/graphql',
      'graphql.operation.type': 'query',
    });
    span.setAttribute('platform.tenant_id', `bench-${i % 50}`);
    span.setAttribute('http.response.status_code', 200);
    span.end();
  }
}

/** CPU µs to record one span (start, attributes, end onto a processor that keeps it), the least of 9 runs of `n`. */
function cpuPerRecordedSpan(tracer: Tracer, kept: ReadableSpan[], n: number): number {
  let best = Infinity;
  for (let run = 0; run < 9; run++) {
    kept.length = 0;
    const c0 = process.cpuUsage();
    record(tracer, n);
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / n);
  }
  return best;
}

function recordCost(): void {
  const kept: ReadableSpan[] = [];
  const keep: SpanProcessor = {
    onStart: () => undefined,
    onEnd: (span) => void kept.push(span),
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'platform' }),
    spanProcessors: [keep],
  });
  const sdk = provider.getTracer('bench/sdk');
  const light = requestTracer(provider.getTracer('bench/request'));
  for (let warm = 0; warm < 3; warm++) {
    cpuPerRecordedSpan(sdk, kept, BATCH * 20);
    cpuPerRecordedSpan(light, kept, BATCH * 20);
  }
  const a = cpuPerRecordedSpan(sdk, kept, BATCH * 20);
  const b = cpuPerRecordedSpan(light, kept, BATCH * 20);
  console.log(
    `recording a router server span (start, 12 attributes, end): SDK span ${a.toFixed(2)} µs CPU, request span ${b.toFixed(2)} µs (${(a / b).toFixed(1)}x)`,
  );
}

/** CPU µs per span of `body` over `batches` batches, the least of 9 runs. */
function cpuPerSpan(batches: ReadableSpan[][], body: (spans: ReadableSpan[]) => Uint8Array): number {
  let best = Infinity;
  for (let run = 0; run < 9; run++) {
    const c0 = process.cpuUsage();
    for (const b of batches) body(b);
    const c = process.cpuUsage(c0);
    best = Math.min(best, (c.user + c.system) / (batches.length * BATCH));
  }
  return best;
}

export function exportCost(): void {
  const spans = serverSpans(BATCH * 20);
  const batches = Array.from({ length: 20 }, (_, i) => spans.slice(i * BATCH, (i + 1) * BATCH));
  const sdk = (b: ReadableSpan[]) => JsonTraceSerializer.serializeRequest(b.map(redactedSpan))!;
  const direct = (b: ReadableSpan[]) => Buffer.from(otlpTracesJson(b));
  const same = isDeepStrictEqual(
    JSON.parse(Buffer.from(sdk(batches[0]!)).toString()),
    JSON.parse(Buffer.from(direct(batches[0]!)).toString()),
  );
  if (!same) throw new Error('the direct writer and the SDK serializer disagree: no figure');
  for (let warm = 0; warm < 3; warm++) {
    cpuPerSpan(batches, sdk);
    cpuPerSpan(batches, direct);
  }
  const a = cpuPerSpan(batches, sdk);
  const b = cpuPerSpan(batches, direct);
  const bytes = direct(batches[0]!).length / BATCH;
  console.log(
    `export body per router server span (13 attributes, batches of ${BATCH}): redactor + otlp-transformer ${a.toFixed(2)} µs CPU, direct writer ${b.toFixed(2)} µs (${(a / b).toFixed(1)}x), ${bytes.toFixed(0)} bytes`,
  );
  recordCost();
}
