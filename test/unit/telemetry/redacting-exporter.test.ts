// Span attributes are redacted before export: an email or card number an instrumentation
// recorded (a SQL text, a URL, a GraphQL variable) never reaches the exporter; ids stay.
import { InMemorySpanExporter, BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { RedactingExporter, MAX_ATTRIBUTE_LENGTH } from '../../../platform/telemetry/redacting-exporter';

test('PII in span and event attributes is masked before export', async () => {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new RedactingExporter(memory))],
  });
  const span = provider.getTracer('t').startSpan('db.query', {
    attributes: {
      'db.statement': "SELECT * FROM users WHERE email = 'jane.doe@example.com'",
      'card.numbers': ['4111 1111 1111 1111', 'no pii'],
      'ledger.seq': 42,
      'platform.tenant_id': 'acme',
      'long.text': 'x'.repeat(100_000),
    },
  });
  span.addEvent('exception', { 'exception.message': 'user jane.doe@example.com not found' });
  span.end();
  await provider.forceFlush();

  const [exported] = memory.getFinishedSpans();
  const text = JSON.stringify({ attributes: exported!.attributes, events: exported!.events });
  expect(text).not.toContain('jane.doe@example.com');
  expect(text).not.toContain('4111 1111 1111 1111');
  expect(exported!.attributes['ledger.seq']).toBe(42);
  expect(exported!.attributes['platform.tenant_id']).toBe('acme');
  expect((exported!.attributes['card.numbers'] as string[])[1]).toBe('no pii');
  expect((exported!.attributes['long.text'] as string).length).toBe(MAX_ATTRIBUTE_LENGTH);
  // The span itself keeps its identity.
  expect(exported!.spanContext().traceId).toBe(span.spanContext().traceId);
});
