// The asynchronous hops' trace context: what a request stores (currentTraceparent) is what a
// worker continues (continueTrace) as a child span of the same trace; with tracing off nothing is
// stored and the worker's span is a no-op.
import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import {
  continueTrace,
  currentTraceId,
  currentTraceparent,
  traceparentInJson,
} from '../../../platform/telemetry/trace-context';

test('with tracing off nothing is stored', async () => {
  expect(currentTraceparent()).toBeNull();
  expect(currentTraceId()).toBeNull();
  await expect(continueTrace(null, 'work', {}, async () => 7)).resolves.toBe(7);
});

describe('with a tracer provider', () => {
  const memory = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
  });

  test('a stored traceparent is continued as a child span of the same trace', async () => {
    let stored: string | null = null;
    let traceId: string | null = null;
    await trace.getTracer('t').startActiveSpan('request', async (span) => {
      stored = currentTraceparent();
      traceId = currentTraceId();
      span.end();
    });
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // Later, elsewhere (the relay): the work joins the request's trace.
    const inner = await continueTrace(stored, 'outbox.deliver', { 'outbox.id': '1' }, async () => currentTraceId());
    expect(inner).toBe(traceId);
    const deliver = memory.getFinishedSpans().find((s) => s.name === 'outbox.deliver')!;
    const request = memory.getFinishedSpans().find((s) => s.name === 'request')!;
    expect(deliver.spanContext().traceId).toBe(traceId);
    expect(deliver.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
  });

  test('a failing continuation ends its span as an error and rethrows', async () => {
    await expect(
      continueTrace(null, 'webhook.deliver', {}, async () => {
        throw new Error('receiver down');
      }),
    ).rejects.toThrow('receiver down');
    const span = memory.getFinishedSpans().find((s) => s.name === 'webhook.deliver')!;
    expect(span.status.code).toBe(2);
  });

  test("a webhook payload's traceparent is read without parsing the payload", () => {
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(traceparentInJson(JSON.stringify({ id: 'x', traceparent: tp, data: { a: 1 } }))).toBe(tp);
    expect(traceparentInJson('{"traceparent":"not-one"}')).toBeNull();
  });
});
