// The envelope every platform notice travels in: CloudEvents 1.0 (structured mode, JSON), built
// with the `cloudevents` package so the required attributes and their formats are checked where
// the notice is written, not discovered by a consumer. Extensions: `tenantid` (the tenant the
// notice belongs to; ordering and access are per tenant) and `traceparent` (W3C Trace Context,
// so a consumer's work joins the producer's trace).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { CloudEvent } from 'cloudevents';
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

/** A valid traceparent: the given one, else one whose trace id is a digest of the correlation id. */
export function traceparentOf(ctx: Pick<NoticeContext, 'traceparent' | 'correlationId'>): string {
  if (ctx.traceparent && TRACEPARENT.test(ctx.traceparent)) return ctx.traceparent;
  // The writing request's own trace, when tracing is on: consumers then join it.
  const active = currentTraceparent();
  if (active) return active;
  const traceId = ctx.correlationId
    ? createHash('sha256').update(ctx.correlationId).digest('hex').slice(0, 32)
    : randomBytes(16).toString('hex');
  return `00-${traceId}-${randomBytes(8).toString('hex')}-01`;
}

/** The schema id a consumer (and later the schema registry) knows the payload by. */
export function dataschemaOf(contract: EventContract): string {
  return `urn:platform:event:${contract.topic}:v${contract.version}`;
}

export function noticeEnvelope<C extends EventContract>(
  service: string,
  contract: C,
  payload: PayloadOf<C>,
  ctx: NoticeContext,
): NoticeEnvelope<PayloadOf<C>> {
  // The constructor validates the attributes (strict): a bad subject or source fails the write,
  // and with it the transaction, instead of a consumer later.
  const event = new CloudEvent<PayloadOf<C>>({
    specversion: '1.0',
    id: randomUUID(),
    source: `urn:platform:service:${service}`,
    type: contract.topic,
    subject: ctx.subject,
    time: new Date().toISOString(),
    datacontenttype: 'application/json',
    dataschema: dataschemaOf(contract),
    tenantid: ctx.tenantId,
    traceparent: traceparentOf(ctx),
    data: payload,
  });
  return event.toJSON() as unknown as NoticeEnvelope<PayloadOf<C>>;
}

/** Whether a bus message is a notice envelope (rather than a bare payload, as ledger notices still are). */
export function isNoticeEnvelope(message: unknown): message is NoticeEnvelope {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  return m.specversion === '1.0' && typeof m.id === 'string' && typeof m.type === 'string' && 'data' in m;
}
