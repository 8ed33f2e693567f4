// JetStream for the events benchmark (filled in with platform/events/backbone/jetstream.store.ts).
import type { Database } from '../platform/db/database';
import type { EventsStore } from '../platform/events/backbone/backbone.store';

export function openBenchJetStream(_db: Database): Promise<{ store: EventsStore; close(): Promise<void> }> {
  return Promise.reject(new Error('JetStream storage is not built yet'));
}

export function rawPublishRate(_events: number, _producers: number): Promise<number> {
  return Promise.reject(new Error('JetStream storage is not built yet'));
}
