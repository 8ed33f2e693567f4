// The envelope every platform notice travels in: CloudEvents 1.0 (structured mode, JSON), checked
// where the notice is written, not discovered by a consumer. Extensions: `tenantid` (the tenant the
// notice belongs to; ordering and access are per tenant) and `traceparent` (W3C Trace Context,
// so a consumer's work joins the producer's trace).
import { hash, randomFillSync, randomUUID } from 'node:crypto';
import { CloudEvent, ValidationError } from 'cloudevents';
import type { EventContract, PayloadOf } from '../contracts/event-contract';
import { currentTraceparent } from '../telemetry/trace-context';

/** A notice as it is stored and published: the CloudEvents 1.0 attributes plus the contract's payload. */
export interface NoticeEnvelope<T = unknown> {
  specversion: '1.0';
  id: string;
  source: string;
  type: string;
  subject: string;
  time: string;
  datacontenttype: 'application/json';
  dataschema: string;
  tenantid: string;
  traceparent: string;
  data: T;
}

export interface NoticeContext {
  tenantId: string;
  /** What the notice is about (a workflow id, a pack@version, a job id): order is kept per tenant and subject. */
  subject: string;
  /** The caller's W3C traceparent, if the request carried one. */
  traceparent?: string | null;
  /** Else the trace is derived from the correlation id, so every notice of one request shares a trace id. */
  correlationId?: string | null;
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

// Span ids come from a pool of random bytes filled 4 KiB at a time (as node's randomUUID does):
// one randomBytes call per notice cost more than the rest of its traceparent.
const POOL_BYTES = 4096;
const spanPool = Buffer.alloc(POOL_BYTES);
let spanOffset = POOL_BYTES;

function randomSpanId(): string {
  if (spanOffset + 8 > POOL_BYTES) {
    randomFillSync(spanPool);
    spanOffset = 0;
  }
  spanOffset += 8;
  return spanPool.toString('hex', spanOffset - 8, spanOffset);
}

/** A valid traceparent: the given one, else one whose trace id is a digest of the correlation id. */
export function traceparentOf(ctx: Pick<NoticeContext, 'traceparent' | 'correlationId'>): string {
  if (ctx.traceparent && TRACEPARENT.test(ctx.traceparent)) return ctx.traceparent;
  // The writing request's own trace, when tracing is on: consumers then join it.
  const active = currentTraceparent();
  if (active) return active;
  const traceId = ctx.correlationId
    ? hash('sha256', ctx.correlationId, 'hex').slice(0, 32)
    : randomSpanId() + randomSpanId();
  return `00-${traceId}-${randomSpanId()}-01`;
}

/** The schema id a consumer (and later the schema registry) knows the payload by. */
export function dataschemaOf(contract: EventContract): string {
  return `urn:platform:event:${contract.topic}:v${contract.version}`;
}

/** `${service} ${topic} ${version}` of the envelopes whose fixed attributes passed the CloudEvents checks. */
const checkedKinds = new Set<string>();

/**
 * The attributes of one kind of notice that do not change from one notice to the next (source,
 * type, dataschema), checked once per kind by the `cloudevents` class itself (strict): a bad
 * service name or topic fails the first write of that kind, and with it the transaction.
 */
function checkKind(service: string, contract: EventContract): void {
  const kind = `${service} ${contract.topic} ${contract.version}`;
  if (checkedKinds.has(kind)) return;
  new CloudEvent({
    specversion: '1.0',
    id: 'check',
    source: `urn:platform:service:${service}`,
    type: contract.topic,
    subject: 'check',
    datacontenttype: 'application/json',
    dataschema: dataschemaOf(contract),
    tenantid: 'check',
    traceparent: traceparentOf({}),
    data: null,
  });
  checkedKinds.add(kind);
}

/**
 * A notice's envelope as a plain object. Building it with the `cloudevents` class checked every
 * attribute of every notice (45-55 us each under load, issue 35); the fixed ones are checked once
 * per kind (checkKind), and of the rest id, time and traceparent are built here in valid forms, so
 * only the caller's subject and tenant are checked per notice, by the rules the class applies
 * (subject: a non-empty string; an extension: a string). test/unit/outbox/notice-envelope.test.ts
 * holds every envelope kind to the class's validation.
 */
export function noticeEnvelope<C extends EventContract>(
  service: string,
  contract: C,
  payload: PayloadOf<C>,
  ctx: NoticeContext,
): NoticeEnvelope<PayloadOf<C>> {
  checkKind(service, contract);
  if (typeof ctx.subject !== 'string' || ctx.subject.length === 0)
    throw new ValidationError('invalid payload', ['subject must be a non-empty string']);
  if (typeof ctx.tenantId !== 'string') throw new ValidationError(`invalid extension value: ${String(ctx.tenantId)}`);
  // The attribute order the class's toJSON gave, so the JSON text is as before.
  return {
    id: randomUUID(),
    time: new Date().toISOString(),
    type: contract.topic,
    source: `urn:platform:service:${service}`,
    specversion: '1.0',
    datacontenttype: 'application/json',
    subject: ctx.subject,
    dataschema: dataschemaOf(contract),
    data: payload,
    tenantid: ctx.tenantId,
    traceparent: traceparentOf(ctx),
  };
}

/** Whether a bus message is a notice envelope (rather than a bare payload, as ledger notices still are). */
export function isNoticeEnvelope(message: unknown): message is NoticeEnvelope {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.specversion === '1.0' && typeof m.id === 'string' && typeof m.type === 'string' && 'data' in m;
}
