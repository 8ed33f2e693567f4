// Spans to OTLP/HTTP JSON text (an ExportTraceServiceRequest), written straight from the SDK's
// ReadableSpan with the attribute values redacted as they are written (issue 31: tracing costs
// <= 10%). The SDK's path built a redacted copy of every span (redacting-exporter.ts), then
// @opentelemetry/otlp-transformer an OTLP object tree of it (a BigInt per timestamp, an object per
// attribute and value), then JSON.stringify walked that tree: about 7 µs of an 11 µs server span.
// Here each span is one string concatenation; what repeats between spans (a resource, a scope, an
// attribute key, a short attribute with its value) is encoded once.
//
// The output is the SDK's own JSON, field for field (test/unit/telemetry/otlp-json.test.ts
// compares the two): the proto's JSON field names, ids in hex (the OTLP/HTTP JSON rule),
// timestamps as decimal strings, `kind` the API's plus one, `flags` with the W3C trace flags and
// the is-remote bits.
import type { Attributes, AttributeValue, HrTime, Link } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { redactString } from './redacting-exporter';

// OTLP span flags: the low 8 bits are the W3C trace flags; these say whether the parent was remote.
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

const flagsOf = (traceFlags: number, isRemote: boolean | undefined) =>
  (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);

/** Nanoseconds since the epoch as a decimal string, without a BigInt: `${seconds}${nanos, 9 digits}`. */
function nanos(time: HrTime): string {
  const seconds = Math.trunc(time[0]);
  const n = Math.trunc(time[1]);
  return seconds === 0 ? String(n) : `${seconds}${String(n).padStart(9, '0')}`;
}

/** Attribute keys repeat span after span: each is JSON-quoted once. Bounded like the redactor's cache. */
const quotedKeys = new Map<string, string>();
function quotedKey(key: string): string {
  let q = quotedKeys.get(key);
  if (q === undefined) {
    if (quotedKeys.size >= 4096) quotedKeys.clear();
    q = `{"key":${JSON.stringify(key)},"value":`;
    quotedKeys.set(key, q);
  }
  return q;
}

/**
 * A span's string value as its redacted OTLP AnyValue. Values repeat span after span (a method, a
 * route, a service, a tenant): each short one is redacted and JSON-quoted once (the redactor's own
 * cache makes the same bargain, redacting-exporter.ts).
 */
const CACHED_VALUE_LENGTH = 256;
const stringValues = new Map<string, string>();
function redactedStringValue(value: string): string {
  if (value.length > CACHED_VALUE_LENGTH) return `{"stringValue":${JSON.stringify(redactString(value))}}`;
  let json = stringValues.get(value);
  if (json === undefined) {
    if (stringValues.size >= 4096) stringValues.clear();
    json = `{"stringValue":${JSON.stringify(redactString(value))}}`;
    stringValues.set(value, json);
  }
  return json;
}

/** An OTLP AnyValue; strings redacted when `redact` (span and event attributes, not the resource). */
function anyValue(value: unknown, redact: boolean): string {
  switch (typeof value) {
    case 'string':
      return redact ? redactedStringValue(value) : `{"stringValue":${JSON.stringify(value)}}`;
    case 'number':
      return Number.isInteger(value) ? `{"intValue":${value}}` : `{"doubleValue":${JSON.stringify(value)}}`;
    case 'boolean':
      return value ? '{"boolValue":true}' : '{"boolValue":false}';
  }
  if (value instanceof Uint8Array) return `{"bytesValue":"${Buffer.from(value).toString('base64')}"}`;
  if (Array.isArray(value)) return `{"arrayValue":{"values":[${value.map((v) => anyValue(v, redact)).join(',')}]}}`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).map(
      (k) => `${quotedKey(k)}${anyValue((value as Record<string, unknown>)[k], redact)}}`,
    );
    return `{"kvlistValue":{"values":[${entries.join(',')}]}}`;
  }
  return '{}';
}

/**
 * A span attribute's whole KeyValue, for a short string or a number: a request span's attributes
 * are mostly the same pairs span after span (a method, a route, a service, a tenant, a status), so
 * each pair is written once and then is one lookup and one piece of the span's string, not four
 * (about a tenth of the writer's CPU per span, `node dist/bench/run.js observability export`).
 */
const pairs = new Map<string, Map<string | number, string>>();
/** Pairs held at most (then all are dropped): bounded like the redactor's cache, a few MB at worst. */
const MAX_PAIRS = 8192;
let pairCount = 0;
function redactedPair(key: string, value: string | number): string {
  let byValue = pairs.get(key);
  if (byValue === undefined) pairs.set(key, (byValue = new Map()));
  let json = byValue.get(value);
  if (json === undefined) {
    if (pairCount >= MAX_PAIRS) {
      pairs.clear();
      pairs.set(key, (byValue = new Map()));
      pairCount = 0;
    }
    json = `${quotedKey(key)}${anyValue(value, true)}}`;
    byValue.set(value, json);
    pairCount++;
  }
  return json;
}

