// Upstream subscriptions end with the client's: whatever way a graphql-ws client goes away (a
// close without `complete`, a dropped connection, a protocol error), the router's WebSocket to the
// ledger subgraph closes (counted at the ledger: the upgraded sockets its HTTP server holds open);
// a client that completes one subscription gets it completed upstream at once (the router opens
// its upstream socket with the client's connection and keeps it while the client stays).
// Connections of one caller (the same token and tenant) share one upstream socket per subgraph
// (router/subscriptions/upstream.pool.ts): it closes with the last of them; another caller never
// shares it. Identical subscriptions of one caller share one upstream subscription
// (router/subscriptions/shared.subscriptions.ts), so each test below subscribes to an event type
// of its own unless it means to share.
import type { Duplex } from 'node:stream';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { until } from '../../support/waiting';
import { DEV, startPlatform, type Platform } from './platform.support';

jest.setTimeout(90_000);

const subscription = (eventType: string) =>
  `subscription { ledgerEventAppended(eventType: "${eventType}") { eventType user { username } } }`;
let distinct = 0;

describe('router subscriptions end upstream when the client goes', () => {
  let p: Platform;
  let token: string;
  /** WebSockets the ledger holds open (the router's upstream connections). */
  const live = new Set<Duplex>();
  /** graphql-ws message types the router sent the ledger (the router runs in this process). */
  const upstreamMessages: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    p = await startPlatform();
    token = await p.login(DEV.admin.username, DEV.admin.password);
    p.ledgerServer.on('upgrade', (_request, socket: Duplex) => {
      live.add(socket);
      socket.once('close', () => live.delete(socket));
    });
    const send = WebSocket.prototype.send;
    const ledgerWs = p.ledger.replace('http', 'ws');
    jest.spyOn(WebSocket.prototype, 'send').mockImplementation(function (
      this: WebSocket,
      data: unknown,
      ...rest: unknown[]
    ) {
      if (this.url?.startsWith(ledgerWs) && typeof data === 'string')
        upstreamMessages.push(String((JSON.parse(data) as { type: string }).type));
      return (send as (...args: unknown[]) => void).call(this, data, ...rest);
    });
  });
  afterAll(async () => {
    for (const c of clients) await Promise.resolve(c.dispose()).catch(() => {});
    await p?.close();
  });

  /** A client with one subscription through the router, and its raw socket once connected. */
  async function subscribed(
    lazy = true,
    as = token,
    eventType = `never_appended_${++distinct}`,
  ): Promise<{ client: Client; socket: WebSocket; unsubscribe: () => void }> {
    let socket: WebSocket | undefined;
    const client = createClient({
      url: `${p.gateway.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${as}` },
      retryAttempts: 0,
      lazy,
      onNonLazyError: () => {},
    });
    clients.push(client);
    client.on('connected', (s) => {
      socket = s as WebSocket;
    });
    const unsubscribe = client.subscribe(
      { query: subscription(eventType) },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    await until(async () => socket !== undefined, 'the client to connect to the router');
    return { client, socket: socket!, unsubscribe };
  }

  it('closes every upstream socket after clients terminate, close without complete, or break the protocol', async () => {
    const before = live.size;
    const completes = () => upstreamMessages.filter((t) => t === 'complete').length;
    const subscribes = () => upstreamMessages.filter((t) => t === 'subscribe').length;
    const subscribedBefore = subscribes();
    const subs = [];
    for (let i = 0; i < 6; i++) subs.push(await subscribed());
    // One caller's six connections share one upstream socket, with six subscriptions on it.
    await until(
      async () => live.size === before + 1 && subscribes() === subscribedBefore + 6,
      'six upstream subscriptions to reach the ledger over one socket',
    );
    // Another caller gets a socket of its own.
    const other = await subscribed(true, await p.login(DEV.user.username, DEV.user.password));
    await until(async () => live.size === before + 2, "the other caller's upstream socket");

    const completedBefore = completes();
    subs[0]!.socket.terminate(); // network drop: no close frame, no complete
    subs[1]!.socket.terminate();
    subs[2]!.socket.close(4000, 'going'); // a close frame, but no complete first
    subs[3]!.socket.close(4000, 'going');
    // Garbage on the wire: the router's socket errors (invalid frame) and closes.
    const raw = (s: WebSocket) => (s as unknown as { _socket: Duplex })._socket;
    raw(subs[4]!.socket).write(Buffer.from([0x8f, 0x80, 0, 0, 0, 0]));
    // Five gone: their subscriptions end upstream at once; the shared socket stays for the sixth.
    await until(async () => completes() === completedBefore + 5, 'five upstream subscriptions to be completed');
    expect(live.size).toBe(before + 2);
    raw(subs[5]!.socket).write(Buffer.from([0x8f, 0x80, 0, 0, 0, 0]));
    await until(async () => live.size === before + 1, 'the shared upstream socket to close with its last client');
    other.socket.terminate();
    await until(async () => live.size === before, 'the ledger to see every upstream socket close');
    expect(live.size).toBe(before);
  });

  it('ends the upstream subscription when the client completes it, without waiting for an event', async () => {
    const before = live.size;
    const completes = () => upstreamMessages.filter((t) => t === 'complete').length;
    const subscribes = () => upstreamMessages.filter((t) => t === 'subscribe').length;
    const subscribedBefore = subscribes();
    const completedBefore = completes();
    // Not lazy: the client keeps its socket open after its last subscription completes.
    const { socket, client, unsubscribe } = await subscribed(false);
    await until(
      async () => live.size === before + 1 && subscribes() === subscribedBefore + 1,
      'the upstream subscription to reach the ledger',
    );
    unsubscribe(); // sends `complete`
    await until(async () => completes() === completedBefore + 1, 'the router to complete the upstream subscription');
    expect(socket.readyState).toBe(WebSocket.OPEN);
    // The upstream socket lives as long as the client's connection.
    await client.dispose();
    await until(async () => live.size === before, 'the upstream socket to close with the client');
  });

  it('forwards identical subscriptions of one caller once, and completes it upstream with the last of them', async () => {
    const completes = () => upstreamMessages.filter((t) => t === 'complete').length;
    const subscribes = () => upstreamMessages.filter((t) => t === 'subscribe').length;
    const subscribedBefore = subscribes();
    const completedBefore = completes();
    const a = await subscribed(true, token, 'shared_never_appended');
    const b = await subscribed(true, token, 'shared_never_appended');
    await until(async () => subscribes() === subscribedBefore + 1, 'the one upstream subscription');
    // Another caller's identical subscription is forwarded on its own.
    const other = await subscribed(true, await p.login(DEV.user.username, DEV.user.password), 'shared_never_appended');
    await until(async () => subscribes() === subscribedBefore + 2, "the other caller's upstream subscription");
    await new Promise((r) => setTimeout(r, 300));
    expect(subscribes()).toBe(subscribedBefore + 2);
    a.socket.terminate();
    await new Promise((r) => setTimeout(r, 300));
    expect(completes()).toBe(completedBefore);
    b.socket.terminate();
    other.socket.terminate();
    await until(async () => completes() === completedBefore + 2, 'both upstream subscriptions to be completed');
  });

  // Last: it closes the platform. A subscriber still connected at shutdown used to hold the
  // gateway's HTTP server open for ever (its close waited on the upgraded socket).
  it('shuts down with a subscriber still connected, telling it the server is going away', async () => {
    const { socket } = await subscribed(false);
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    const platform = p;
    p = undefined as unknown as Platform;
    await platform.close();
    expect(await closed).toBe(1001);
  });
});
