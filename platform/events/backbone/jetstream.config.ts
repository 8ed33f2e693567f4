// Which storage the events backbone uses, from the environment: JetStream when NATS_URL is set and
// EVENTS_STORE is not `sql` (EVENTS_STORE=jetstream without NATS_URL is refused), SQL otherwise.
import { connect, type NatsConnection } from 'nats';
import { readInt, readString } from '../../config/env';
import type { Env } from '../../service';
import type { SqlExecutor } from '../../db/sql';
import { createEventsStore, type EventsStore, type EventsStoreHooks } from './backbone.store';
import { createJetStreamEventsStore, type JetStreamLimits } from './jetstream.store';

export function jetStreamLimits(env: Env): JetStreamLimits {
  return {
    maxBytes: readInt(env, 'EVENTS_JETSTREAM_MAX_BYTES', 10 * 1024 * 1024 * 1024, { min: 1024 * 1024 }),
    maxAgeSeconds: readInt(env, 'EVENTS_JETSTREAM_MAX_AGE_SECONDS', 7 * 24 * 3600, { min: 60 }),
    duplicateWindowSeconds: readInt(env, 'EVENTS_JETSTREAM_DUPLICATE_WINDOW_SECONDS', 600, {
      min: 1,
      max: 7 * 24 * 3600,
    }),
    storage: readString(env, 'EVENTS_JETSTREAM_STORAGE', 'file') === 'memory' ? 'memory' : 'file',
  };
}

export interface OpenedEventsStore {
  store: EventsStore;
  kind: 'sql' | 'jetstream';
  close(): Promise<void>;
}

export async function openEventsStore(
  env: Env,
  sql: SqlExecutor,
  o: { natsUrl?: string; namespace: string },
  hooks: EventsStoreHooks = {},
): Promise<OpenedEventsStore> {
  const choice = readString(env, 'EVENTS_STORE', '');
  if (choice !== '' && choice !== 'sql' && choice !== 'jetstream') {
    throw new Error(`EVENTS_STORE must be sql or jetstream, got "${choice}"`);
  }
  // SQL unless asked: the notice relays append to the SQL streams in their own transactions (one
  // path), and webhooks queue in the publish's transaction, neither of which JetStream can join.
  if (choice !== 'jetstream') return { store: createEventsStore(sql, hooks), kind: 'sql', close: async () => {} };
  if (!o.natsUrl) throw new Error('EVENTS_STORE=jetstream needs NATS_URL');
  const nc: NatsConnection = await connect({ servers: o.natsUrl.replace(/^nats:\/\//, ''), maxReconnectAttempts: -1 });
  const store = await createJetStreamEventsStore({ nc, sql, namespace: o.namespace, limits: jetStreamLimits(env) });
  return { store, kind: 'jetstream', close: () => nc.drain() };
}
