// The OpenTelemetry SDK for a platform process: one tracer provider, the W3C traceparent
// propagator and AsyncLocalStorage context (provider.register()), the instrumentations of every
// library a request crosses, and a batch exporter behind the redactor. It must start before those
// libraries are first required (their require hooks patch them as they load), which is why the
// entry points import platform/telemetry/register.ts first; undici/fetch publishes on
// diagnostics_channel and is covered whatever the order.
//
// What a request costs when traced is decided here (issue 31: <= 10% throughput): ONE server span
// per HTTP request, made by the service app's Fastify hooks (server-span.ts), not
// instrumentation-http's plus @fastify/otel's span per hook and handler (12 spans for one ledger
// append, most of the tracing cost); GraphQL resolver spans for root fields only; no pg/Prisma
// connect or serialisation spans; of Apollo gateway's five spans per query, the subgraph fetch
// (and a plan not cached) only (gateway-spans.ts); no GraphQL spans in an unsampled request
// (graphql-spans.ts). docs/observability.md "What a traced request costs".
import type { Tracer, TracerOptions } from '@opentelemetry/api';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { DataloaderInstrumentation } from '@opentelemetry/instrumentation-dataloader';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import { GATEWAY_SCOPE, gatewayTracer } from './gateway-spans';
import { SampledGraphQLInstrumentation } from './graphql-spans';
import { OtlpHttpSpanExporter } from './otlp-http-exporter';
import { RedactingExporter } from './redacting-exporter';
import { REQUEST_SCOPE } from './server-span';
import { requestTracer } from './request-span';
import { markTracingStarted } from './trace-context';
import type { TelemetryConfig } from './telemetry.config';

export interface Tracing {
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export interface TracingOptions {
  /** service.name of the resource: the process's role ('platform' for `npm start`, a service's name alone). */
  serviceName: string;
  /** Instead of OTLP/HTTP (tests): where spans go, still through the redactor. */
  exporter?: SpanExporter;
}

let started: Tracing | undefined;

/**
 * The SDK's provider, but Apollo gateway's tracer makes only the spans gateway-spans.ts keeps, and
 * the request spans' tracer records them without the SDK's Span (request-span.ts).
 */
class PlatformTracerProvider extends NodeTracerProvider {
  private gateway: Tracer | undefined;
  private requests: Tracer | undefined;

  override getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    if (name === GATEWAY_SCOPE) return (this.gateway ??= gatewayTracer(super.getTracer(name, version, options)));
    if (name === REQUEST_SCOPE && version === undefined && options === undefined)
      return (this.requests ??= requestTracer(super.getTracer(name)));
    return super.getTracer(name, version, options);
  }
}

/** The process's tracing, when started (the launcher flushes it at shutdown). */
export function activeTracing(): Tracing | undefined {
  return started;
}

export function startTracing(config: TelemetryConfig, options: TracingOptions): Tracing | undefined {
  if (!config.tracesEnabled) return undefined;
  if (started) return started;
  // The current HTTP semantic conventions (`http.request.method`, `url.path`,
  // `http.response.status_code`...) rather than the old and new ones side by side (the
  // instrumentation's default: 17 attributes a span, each redacted and serialised). An operator's
  // own OTEL_SEMCONV_STABILITY_OPT_IN wins.
  process.env.OTEL_SEMCONV_STABILITY_OPT_IN ??= 'http';
  // OTLP/HTTP JSON written straight from the spans, redacted as it is written (otlp-json.ts); a
  // test's exporter gets redacted copies of the spans.
  const exporter: SpanExporter = options.exporter
    ? new RedactingExporter(options.exporter)
    : new OtlpHttpSpanExporter({
        url: config.tracesUrl,
        headers: config.tracesHeaders,
        timeoutMillis: config.tracesTimeoutMillis,
        compression: config.tracesCompression,
      });
  const processor: SpanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new PlatformTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [processor],
  });
  // AsyncLocalStorage context manager and the W3C trace-context + baggage propagators.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Outgoing calls only: an incoming request's one span is made by the service app's hooks
      // (server-span.ts), which know the route, the service and the tenant.
      new HttpInstrumentation({ disableIncomingRequestInstrumentation: true }),
      new UndiciInstrumentation(),
      // The operation's span and its root fields' resolvers (where a subgraph does its I/O); a span
      // per nested field (`ledgerEvents.nodes.*.id`) cost more than the field's work. Only in a
      // request whose span records (graphql-spans.ts).
      new SampledGraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true, depth: 1 }),
      // A batch's load and its batch function, inside a request's span only (require hook: dist).
      new DataloaderInstrumentation({ requireParentSpan: true }),
      // Only inside a request or a job's span: a poller's idle queries would each be a trace. One
      // span per query; pool checkouts and connects are not worth a span each.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      // The operation and its queries; the client's CPU-only steps (argument serialisation, query
      // compilation) are left out.
      new PrismaInstrumentation({ ignoreSpanTypes: ['prisma:client:serialize', 'prisma:client:compile'] }),
    ],
  });
  markTracingStarted();
  started = {
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return started;
}
