// PostgreSQL LISTEN/NOTIFY: every process on the same database receives every event, with no
// server besides PostgreSQL. One dedicated connection listens (reconnecting with backoff if it
// drops); publishing is `pg_notify` on a small pool. NOTIFY payloads are limited to ~8000 bytes,
// so publish references (ids), not documents.
import pg from 'pg';
import type { EventBus } from './event-bus';
import { HandlerRegistry } from './event-bus';

export const NOTIFY_CHANNEL = 'platform_events';
export const MAX_NOTIFY_BYTES = 7900;

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

  return {
    kind: 'postgres',
    async publish(topic, payload) {
      const text = JSON.stringify({ topic, payload });
      if (Buffer.byteLength(text) > MAX_NOTIFY_BYTES)
        throw new Error(`event too large for NOTIFY (${Buffer.byteLength(text)} bytes): publish a reference instead`);
      await pool.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, text]);
    },
    async subscribe(topic, handler) {
      if (!listener) await connect();
      const remove = registry.add(topic, handler);
      return async () => remove();
    },
    async close() {
      closed = true;
      const client = listener;
      listener = undefined;
      await client?.end().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}