function attributes(attrs: Attributes, redact: boolean): string {
  let out = '';
  for (const key in attrs) {
    const value: AttributeValue | undefined = attrs[key];
    const pair =
      redact && (typeof value === 'number' || (typeof value === 'string' && value.length <= CACHED_VALUE_LENGTH))
        ? redactedPair(key, value)
        : `${quotedKey(key)}${anyValue(value, redact)}}`;
    out = out === '' ? pair : `${out},${pair}`;
  }
  return out;
}

function event(e: TimedEvent): string {
  return `{"attributes":[${e.attributes ? attributes(e.attributes, true) : ''}],"name":${JSON.stringify(e.name)},"timeUnixNano":"${nanos(e.time)}","droppedAttributesCount":${e.droppedAttributesCount ?? 0}}`;
}

function link(l: Link): string {
  const traceState = l.context.traceState?.serialize();
  return `{"attributes":[${l.attributes ? attributes(l.attributes, true) : ''}],"spanId":"${l.context.spanId}","traceId":"${l.context.traceId}"${traceState === undefined ? '' : `,"traceState":${JSON.stringify(traceState)}`},"droppedAttributesCount":${l.droppedAttributesCount ?? 0},"flags":${flagsOf(l.context.traceFlags, l.context.isRemote)}}`;
}

function span(s: ReadableSpan): string {
  const ctx = s.spanContext();
  const parent = s.parentSpanContext;
  const traceState = ctx.traceState?.serialize();
  const { code, message } = s.status;
  return (
    `{"traceId":"${ctx.traceId}","spanId":"${ctx.spanId}"` +
    (parent?.spanId ? `,"parentSpanId":"${parent.spanId}"` : '') +
    (traceState === undefined ? '' : `,"traceState":${JSON.stringify(traceState)}`) +
    `,"name":${JSON.stringify(s.name)},"kind":${s.kind == null ? 0 : s.kind + 1}` +
    `,"startTimeUnixNano":"${nanos(s.startTime)}","endTimeUnixNano":"${nanos(s.endTime)}"` +
    `,"attributes":[${attributes(s.attributes, true)}],"droppedAttributesCount":${s.droppedAttributesCount ?? 0}` +
    `,"events":[${s.events.length === 0 ? '' : s.events.map(event).join(',')}],"droppedEventsCount":${s.droppedEventsCount ?? 0}` +
    `,"status":{"code":${code}${message === undefined ? '' : `,"message":${JSON.stringify(message)}`}}` +
    `,"links":[${s.links.length === 0 ? '' : s.links.map(link).join(',')}],"droppedLinksCount":${s.droppedLinksCount ?? 0}` +
    `,"flags":${flagsOf(ctx.traceFlags, parent?.isRemote)}}`
  );
}

/** A resource's JSON, once per resource object (a process has one). */
const resources = new WeakMap<Resource, string>();
function resource(r: Resource): string {
  let json = resources.get(r);
  if (json === undefined) {
    const schema = r.schemaUrl ? `,"schemaUrl":${JSON.stringify(r.schemaUrl)}` : '';
    json = `"resource":{"attributes":[${attributes(r.attributes, false)}],"droppedAttributesCount":0${schema}}`;
    resources.set(r, json);
  }
  return json;
}

/** The ExportTraceServiceRequest for `spans`, as JSON text: grouped by resource, then by instrumentation scope. */
export function otlpTracesJson(spans: readonly ReadableSpan[]): string {
  const byResource = new Map<Resource, Map<string, ReadableSpan[]>>();
  for (const s of spans) {
    let scopes = byResource.get(s.resource);
    if (!scopes) byResource.set(s.resource, (scopes = new Map()));
    const scope = s.instrumentationScope;
    const key = `${scope.name}@${scope.version || ''}:${scope.schemaUrl || ''}`;
    const list = scopes.get(key);
    if (list) list.push(s);
    else scopes.set(key, [s]);
  }
  const out: string[] = [];
  for (const [r, scopes] of byResource) {
    const scopeSpans: string[] = [];
    for (const list of scopes.values()) {
      const scope = list[0]!.instrumentationScope;
      const version = scope.version === undefined ? '' : `,"version":${JSON.stringify(scope.version)}`;
      const schema = scope.schemaUrl === undefined ? '' : `,"schemaUrl":${JSON.stringify(scope.schemaUrl)}`;
      scopeSpans.push(
        `{"scope":{"name":${JSON.stringify(scope.name)}${version}},"spans":[${list.map(span).join(',')}]${schema}}`,
      );
    }
    const schema = r.schemaUrl ? `,"schemaUrl":${JSON.stringify(r.schemaUrl)}` : '';
    out.push(`{${resource(r)},"scopeSpans":[${scopeSpans.join(',')}]${schema}}`);
  }
  return `{"resourceSpans":[${out.join(',')}]}`;
}
