// The observability service's records and input limits, shared by the domain, the store and the REST door.

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  tenantId: string | null;
  service: string;
  name: string;
  /** ISO 8601. */
  startTime: string;
  durationMs: number;
  error: boolean;
  attributes: Record<string, unknown>;
}

export interface SpanSearch {
  service?: string;
  /** The span name (the operation: `POST /graphql`, `outbox.deliver`). */
  operation?: string;
  minDurationMs?: number;
  error?: boolean;
  /** ISO 8601; default: `to` minus one hour. */
  from?: string;
  /** ISO 8601; default: now. */
  to?: string;
  limit?: number;
}

/** Most spans one OTLP request may carry (a larger batch is 413: the exporter splits). */
export const MAX_SPANS_PER_REQUEST = 10_000;
/** Most spans a trace query returns. */
export const MAX_TRACE_SPANS = 5_000;
/** Most spans a search returns, and the widest window it may cover. */
export const MAX_SEARCH_LIMIT = 100;
export const MAX_SEARCH_WINDOW_MS = 7 * 24 * 3600_000;
