// The router's graphql-ws sockets to subgraphs, shared by every client connection of one caller
// (issue 35: 10,000 idle subscriptions). A client connection used to open its own socket to each
// subgraph serving subscriptions, so N connections cost N sockets per subgraph (three file
// descriptors each in `npm start`: the router's, the subgraph's, and the client's). Now the
// connections that present the same bearer token for the same tenant share one socket per
// subgraph and multiplex their subscriptions over it; the socket closes when the last of them
// ends. The key is the exact token and tenant, so what the subgraph authenticated is exactly what
// every sharer presented: nothing crosses between callers.
import type { Client } from 'graphql-ws';

export interface UpstreamKey {
  subgraph: string;
  token: string;
  tenantId: string;
}

interface Entry {
  client: Client;
  users: number;
}

export class UpstreamPool {
  private readonly entries = new Map<string, Entry>();

  constructor(
    /** Opens a socket for a key not held yet (eager: connect now, not at the first subscribe). */
    private readonly open: (key: UpstreamKey, eager: boolean) => Client,
    private readonly onDisposeError: (err: unknown, subgraph: string) => void = () => {},
  ) {}

  /** Takes a share of the key's socket, opening it if no connection holds it. Pair with release(). */
  acquire(key: UpstreamKey, eager = false): Client {
    const id = keyOf(key);
    let entry = this.entries.get(id);
    if (!entry) {
      entry = { client: this.open(key, eager), users: 0 };
      this.entries.set(id, entry);
    }
    entry.users += 1;
    return entry.client;
  }

  /** Gives a share back; the last one closes the socket. */
  release(key: UpstreamKey): void {
    const id = keyOf(key);
    const entry = this.entries.get(id);
    if (!entry) return;
    entry.users -= 1;
    if (entry.users > 0) return;
    this.entries.delete(id);
    Promise.resolve(entry.client.dispose()).catch((err: unknown) => this.onDisposeError(err, key.subgraph));
  }

  /** Sockets open (or opening) now. */
  get size(): number {
    return this.entries.size;
  }
}

// NUL occurs in none of the parts: subgraph names are the registry's, a token was verified as a JWT
// (base64url and dots), a tenant id passed the tenant rule.
const keyOf = (key: UpstreamKey) => `${key.subgraph}\u0000${key.tenantId}\u0000${key.token}`;
