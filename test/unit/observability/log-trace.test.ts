// A log line written inside a span carries its trace_id and span_id; outside any span (tracing
// off) it carries none. The platform's own logger options are used, as services and Fastify use them.
import { Writable } from 'node:stream';
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import pino from 'pino';
import { loggerOptions } from '../../../platform/logging/logger';

const lines: Record<string, unknown>[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
    done();
  },
});
const log = pino(loggerOptions('INFO', 'test'), sink);
const manager = new AsyncLocalStorageContextManager().enable();

beforeAll(() => context.setGlobalContextManager(manager));
afterAll(() => {
  context.disable();
});

it('adds the active span ids to a record, and nothing outside a span', async () => {
  const span = trace.wrapSpanContext({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  });
  await context.with(trace.setSpan(context.active(), span), async () => {
    await Promise.resolve();
    log.info({ password: 'x' }, 'inside');
  });
  log.info('outside');
  await new Promise((r) => setImmediate(r));
  expect(lines[0]).toMatchObject({
    msg: 'inside',
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'b7ad6b7169203331',
    trace_flags: '01',
    password: '[redacted]',
  });
  expect(lines[1]!.msg).toBe('outside');
  expect(lines[1]).not.toHaveProperty('trace_id');
});
