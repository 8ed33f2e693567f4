// Which peers may tell us who the client is. Behind a load balancer every request arrives from the
// balancer's address, so a limit per address would be one limit for everyone; the balancer says
// who its client was in X-Forwarded-For. That header is only believed from the addresses listed
// here (TRUSTED_PROXIES): anyone else could write any address into it and get a fresh budget per
// request. Empty trusts nobody, and the client address is the TCP peer.
//
// The client address is the right-most address of the chain (TCP peer, then X-Forwarded-For read
// from right to left) that is not a trusted proxy: each trusted hop appended the address it saw,
// and everything left of the first untrusted hop was written by that client and may be forged.
// This is the rule of Fastify's `trustProxy` (proxy-addr), and `trust` below is handed to Fastify
// as that option, so request.ip and the graphql-ws upgrade (which has no Fastify request) agree.
import { BlockList, isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';

export interface TrustedProxies {
  /** The entries as configured (for logs and docs). */
  readonly entries: readonly string[];
  /** Whether `address` is a trusted proxy; `hop` is unused but keeps Fastify's trustProxy signature. */
  trust(address: string | undefined, hop?: number): boolean;
}

const IPV4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:10.0.0.1` (an IPv4 peer seen by a dual-stack socket) is the IPv4 address it carries. */
function unmapped(address: string): string {
  return IPV4_MAPPED.exec(address)?.[1] ?? address;
}

/**
 * Parses a comma list of IPv4/IPv6 addresses and CIDR ranges (`10.0.0.5, 10.1.0.0/16, ::1,
 * fd00::/8`). Throws on an entry that is neither, naming it, so a typo stops the process at start
 * instead of silently trusting nobody (or everybody).
 */
export function parseTrustedProxies(list: string | undefined): TrustedProxies {
  const entries = (list ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const blocks = new BlockList();
  for (const entry of entries) {
    const [rawAddress, prefix, extra] = entry.split('/');
    const address = unmapped(rawAddress!);
    const family = isIP(address);
    if (family === 0 || extra !== undefined) throw new Error(`not an IP address or CIDR range: "${entry}"`);
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      blocks.addAddress(address, type);
      continue;
    }
    const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
    if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) throw new Error(`bad prefix length in "${entry}"`);
    blocks.addSubnet(address, bits, type);
  }
  return {
    entries,
    trust(address) {
      if (!address || entries.length === 0) return false;
      const plain = unmapped(address);
      const family = isIP(plain);
      // Anything that is not an address (a port suffix, `unknown`, a zone id) is never a proxy.
      if (family === 0) return false;
      return blocks.check(plain, family === 4 ? 'ipv4' : 'ipv6');
    },
  };
}

/** X-Forwarded-For's addresses, right-most first, as proxy-addr reads them (empty entries skipped). */
function forwardedFor(header: string | string[] | undefined): string[] {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return [];
  return value
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
    .reverse();
}

/** The client address of a raw request (for the WebSocket upgrade; Fastify routes use request.ip). */
export function clientAddress(
  request: Pick<IncomingMessage, 'headers' | 'socket'>,
  proxies: TrustedProxies,
): string | undefined {
  const peer = request.socket.remoteAddress;
  let client = peer;
  if (!proxies.trust(peer, 0)) return client;
  for (const [i, hop] of forwardedFor(request.headers['x-forwarded-for']).entries()) {
    client = hop;
    if (!proxies.trust(hop, i + 1)) break;
  }
  return client;
}
