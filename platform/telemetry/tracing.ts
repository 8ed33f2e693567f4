// The OpenTelemetry SDK for a platform process: one tracer provider, the W3C traceparent
// propagator and AsyncLocalStorage context (provider.register()), the instrumentations of every
// library a request crosses, and a batch exporter behind the redactor. It must start before those
// libraries are first required (their require hooks patch them as they load), which is why the
// entry points import platform/telemetry/register.ts first; libraries that publish on
// diagnostics_channel (undici/fetch, Fastify) are covered whatever the order.
import { FastifyOtelInstrumentation } from '@fastify/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { DataloaderInstrumentation } from '@opentelemetry/instrumentation-dataloader';
import { GraphQLInstrumentation } from '@opentelemetry/instrumentation-graphql';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { PrismaInstrumentation } from '@prisma/instrumentation';
import { RedactingExporter } from './redacting-exporter';
import { markTracingStarted } from './trace-context';
import type { TelemetryConfig } from './telemetry.config';

/** Paths whose requests are telemetry or probes themselves: tracing them would trace the exporter. */
const UNTRACED = /^\/(v1\/(traces|metrics)|metrics|healthz|livez|readyz|health)(\?|$)/;

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

/** The process's tracing, when started (the launcher flushes it at shutdown). */
export function activeTracing(): Tracing | undefined {
  return started;
}

export function startTracing(config: TelemetryConfig, options: TracingOptions): Tracing | undefined {
  if (!config.tracesEnabled) return undefined;
  if (started) return started;
  const exporter = new RedactingExporter(options.exporter ?? new OTLPTraceExporter({ url: config.tracesUrl }));
  const processor: SpanProcessor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 1000 });
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': options.serviceName }),
    spanProcessors: [processor],
  });
  // AsyncLocalStorage context manager and the W3C trace-context + baggage propagators.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED.test(req.url ?? '') }),
      new UndiciInstrumentation(),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        ignorePaths: ({ url }) => UNTRACED.test(url),
      }),
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
      // A batch's load and its batch function, inside the resolver's span only (require hook: dist).
      new DataloaderInstrumentation({ requireParentSpan: true }),
      // Only inside a request or a job's span: a poller's idle queries would each be a trace.
      new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ requireParentSpan: true }),
      new PrismaInstrumentation(),
    ],
  });
  markTracingStarted();
  started = {
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
  return started;
}
