// GraphQL spans as users get them (platform/telemetry/graphql-spans.ts): the built tracing in a
// child process under Node's own module loader (instrumentation-graphql patches `graphql` through a
// require hook, which jest's registry bypasses). Inside a span that records, an operation gives its
// `query` span, its root field's `graphql.resolve` span and the parse and validate spans, in the
// request's trace; inside a span the sampler dropped, or outside any span, it gives none and still
// answers.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildDist } from './dist.support';

jest.setTimeout(300_000);

const ROOT = path.resolve(__dirname, '../..');

const SCRIPT = `
const { InMemorySpanExporter } = require('@opentelemetry/sdk-trace-base');
const { startTracing } = require('./dist/platform/telemetry/tracing.js');
const exporter = new InMemorySpanExporter();
const tracing = startTracing({ tracesEnabled: true, tracesUrl: 'http://127.0.0.1:9/v1/traces' }, { serviceName: 't', exporter });
const { trace, context, TraceFlags } = require('@opentelemetry/api');
const { buildSchema, graphql } = require('graphql');
const schema = buildSchema('type Query { things: [Thing!]! } type Thing { id: ID! }');
const rootValue = { things: async () => [{ id: '1' }, { id: '2' }] };
const run = () => graphql({ schema, rootValue, source: '{ things { id } }', contextValue: {} });
(async () => {
  const answers = [];
  answers.push(await run()); // outside any span
  const unsampled = trace.wrapSpanContext({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.NONE });
  answers.push(await context.with(trace.setSpan(context.active(), unsampled), run));
  let traceId;
  await trace.getTracer('t').startActiveSpan('request', async (span) => {
    traceId = span.spanContext().traceId;
    answers.push(await run());
    span.end();
  });
  await tracing.flush();
  const spans = exporter.getFinishedSpans().map((s) => ({ name: s.name, traceId: s.spanContext().traceId }));
  process.stdout.write(JSON.stringify({ traceId, spans, answers }));
  process.exit(0);
})();
`;

it('traces GraphQL operations under dist only inside a span that records', async () => {
  await buildDist();
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, OTEL_SDK_DISABLED: 'false' },
  });
  const out = JSON.parse(stdout) as {
    traceId: string;
    spans: { name: string; traceId: string }[];
    answers: unknown[];
  };
  for (const answer of out.answers) expect(answer).toEqual({ data: { things: [{ id: '1' }, { id: '2' }] } });
  expect(out.spans.map((s) => s.name).sort()).toEqual([
    'graphql.parse',
    'graphql.resolve things',
    'graphql.validate',
    'query',
    'request',
  ]);
  expect(out.spans.every((s) => s.traceId === out.traceId)).toBe(true);
});
