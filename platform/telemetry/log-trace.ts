// Log lines carry the trace they were written in: pino's `mixin` adds the active span's ids to
// every record (`trace_id`, `span_id`, `trace_flags`, the names @opentelemetry/instrumentation-pino
// and the OpenTelemetry log data model use), so a log line leads to its trace and back.
// A mixin rather than instrumentation-pino: it needs no require hook (so it holds under jest, under
// `dist/` and whatever order modules load in), adds no dependency, and sends no log records
// anywhere (instrumentation-pino also bridges records to an OTel LoggerProvider, which the platform
// does not run). With tracing off the API has no active span and the mixin adds nothing.
import { isSpanContextValid, trace } from '@opentelemetry/api';

export interface TraceLogFields {
  trace_id?: string;
  span_id?: string;
  trace_flags?: string;
}

export function traceLogFields(): TraceLogFields {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const c = span.spanContext();
  if (!isSpanContextValid(c)) return {};
  return { trace_id: c.traceId, span_id: c.spanId, trace_flags: c.traceFlags.toString(16).padStart(2, '0') };
}
