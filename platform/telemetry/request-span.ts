// The request's server span, recorded without the SDK's Span (issue 31: tracing costs <= 10%).
//
// Every traced HTTP request makes exactly one of these (server-span.ts), so its cost is paid per
// request: a profile of router queries (2026-11-29) put the SDK's `startSpan` (a tracer-metrics
// counter update with two attribute objects, two clock reads, a validation and a length check per
// attribute, two id buffers hex-encoded) at about a third of what tracing adds to a query. This
// span does what the exported span needs and nothing else: the provider's own sampler, span
// limits, resource and span processor are used (read from the SDK's tracer, so an operator's
// OTEL_TRACES_SAMPLER and OTEL_SPAN_*_LIMIT settings hold), ids come from a pool of random bytes
// hex-encoded in bulk, and the object is the ReadableSpan the batch processor and the exporters
// read (otlp-json.ts, redacting-exporter.ts), so the exported span is the SDK's, field for field
// (test/unit/telemetry/request-span.test.ts).
//
// Only what a server span is started with takes this path (a kind, attributes, a parent context);
// a request for links or a start time, and every other tracer of the process, stay on the SDK.
import {
  diag,
  INVALID_SPAN_CONTEXT,
  SamplingDecision,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';
import { isAttributeValue, isTracingSuppressed, timeInputToHrTime } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, Sampler, SpanLimits, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { randomFillSync } from 'node:crypto';
import type { InstrumentationScope } from '@opentelemetry/core';

/** What the SDK's tracer holds and this span needs (fields of its Tracer, read once). */
interface TracerParts {
  sampler: Sampler;
  limits: Required<Pick<SpanLimits, 'attributeCountLimit' | 'attributeValueLengthLimit' | 'eventCountLimit'>>;
  resource: Resource;
  processor: SpanProcessor;
  scope: InstrumentationScope;
}

/** Random span and trace ids: 4 KiB of random bytes hex-encoded at once, cut into ids. */
const POOL_BYTES = 4096;
let pool = '';
let at = 0;
function randomHex(chars: number): string {
  for (;;) {
    if (at + chars > pool.length) {
      pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES)).toString('hex');
      at = 0;
    }
    const id = pool.slice(at, (at += chars));
    // An all-zero id is invalid (W3C trace context); 2^-64 at worst, but never exported.
    if (!/^0+$/.test(id)) return id;
  }
}

const NO_LINKS = Object.freeze([]) as unknown as Link[];
// Shared until the span ends or its status is set (then replaced, never changed in place).
const NOT_ENDED = Object.freeze([0, 0]) as unknown as HrTime;
const NO_DURATION = Object.freeze([-1, -1]) as unknown as HrTime;
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

