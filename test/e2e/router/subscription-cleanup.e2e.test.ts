// Upstream subscriptions end with the client's: whatever way a graphql-ws client goes away (a
// close without `complete`, a dropped connection, a protocol error) or completes one
// subscription, the router's WebSocket to the ledger subgraph closes. Counted at the ledger: the
// upgraded sockets its HTTP server holds open.
import type { Duplex } from 'node:stream';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { until } from '../../support/waiting';
import { DEV, startPlatform, type Platform } from './platform.support';

jest.setTimeout(90_000);

const SUBSCRIPTION = 'subscription { ledgerEventAppended(eventType: "never_appended") { eventType user { username } } }';

describe('router subscriptions end upstream when the client goes', () => {
  let p: Platform;
  let token: string;
  /** WebSockets the ledger holds open (the router's upstream connections). */
  const live = new Set<Duplex>();
  const clients: Client[] = [];

  beforeAll(async () => {
    p = await startPlatform();
    token = await p.login(DEV.admin.username, DEV.admin.password);
    p.ledgerServer.on('upgrade', (_request, socket: Duplex) => {
      live.add(socket);
      socket.once('close', () => live.delete(socket));
    });
  });
  afterAll(async () => {
    for (const c of clients) await Promise.resolve(c.dispose()).catch(() => {});
    await p?.close();
  });

  /** A client with one subscription through the router, and its raw socket once connected. */
  async function subscribed(lazy = true): Promise<{ client: Client; socket: WebSocket; unsubscribe: () => void }> {
    let socket: WebSocket | undefined;
    const client = createClient({ url: `${p.gateway.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, retryAttempts: 0, lazy, onNonLazyError: () => {} });
    clients.push(client);
    client.on('connected', (s) => { socket = s as WebSocket; });
    const unsubscribe = client.subscribe({ query: SUBSCRIPTION }, { next: () => {}, error: () => {}, complete: () => {} });
    await until(async () => socket !== undefined, 'the client to connect to the router');
    return { client, socket: socket!, unsubscribe };
  }

  it('closes every upstream socket after clients terminate, close without complete, or break the protocol', async () => {
    const before = live.size;
    const subs = [];
    for (let i = 0; i < 6; i++) subs.push(await subscribed());
    // Each client connection has its own upstream connection to the ledger.
    await until(async () => live.size === before + 6, 'six upstream subscriptions to reach the ledger');

    subs[0]!.socket.terminate(); // network drop: no close frame, no complete
    subs[1]!.socket.terminate();
    subs[2]!.socket.close(4000, 'going'); // a close frame, but no complete first
    subs[3]!.socket.close(4000, 'going');
    // Garbage on the wire: the router's socket errors (invalid frame) and closes.
    const raw = (s: WebSocket) => (s as unknown as { _socket: Duplex })._socket;
    raw(subs[4]!.socket).write(Buffer.from([0x8f, 0x80, 0, 0, 0, 0]));
    raw(subs[5]!.socket).write(Buffer.from([0x8f, 0x80, 0, 0, 0, 0]));

    await until(async () => live.size === before, 'the ledger to see every upstream socket close');
    expect(live.size).toBe(before);
  });

  it('ends the upstream subscription when the client completes it, without waiting for an event', async () => {
    const before = live.size;
    // Not lazy: the client keeps its socket open after its last subscription completes.
    const { socket, unsubscribe } = await subscribed(false);
    await until(async () => live.size === before + 1, 'the upstream subscription to reach the ledger');
    unsubscribe(); // sends `complete`
    // The router's upstream client is lazy: with no subscription left its socket closes.
    await until(async () => live.size === before, 'the upstream socket to close');
    expect(live.size).toBe(before);
    expect(socket.readyState).toBe(WebSocket.OPEN);
  });
});
