// The events service's own notice: one per stored event, published on the process bus after the
// commit. It only wakes the `events(topic, afterPosition)` GraphQL subscriptions, which then read
// the stream from the store; it carries no event data, so a lost notice loses nothing.
import { Type, type Static } from '@sinclair/typebox';
import { eventContract } from './event-contract';
import { TenantId } from './contract.types';

export const EventsPublishedSchema = Type.Object(
  {
    tenant_id: TenantId,
    topic: Type.String({ minLength: 1, maxLength: 200 }),
    /** The event's position in its (tenant, topic) stream. */
    position: Type.Integer({ minimum: 1 }),
  },
  { $id: 'events.event_published.v1' },
);
export type EventsPublished = Static<typeof EventsPublishedSchema>;

export const EVENTS_EVENT_PUBLISHED = eventContract({
  topic: 'events.event_published',
  version: 1,
  schema: EventsPublishedSchema,
  producer: 'events',
  consumers: ['events'],
  description: "An event was stored in a tenant's topic stream (position only): wakes the events subscriptions.",
});