function millisToHr(ms: number): HrTime {
  const seconds = Math.trunc(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

function addHr(a: HrTime, b: HrTime): HrTime {
  const nanos = a[1] + b[1];
  return nanos >= 1e9 ? [a[0] + b[0] + 1, nanos - 1e9] : [a[0] + b[0], nanos];
}

export class RequestSpan implements Span, ReadableSpan {
  // Fields are `declare`d and assigned in the constructor: class field initializers compile (ES2022)
  // to a define per field, which Node 20's V8 runs several times slower than plain assignments
  // (a profile of ledger appends put them at twice the rest of the span's start).
  declare name: string;
  declare readonly kind: SpanKind;
  declare readonly parentSpanContext: SpanContext | undefined;
  declare readonly attributes: Attributes;
  declare readonly links: Link[];
  declare readonly events: TimedEvent[];
  declare readonly startTime: HrTime;
  declare endTime: HrTime;
  declare duration: HrTime;
  declare status: SpanStatus;
  declare ended: boolean;
  declare droppedAttributesCount: number;
  declare droppedEventsCount: number;
  declare readonly droppedLinksCount: number;
  declare private readonly parts: TracerParts;
  declare private readonly context: SpanContext;
  declare private attributeCount: number;
  /** performance.now() at the start: the end is the start plus the monotonic clock's duration (as the SDK's). */
  declare private readonly started: number;

  constructor(
    parts: TracerParts,
    name: string,
    kind: SpanKind,
    context: SpanContext,
    parentSpanContext: SpanContext | undefined,
  ) {
    this.parts = parts;
    this.name = name;
    this.kind = kind;
    this.context = context;
    this.parentSpanContext = parentSpanContext;
    this.attributes = {};
    this.links = NO_LINKS;
    this.events = [];
    this.started = performance.now();
    this.startTime = millisToHr(Date.now());
    this.endTime = NOT_ENDED;
    this.duration = NO_DURATION;
    this.status = UNSET;
    this.ended = false;
    this.droppedAttributesCount = 0;
    this.droppedEventsCount = 0;
    this.droppedLinksCount = 0;
    this.attributeCount = 0;
  }

  get resource(): Resource {
    return this.parts.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.parts.scope;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  isRecording(): boolean {
    return !this.ended;
  }

  setAttribute(key: string, value: AttributeValue | undefined): this {
    if (value == null || this.ended || key.length === 0 || !isAttributeValue(value)) return this;
    const isNew = !Object.prototype.hasOwnProperty.call(this.attributes, key);
    if (isNew && this.attributeCount >= this.parts.limits.attributeCountLimit) {
      this.droppedAttributesCount++;
      return this;
    }
    this.attributes[key] = this.truncated(value);
    if (isNew) this.attributeCount++;
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) this.setAttribute(key, attributes[key]);
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const { eventCountLimit } = this.parts.limits;
    if (eventCountLimit === 0) {
      this.droppedEventsCount++;
      return this;
    }
    if (this.events.length >= eventCountLimit) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    const attributes: Attributes = {};
    if (isTime(attributesOrTime)) time ??= attributesOrTime;
    else if (attributesOrTime)
      for (const k in attributesOrTime) {
        const v = attributesOrTime[k];
        if (v != null && isAttributeValue(v)) attributes[k] = this.truncated(v);
      }
    this.events.push({
      name,
      attributes,
      time: time === undefined ? this.now() : timeInputToHrTime(time),
      droppedAttributesCount: 0,
    });
    return this;
  }

  addLink(): this {
    // A server span's links would have to be given at its start; none are.
    return this;
  }

  addLinks(): this {
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    this.status =
      status.code === SpanStatusCode.ERROR && typeof status.message === 'string'
        ? { code: status.code, message: status.message }
        : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      if (exception.code) attributes['exception.type'] = exception.code.toString();
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] || attributes['exception.message']) this.addEvent('exception', attributes, time);
  }

  end(endTime?: TimeInput): void {
    if (this.ended) {
      diag.error(
        `${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`,
      );
      return;
    }
    this.endTime = endTime === undefined ? this.now() : timeInputToHrTime(endTime);
    const seconds = this.endTime[0] - this.startTime[0];
    const nanos = this.endTime[1] - this.startTime[1];
    this.duration = nanos < 0 ? [seconds - 1, nanos + 1e9] : [seconds, nanos];
    if (this.duration[0] < 0) {
      this.endTime = [this.startTime[0], this.startTime[1]];
      this.duration = [0, 0];
    }
    this.parts.processor.onEnding?.(this);
    this.ended = true;
    this.parts.processor.onEnd(this);
  }

  private now(): HrTime {
    return addHr(this.startTime, millisToHr(performance.now() - this.started));
  }

  private truncated(value: AttributeValue): AttributeValue {
    const limit = this.parts.limits.attributeValueLengthLimit;
    if (typeof value === 'string') return value.length > limit ? value.slice(0, limit) : value;
    if (Array.isArray(value) && limit !== Infinity)
      return value.map((v) => (typeof v === 'string' && v.length > limit ? v.slice(0, limit) : v)) as AttributeValue;
    return value;
  }
}

function isTime(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || (Array.isArray(value) && value.length === 2);
}

/** The SDK tracer's parts, or undefined if this SDK version keeps them elsewhere (then the SDK's span is used). */
function partsOf(tracer: Tracer): TracerParts | undefined {
  const t = tracer as unknown as {
    _sampler?: Sampler;
    _spanLimits?: TracerParts['limits'];
    _resource?: Resource;
    _spanProcessor?: SpanProcessor;
    instrumentationScope?: InstrumentationScope;
  };
  if (!t._sampler || !t._spanLimits || !t._resource || !t._spanProcessor || !t.instrumentationScope) return undefined;
  return {
    sampler: t._sampler,
    limits: {
      attributeCountLimit: t._spanLimits.attributeCountLimit ?? 128,
      attributeValueLengthLimit: t._spanLimits.attributeValueLengthLimit ?? Infinity,
      eventCountLimit: t._spanLimits.eventCountLimit ?? 128,
    },
    resource: t._resource,
    processor: t._spanProcessor,
    scope: t.instrumentationScope,
  };
}

/**
 * The tracer of request spans: the SDK's `sdk` tracer, but a span started with no links and no
 * start time is a RequestSpan. Answers `sdk` itself when its parts cannot be read.
 */
export function requestTracer(sdk: Tracer): Tracer {
  const parts = partsOf(sdk);
  if (!parts) return sdk;
  const startSpan = (name: string, options: SpanOptions = {}, parent?: Context): Span => {
    if (!parent || options.links?.length || options.startTime !== undefined || options.root)
      return sdk.startSpan(name, options, parent);
    if (isTracingSuppressed(parent)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentContext = trace.getSpanContext(parent);
    const valid = parentContext && trace.isSpanContextValid(parentContext) ? parentContext : undefined;
    const traceId = valid ? valid.traceId : randomHex(32);
    const spanId = randomHex(16);
    const kind = options.kind ?? 0;
    const attributes = options.attributes ?? {};
    const sampled = parts.sampler.shouldSample(parent, traceId, name, kind, attributes, NO_LINKS);
    const context: SpanContext = {
      traceId,
      spanId,
      traceFlags: sampled.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      traceState: sampled.traceState ?? valid?.traceState,
    };
    if (sampled.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(context);
    const span = new RequestSpan(parts, name, kind, context, valid);
    span.setAttributes(attributes);
    if (sampled.attributes) span.setAttributes(sampled.attributes);
    parts.processor.onStart(span, parent);
    return span;
  };
  return { startSpan, startActiveSpan: sdk.startActiveSpan.bind(sdk) };
}
