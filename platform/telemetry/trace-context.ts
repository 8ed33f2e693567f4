// The one trace context across asynchronous hops. A request's W3C traceparent is stored with what
// it causes later (an outbox row, a notice, a backbone event) and the worker that handles it
// continues the trace: its span is a child of the stored context, so the ledger append the outbox
// relay makes shows up in the trace of the request that wrote the audit event.
import { context, propagation, trace, SpanKind, SpanStatusCode, type Attributes, type Span } from '@opentelemetry/api';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The active context's traceparent, or null when no span is recording (tracing off). */
export function currentTraceparent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent && TRACEPARENT.test(carrier.traceparent) ? carrier.traceparent : null;
}

/** The active span's trace id, or null when there is none. */
export function currentTraceId(): string | null {
  const span = trace.getActiveSpan();
  const id = span?.spanContext().traceId;
  return id && /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id) ? id : null;
}

let tracing = false;

/** Said once by tracing.ts when the SDK starts (it starts before any service app is built). */
export function markTracingStarted(): void {
  tracing = true;
}

/** Whether spans are recorded in this process: per-request span annotations are skipped otherwise. */
export function tracingStarted(): boolean {
  return tracing;
}

/** Sets attributes on the active span, if any (e.g. the ledger position an append wrote). */
export function annotateActiveSpan(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

const tracer = () => trace.getTracer('regulated-platform');

/**
 * Runs `work` in a span continuing the stored `traceparent` (a child of the span that wrote it),
 * or in a new trace when there is none. Errors end the span as failed and are rethrown.
 */
export async function continueTrace<T>(
  traceparent: string | null | undefined,
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  const parent =
    traceparent && TRACEPARENT.test(traceparent)
      ? propagation.extract(context.active(), { traceparent })
      : context.active();
  return tracer().startActiveSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

const TRACEPARENT_IN_JSON = /"traceparent"\s*:\s*"(00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})"/;

/** The traceparent of a CloudEvents envelope kept as JSON text (a webhook's payload), without parsing it whole. */
export function traceparentInJson(text: string): string | null {
  return TRACEPARENT_IN_JSON.exec(text)?.[1] ?? null;
}
