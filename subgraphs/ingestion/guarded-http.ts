// HTTP GET for the pull connector, guarded against server-side request forgery: only http(s), only
// hosts on the operator's allowlist (INGESTION_PULL_ALLOWED_HOSTS; empty means any public host), and
// never a private, loopback, link-local or otherwise non-public address unless the operator allows
// it (INGESTION_PULL_ALLOW_PRIVATE, for tests and on-premise sources). The address is checked in
// the socket's own DNS lookup, so the address connected to is the address checked (a name that
// resolves to a public address once and a private one the next time gains nothing). A deadline
// covers the whole exchange, redirects are not followed, and the body is cut at a byte limit.
import dns from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { InputError, PayloadTooLargeError } from '../../platform/errors/domain-errors';

export interface PullGuard {
  /** Host names (or `*.suffix`) a pull may reach; empty: any public host. */
  allowedHosts: readonly string[];
  /** Private and loopback addresses too (tests, on-premise sources). */
  allowPrivate: boolean;
  timeoutMs: number;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const refuse = (msg: string) => InputError.of(['source', 'url'], msg, 'value_error.url');

/** True for an address a pull may reach when private addresses are not allowed. */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  if (allowed.length === 0) return true;
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return allowed.some((a) => {
    const rule = a.toLowerCase();
    return rule.startsWith('*.') ? h.endsWith(rule.slice(1)) : h === rule;
  });
}

/** The URL checked for scheme and host before anything is sent. */
export function checkPullUrl(raw: string, guard: PullGuard): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('only http and https URLs are pulled');
  if (url.username || url.password) throw refuse('credentials go in source.username / source.password references');
  if (!hostAllowed(url.hostname, guard.allowedHosts)) {
    throw refuse(`the host ${url.hostname} is not on the pull allowlist (INGESTION_PULL_ALLOWED_HOSTS)`);
  }
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (!guard.allowPrivate && ipaddr.isValid(literal) && !isPublicAddress(literal)) {
    throw refuse(`the address ${literal} is private or reserved; pulls reach public addresses only`);
  }
  return url;
}

function guardedLookup(guard: PullGuard): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return (callback as (e: Error) => void)(err);
      const list = addresses as dns.LookupAddress[];
      const bad = guard.allowPrivate ? undefined : list.find((a) => !isPublicAddress(a.address));
      if (bad) {
        return (callback as (e: Error) => void)(
          refuse(
            `${hostname} resolves to ${bad.address}, a private or reserved address; pulls reach public addresses only`,
          ),
        );
      }
      if ((options as dns.LookupOptions).all)
        return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
    });
  };
}

export async function guardedGet(
  url: URL,
  guard: PullGuard,
  options: { maxBytes: number; headers?: Record<string, string> },
): Promise<GuardedResponse> {
  checkPullUrl(url.toString(), guard);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<GuardedResponse>((resolve, reject) => {
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      req.destroy();
      reject(err);
    };
    const tooLarge = () => new PayloadTooLargeError(`a pulled response is larger than ${options.maxBytes} bytes`);
    const req = client.get(
      url,
      { lookup: guardedLookup(guard), headers: { accept: 'application/json, text/csv, */*', ...options.headers } },
      (res) => {
        if (Number(res.headers['content-length'] ?? 0) > options.maxBytes) return fail(tooLarge());
        const parts: Buffer[] = [];
        let length = 0;
        res.on('data', (chunk: Buffer) => {
          length += chunk.length;
          if (length > options.maxBytes) return fail(tooLarge());
          parts.push(chunk);
        });
        res.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(deadline);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts) });
        });
        res.on('error', fail);
      },
    );
    const deadline = setTimeout(
      () => fail(refuse(`the pull did not answer within ${guard.timeoutMs} ms`)),
      guard.timeoutMs,
    );
    req.on('error', fail);
  });
}
