// The platform's topics (platform/contracts/events.catalogue.ts) written into `event_topics`
// (owner `platform`). Whoever starts first seeds them: the events service at its start, every
// notice relay before its first append and every durable consumer before it creates its group,
// so a platform notice never lands in a stream whose topic a reader cannot look up, whichever
// service a deployment starts first. The upsert is idempotent and a newer contract version
// replaces an older one, so several starters racing each other is harmless.
import { EVENT_CATALOGUE } from '../../contracts/events.catalogue';
import type { SqlExecutor } from '../../db/sql';
import { createEventsStore } from './backbone.store';

/** A schema as stored: plain JSON (TypeBox's symbol keys dropped) without its `$id`, which Ajv would register globally. */
export function storableSchema(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

/** Upserts every catalogue topic; resolves with how many there are. */
export async function seedPlatformTopics(sql: SqlExecutor): Promise<number> {
  const store = createEventsStore(sql);
  for (const c of EVENT_CATALOGUE) {
    await store.upsertPlatformTopic({
      name: c.topic,
      version: c.version,
      schema: storableSchema(c.schema),
      description: c.description,
    });
  }
  return EVENT_CATALOGUE.length;
}

const seeded = new WeakMap<SqlExecutor, Promise<number>>();

/** Seeds once per database handle in this process (a failed seed is tried again next time). */
export function ensurePlatformTopics(sql: SqlExecutor): Promise<number> {
  let done = seeded.get(sql);
  if (!done) {
    done = seedPlatformTopics(sql);
    seeded.set(sql, done);
    done.catch(() => seeded.delete(sql));
  }
  return done;
}
