// The guard against server-side request forgery: a webhook URL is the tenant's input, so without
// it a tenant could make the platform POST to its own loopback, the cloud metadata service
// (169.254.169.254) or the private network. Every address a host resolves to must be public
// unicast, unless the operator allows private addresses (EVENTS_WEBHOOK_ALLOW_PRIVATE) or lists
// the address (EVENTS_WEBHOOK_ALLOWED_ADDRESSES). The check runs at registration for a clear
// error, and again inside the connection's own DNS lookup at every delivery, so a name that
// re-resolves to a private address later (DNS rebinding) is refused on the very connection.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export class AddressRefusedError extends Error {
  override name = 'AddressRefusedError';
  readonly code = 'EWEBHOOKADDRESS';
}

export interface AddressPolicy {
  allowPrivate: boolean;
  allowedAddresses: string[];
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

function parseAllowed(entries: string[]): Range[] {
  return entries.map((entry) => {
    if (entry.includes('/')) return ipaddr.parseCIDR(entry);
    const addr = ipaddr.process(entry);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  });
}

export interface AddressGuard {
  /** Why `address` (an IP literal) may not be connected to, or null when it may. */
  refusal(address: string): string | null;
  /** Resolves `hostname` (or takes an IP literal) and throws AddressRefusedError unless every address may be used. */
  resolve(hostname: string): Promise<string[]>;
  /** A `lookup` for node:http that applies the guard to the connection's own resolution. */
  lookup: typeof dnsLookup;
}

export function createAddressGuard(policy: AddressPolicy): AddressGuard {
  const allowed = parseAllowed(policy.allowedAddresses);

  function refusal(address: string): string | null {
    if (!ipaddr.isValid(address)) return `${address} is not an IP address`;
    // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
    const addr = ipaddr.process(address);
    if (allowed.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits))) return null;
    if (policy.allowPrivate) return null;
    const range = addr.range();
    // Only public unicast: everything else (loopback, private, link-local, multicast, carrier-grade
    // NAT, unique-local, NAT64/6to4/Teredo that may embed a private IPv4, reserved) is refused.
    return range === 'unicast' ? null : `${address} is a ${range} address`;
  }

  async function resolveAll(hostname: string): Promise<LookupAddress[]> {
    const bare = hostname.replace(/^\[|\]$/g, '');
    if (isIP(bare)) return [{ address: bare, family: isIP(bare) }];
    return new Promise((resolve, reject) =>
      dnsLookup(bare, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
    );
  }

  function check(hostname: string, addresses: LookupAddress[]): void {
    if (addresses.length === 0) throw new AddressRefusedError(`${hostname} resolves to no address`);
    for (const a of addresses) {
      const why = refusal(a.address);
      // Any refused address refuses the host: the connection could pick it.
      if (why) throw new AddressRefusedError(`refused: ${hostname} resolves to ${why}`);
    }
  }

  const lookup = ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (
      err: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void;
    const opts = (typeof options === 'object' && options ? options : {}) as { all?: boolean; family?: number };
    resolveAll(hostname).then(
      (addresses) => {
        const usable = opts.family ? addresses.filter((a) => a.family === opts.family) : addresses;
        try {
          check(hostname, usable);
        } catch (err) {
          cb(err as NodeJS.ErrnoException, opts.all ? [] : '', undefined);
          return;
        }
        if (opts.all) cb(null, usable);
        else cb(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => cb(err, opts.all ? [] : '', undefined),
    );
  }) as unknown as typeof dnsLookup;

  return {
    refusal,
    async resolve(hostname) {
      const addresses = await resolveAll(hostname);
      check(hostname, addresses);
      return addresses.map((a) => a.address);
    },
    lookup,
  };
}
