// OTLP/HTTP JSON (ExportTraceServiceRequest) to span records. The JSON encoding writes trace and
// span ids as hex (the spec's JSON mapping); base64 (protobuf's default JSON form) is accepted too.
// Anything malformed is an InputError naming where: the receiver answers 4xx, never 500.
import { InputError } from '../../platform/errors/domain-errors';
import { redactValue } from '../../platform/redaction';
import { MAX_SPANS_PER_REQUEST, type SpanRecord } from './observability.types';

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

const bad = (loc: string, msg: string) => new InputError([{ loc: [loc], msg, type: 'value_error' }]);

function valueOf(v: AnyValue | undefined): unknown {
  if (!v || typeof v !== 'object') return null;
  if (v.stringValue !== undefined) return String(v.stringValue);
  if (v.boolValue !== undefined) return Boolean(v.boolValue);
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
  return null;
}

function attributesOf(list: unknown, loc: string): Record<string, unknown> {
  if (list === undefined) return {};
  if (!Array.isArray(list)) throw bad(loc, 'Attributes should be a list');
  const out: Record<string, unknown> = {};
  for (const kv of list as KeyValue[]) {
    if (!kv || typeof kv.key !== 'string') throw bad(loc, 'An attribute needs a key');
    out[kv.key.slice(0, 256)] = valueOf(kv.value);
  }
  return out;
}

function idOf(value: unknown, bytes: number, loc: string, optional = false): string | null {
  if ((value === undefined || value === '') && optional) return null;
  if (typeof value !== 'string') throw bad(loc, 'Should be a hex or base64 id');
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) return value.toLowerCase();
  const decoded = Buffer.from(value, 'base64');
  if (decoded.length === bytes && /^[A-Za-z0-9+/]+=*$/.test(value)) return decoded.toString('hex');
  throw bad(loc, `Should be ${bytes} bytes in hex or base64`);
}

function nanosOf(value: unknown, loc: string): bigint {
  if ((typeof value !== 'string' && typeof value !== 'number') || !/^\d{1,20}$/.test(String(value)))
    throw bad(loc, 'Should be nanoseconds since the epoch');
  return BigInt(value);
}

export function decodeOtlpTraces(body: unknown): SpanRecord[] {
  if (!body || typeof body !== 'object' || !Array.isArray((body as { resourceSpans?: unknown }).resourceSpans))
    throw bad('resourceSpans', 'An ExportTraceServiceRequest needs resourceSpans');
  const spans: SpanRecord[] = [];
  for (const rs of (body as { resourceSpans: { resource?: { attributes?: unknown }; scopeSpans?: unknown }[] })
    .resourceSpans) {
    const resource = attributesOf(rs?.resource?.attributes, 'resource.attributes');
    const resourceService = typeof resource['service.name'] === 'string' ? resource['service.name'] : 'unknown';
    for (const ss of (Array.isArray(rs?.scopeSpans) ? rs.scopeSpans : []) as { spans?: unknown }[]) {
      for (const s of (Array.isArray(ss?.spans) ? ss.spans : []) as Record<string, unknown>[]) {
        if (spans.length >= MAX_SPANS_PER_REQUEST)
          throw bad('resourceSpans', `At most ${MAX_SPANS_PER_REQUEST} spans per request`);
        // PII in attributes is masked before storage, whoever sent them.
        const attributes = redactValue(attributesOf(s.attributes, 'span.attributes')) as Record<string, unknown>;
        const start = nanosOf(s.startTimeUnixNano, 'span.startTimeUnixNano');
        const end = nanosOf(s.endTimeUnixNano ?? s.startTimeUnixNano, 'span.endTimeUnixNano');
        const service =
          typeof attributes['platform.service'] === 'string' ? attributes['platform.service'] : resourceService;
        const tenant = attributes['platform.tenant_id'];
        spans.push({
          traceId: idOf(s.traceId, 16, 'span.traceId')!,
          spanId: idOf(s.spanId, 8, 'span.spanId')!,
          parentSpanId: idOf(s.parentSpanId, 8, 'span.parentSpanId', true),
          tenantId: typeof tenant === 'string' && tenant.length <= 255 ? tenant : null,
          service: String(service).slice(0, 128),
          name: typeof s.name === 'string' ? s.name.slice(0, 512) : '',
          startTime: new Date(Number(start / 1_000_000n)).toISOString(),
          durationMs: end > start ? Number(end - start) / 1e6 : 0,
          error: (s.status as { code?: number } | undefined)?.code === 2,
          attributes,
        });
      }
    }
  }
  return spans;
}
