// Span attributes leave the process only after the platform's redactor has run over them: an
// instrumentation records what it sees (a SQL statement's text, a URL's query, a GraphQL
// variable), and any of those may carry an email or a card number a user typed. Names and ids
// stay; string values are masked where the detectors find PII (platform/redaction).
import type { ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import { redactText } from '../redaction';

/** Longest attribute text exported: a huge SQL text or payload is cut, not shipped whole. */
export const MAX_ATTRIBUTE_LENGTH = 2048;

/**
 * Most attribute values repeat span after span (a route, a method, a statement's text, a host):
 * each distinct short value is run through the detectors once and its redacted form remembered.
 * The redactor's `mask` is deterministic, so the answer is the same as running it again. Bounded:
 * the map is emptied when full (values that vary per request just pass through it).
 */
const CACHED_VALUE_LENGTH = 256;
const CACHE_ENTRIES = 4096;
const redactedValues = new Map<string, string>();

export function redactString(value: string): string {
  if (value.length <= CACHED_VALUE_LENGTH) {
    const known = redactedValues.get(value);
    if (known !== undefined) return known;
    const redacted = redactText(value).text;
    if (redactedValues.size >= CACHE_ENTRIES) redactedValues.clear();
    redactedValues.set(value, redacted);
    return redacted;
  }
  return redactText(value.length > MAX_ATTRIBUTE_LENGTH ? value.slice(0, MAX_ATTRIBUTE_LENGTH) : value).text;
}

function redactAttributeValue(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value === 'string') return redactString(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? redactString(v) : v)) as AttributeValue;
  return value;
}

export function redactAttributes(attributes: Attributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) out[key] = redactAttributeValue(value);
  return out;
}

/**
 * The span as exported: its attributes and its events' and links' attributes redacted, all else the span's.
 * A plain object, not `Object.create(span)`: a span used as a prototype is turned into a
 * prototype map by V8 on every export, which cost more than the redaction.
 */
export function redactedSpan(span: ReadableSpan): ReadableSpan {
  const spanContext = span.spanContext();
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => spanContext,
    parentSpanContext: span.parentSpanContext,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    attributes: redactAttributes(span.attributes),
    links:
      span.links.length === 0
        ? span.links
        : span.links.map((l) => (l.attributes ? { ...l, attributes: redactAttributes(l.attributes) } : l)),
    events:
      span.events.length === 0
        ? span.events
        : span.events.map((e) => (e.attributes ? { ...e, attributes: redactAttributes(e.attributes) } : e)),
    duration: span.duration,
    ended: span.ended,
    resource: span.resource,
    instrumentationScope: span.instrumentationScope,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}

export class RedactingExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(redactedSpan), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}
