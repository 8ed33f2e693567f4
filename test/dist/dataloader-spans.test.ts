// DataLoader spans as users get them: the built tracing (dist/platform/telemetry/tracing.js) in a
// child process under Node's own module loader (instrumentation-dataloader patches `dataloader`
// through a require hook, which jest's registry bypasses). Two loads in one tick inside a span give
// `dataloader.load` spans and one `dataloader.batch` span, children of that span; a load outside any
// span gives none (requireParentSpan); and a pino record inside the span carries its trace id.
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
const { trace } = require('@opentelemetry/api');
const DataLoader = require('dataloader');
const pino = require('pino');
const { loggerOptions } = require('./dist/platform/logging/logger.js');
const lines = [];
const log = pino(loggerOptions('INFO', 't'), { write: (l) => lines.push(JSON.parse(l)) });
(async () => {
  const loader = () => new DataLoader(async (keys) => keys.map((k) => k * 2));
  await loader().load(0); // outside any span: no span
  let traceId;
  await trace.getTracer('t').startActiveSpan('resolver', async (span) => {
    traceId = span.spanContext().traceId;
    const l = loader();
    await Promise.all([l.load(1), l.load(2)]);
    log.info('inside');
    span.end();
  });
  await tracing.flush();
  const spans = exporter.getFinishedSpans().map((s) => ({ name: s.name, traceId: s.spanContext().traceId }));
  process.stdout.write(JSON.stringify({ traceId, spans, line: lines[0] }));
  process.exit(0);
})();
`;

it('loads instrumentation-dataloader under dist: load and batch spans inside a span, none outside', async () => {
  await buildDist();
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', SCRIPT], {
    cwd: ROOT,
    env: { ...process.env, OTEL_SDK_DISABLED: 'false' },
  });
  const out = JSON.parse(stdout) as {
    traceId: string;
    spans: { name: string; traceId: string }[];
    line: Record<string, unknown>;
  };
  const names = out.spans.map((s) => s.name).sort();
  expect(names.filter((n) => n.startsWith('dataloader.load'))).toHaveLength(2);
  expect(names.filter((n) => n.startsWith('dataloader.batch'))).toHaveLength(1);
  expect(out.spans.every((s) => s.traceId === out.traceId)).toBe(true);
  expect(out.line).toMatchObject({ msg: 'inside', trace_id: out.traceId });
});
