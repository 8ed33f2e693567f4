// Apollo gateway's tracer (platform/telemetry/gateway-spans.ts): of its spans only `gateway.plan`
// is made, as a child of the request's span; a span made inside a dropped one (the subgraph call's
// HTTP client span inside `gateway.fetch`) is the request span's child, so the tree has no hole;
// and none at all when the request's span does not record.
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { gatewayTracer } from '../../../platform/telemetry/gateway-spans';

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});

afterAll(async () => {
  context.disable();
  await provider.shutdown();
});

beforeEach(() => exporter.reset());

/** What the gateway does for one query: request > (validate, plan, execute > (fetch > HTTP call, postprocessing)). */
async function query(gateway: ReturnType<typeof gatewayTracer>, callSubgraph = () => {}): Promise<string> {
  return gateway.startActiveSpan('gateway.request', { attributes: { 'graphql.operation.name': 'q' } }, async (req) => {
    try {
      gateway.startActiveSpan('gateway.validate', (span) => span.end());
      gateway.startActiveSpan('gateway.plan', (span) => span.end());
      return await gateway.startActiveSpan('gateway.execute', async (execute) => {
        try {
          const data = await gateway.startActiveSpan(
            'gateway.fetch',
            { attributes: { service: 'ledger' } },
            async (f) => {
              await new Promise((resolve) => setTimeout(resolve, 1));
              callSubgraph();
              f.end();
              return 'answer';
            },
          );
          gateway.startActiveSpan('gateway.postprocessing', (span) => span.end());
          return data;
        } finally {
          execute.end();
        }
      });
    } finally {
      req.end();
    }
  });
}

it('makes the plan span only; the subgraph call is a child of the request span; answers what the callbacks return', async () => {
  const gateway = gatewayTracer(provider.getTracer('apollo/gateway-js'));
  const server = provider.getTracer('http').startSpan('POST /graphql');
  // The router's call to the subgraph: instrumentation-http's client span.
  const call = () => provider.getTracer('http').startSpan('POST').end();
  const answer = await context.with(trace.setSpan(context.active(), server), () => query(gateway, call));
  server.end();
  expect(answer).toBe('answer');
  const spans = exporter.getFinishedSpans();
  expect(spans.map((s) => s.name).sort()).toEqual(['POST', 'POST /graphql', 'gateway.plan']);
  for (const name of ['POST', 'gateway.plan']) {
    const span = spans.find((s) => s.name === name)!;
    expect(span.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(span.spanContext().traceId).toBe(server.spanContext().traceId);
  }
});

it('makes no span when the request is not sampled or there is no request', async () => {
  const gateway = gatewayTracer(provider.getTracer('apollo/gateway-js'));
  const unsampled = trace.wrapSpanContext({
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: TraceFlags.NONE,
  });
  expect(await context.with(trace.setSpan(context.active(), unsampled), () => query(gateway))).toBe('answer');
  expect(await query(gateway)).toBe('answer');
  expect(exporter.getFinishedSpans()).toEqual([]);
});
