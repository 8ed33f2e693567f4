// The structured CloudEvents 1.0 JSON of a stored backbone event: what the REST door answers,
// what pull and the DLQ hand out, and the body a webhook receiver gets (signed as it is). In
// platform/ beside the store so every path appending to the backbone builds the same envelope.
import type { EventRecord } from './backbone.types';

/** The structured CloudEvents JSON of a stored event, with its tenant and position as extensions. */
export function cloudEventJson(e: EventRecord): Record<string, unknown> {
  return {
    specversion: e.specversion,
    id: e.id,
    source: e.source,
    type: e.type,
    time: e.time,
    ...(e.subject !== null ? { subject: e.subject } : {}),
    datacontenttype: 'application/json',
    tenantid: e.tenantId,
    ...(e.traceparent !== null ? { traceparent: e.traceparent } : {}),
    topic: e.topic,
    position: e.position,
    data: e.data,
  };
}
