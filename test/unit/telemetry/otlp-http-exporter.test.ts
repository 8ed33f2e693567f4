// The platform's OTLP/HTTP span exporter against a real HTTP server: the body is OTLP JSON the
// receiver decodes, the configured headers and gzip are sent, a 503 is retried (Retry-After
// honoured), a 400 is not, and nothing is sent after shutdown.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { OtlpHttpSpanExporter } from '../../../platform/telemetry/otlp-http-exporter';
import { loadTelemetryConfig } from '../../../platform/telemetry/telemetry.config';
import { decodeOtlpTraces } from '../../../subgraphs/observability/otlp.decode';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let url: string;
const received: Received[] = [];
let answers: { status: number; headers?: Record<string, string> }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(raw) : raw;
      received.push({ headers: req.headers, body: body.toString() });
      const answer = answers.shift() ?? { status: 200 };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

beforeEach(() => {
  received.length = 0;
  answers = [];
});

function spans() {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] });
  const span = provider
    .getTracer('t')
    .startSpan('GET /things/:id', { attributes: { 'user.email': 'a.b@example.com' } });
  span.end();
  return memory.getFinishedSpans();
}

const exported = (exporter: OtlpHttpSpanExporter, list = spans()) =>
  new Promise<ExportResult>((resolve) => exporter.export(list, resolve));

test('posts OTLP JSON the receiver decodes, with the configured headers, redacted', async () => {
  const config = loadTelemetryConfig({
    OTEL_TRACES_ENABLED: 'true',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url,
    OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=secret%20one,x-other=2',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-other=3',
  });
  const exporter = new OtlpHttpSpanExporter({ url: config.tracesUrl, headers: config.tracesHeaders });
  const list = spans();
  expect((await exported(exporter, list)).code).toBe(ExportResultCode.SUCCESS);
  expect(received).toHaveLength(1);
  expect(received[0]!.headers['content-type']).toBe('application/json');
  expect(received[0]!.headers['x-api-key']).toBe('secret one');
  expect(received[0]!.headers['x-other']).toBe('3');
  expect(received[0]!.body).not.toContain('a.b@example.com');
  const [record] = decodeOtlpTraces(JSON.parse(received[0]!.body));
  expect(record!.spanId).toBe(list[0]!.spanContext().spanId);
  expect(record!.name).toBe('GET /things/:id');
  await exporter.shutdown();
});

test('gzip when asked', async () => {
  const exporter = new OtlpHttpSpanExporter({ url, compression: 'gzip' });
  expect((await exported(exporter)).code).toBe(ExportResultCode.SUCCESS);
  expect(received[0]!.headers['content-encoding']).toBe('gzip');
  expect(JSON.parse(received[0]!.body).resourceSpans).toHaveLength(1);
  await exporter.shutdown();
});

test('a 503 is retried after its Retry-After; a 400 is a failure at once', async () => {
  const exporter = new OtlpHttpSpanExporter({ url, timeoutMillis: 5000 });
  answers = [{ status: 503, headers: { 'retry-after': '0' } }];
  expect((await exported(exporter)).code).toBe(ExportResultCode.SUCCESS);
  expect(received).toHaveLength(2);
  received.length = 0;
  answers = [{ status: 400 }];
  expect((await exported(exporter)).code).toBe(ExportResultCode.FAILED);
  expect(received).toHaveLength(1);
  await exporter.shutdown();
  expect((await exported(exporter)).code).toBe(ExportResultCode.FAILED);
  expect(received).toHaveLength(1);
});

test('headers from the environment: a value that is not URL encoding is kept as written', () => {
  const config = loadTelemetryConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'a=%E0%A4%A,b=ok%21,=x,novalue' });
  expect(config.tracesHeaders).toEqual({ a: '%E0%A4%A', b: 'ok!' });
  expect(config.tracesCompression).toBe('none');
  expect(config.tracesTimeoutMillis).toBe(10_000);
});
