// Which events an endpoint receives: an empty filter means every topic of the tenant; an entry
// ending in `*` matches by prefix (`workflow.*`), any other entry matches exactly. The queue's
// INSERT (platform/events/backbone/webhook-queue.store.ts) applies the same rule in SQL.
export const TOPIC_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*\*?$|^\*$/;

export function topicMatches(filter: readonly string[], topic: string): boolean {
  if (filter.length === 0) return true;
  return filter.some((f) => (f.endsWith('*') ? topic.startsWith(f.slice(0, -1)) : f === topic));
}
