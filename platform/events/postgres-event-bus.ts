// PostgreSQL LISTEN/NOTIFY: every process on the same database receives every event, with no
// server besides PostgreSQL. One dedicated connection listens (reconnecting with backoff if it
// drops); publishing is `pg_notify` on a small pool. NOTIFY payloads are limited to ~8000 bytes,
// so publish references (ids), not documents.
import pg from 'pg';
import type { EventBus } from './event-bus';
import { HandlerRegistry } from './event-bus';

export const NOTIFY_CHANNEL = 'platform_events';
export const MAX_NOTIFY_BYTES = 7900;
/** Most events in one `pg_notify` statement. */
const MAX_NOTIFY_BATCH = 1000;

export function createPostgresEventBus(url: string, onError: (err: unknown) => void = () => {}): EventBus {
  const registry = new HandlerRegistry();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => {});
  let listener: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  let retryMs = 100;

  const onNotification = (msg: pg.Notification) => {
    if (msg.channel !== NOTIFY_CHANNEL || !msg.payload) return;
    try {
      const { topic, payload } = JSON.parse(msg.payload) as { topic: string; payload: unknown };
      registry.dispatch(topic, payload, onError);
    } catch (err) {
      onError(err);
    }
  };

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      client.on('notification', onNotification);
      client.on('error', (err) => {
        onError(err);
        reconnect(client);
      });
      client.on('end', () => reconnect(client));
      await client.connect();
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
      listener = client;
      retryMs = 100;
    })().finally(() => {
      connecting = undefined;
    });
    return connecting;
  }

  function reconnect(client: pg.Client): void {
    if (closed || listener !== client) return;
    listener = undefined;
    const attempt = () => {
      if (closed) return;
      connect().catch((err) => {
        onError(err);
        retryMs = Math.min(retryMs * 2, 5000);
        setTimeout(attempt, retryMs).unref();
      });
    };
    setTimeout(attempt, retryMs).unref();
  }

  // Publishes are sent in batches, one statement each, one batch at a time: whatever was published
  // while a batch was under way goes in the next. One `pg_notify` statement per event was most of
  // a ledger append's cost (issue 35: 22,781 statements in 10 s beside 1,478 append transactions).
  // Within a batch the rows run in order, and PostgreSQL delivers one transaction's notifications
  // in that order; it folds identical (channel, payload) pairs of one transaction into one, which
  // only ever drops an exact duplicate (a republished notice, a second wake-up).
  const queued: { text: string; resolve(): void; reject(err: unknown): void }[] = [];
  let sending = false;
  const sendQueued = async () => {
    if (sending || queued.length === 0) return;
    sending = true;
    const batch = queued.splice(0, MAX_NOTIFY_BATCH);
    try {
      // The payloads travel as one JSON array: node-postgres escapes a text[] element by element
      // in JavaScript (two regular-expression passes over each ~1.3 kB notice envelope), where
      // JSON.stringify escapes them natively.
      await pool.query(
        'SELECT pg_notify($1, t.payload) FROM json_array_elements_text($2::json) WITH ORDINALITY AS t(payload, n) ORDER BY t.n',
        [NOTIFY_CHANNEL, JSON.stringify(batch.map((b) => b.text))],
      );
      for (const b of batch) b.resolve();
    } catch (err) {
      for (const b of batch) b.reject(err);
    } finally {
      sending = false;
      void sendQueued();
    }
  };

  return {
    kind: 'postgres',
    async publish(topic, payload) {
      const text = JSON.stringify({ topic, payload });
      if (Buffer.byteLength(text) > MAX_NOTIFY_BYTES)
        throw new Error(`event too large for NOTIFY (${Buffer.byteLength(text)} bytes): publish a reference instead`);
      await new Promise<void>((resolve, reject) => {
        queued.push({ text, resolve, reject });
        void sendQueued();
      });
    },
    async subscribe(topic, handler) {
      if (!listener) await connect();
      const remove = registry.add(topic, handler);
      return async () => remove();
    },
    async close() {
      closed = true;
      // What was published before close is sent (or fails) first: its publishers are waiting.
      while (sending || queued.length > 0) await new Promise((r) => setTimeout(r, 5));
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
