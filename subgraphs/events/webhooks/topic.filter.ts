// Which events an endpoint receives: an empty filter means every topic of the tenant; an entry
// ending in `*` matches by prefix (`workflow.*`), any other entry matches exactly. The matching is
// the platform's (the notice relays queue webhooks too); the pattern is the doors' input rule.
export { topicMatches } from '../../../platform/events/backbone/webhook-queue.store';
export const TOPIC_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*\*?$|^\*$/;
