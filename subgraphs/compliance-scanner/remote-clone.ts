// Clones a checked remote repository (remote-url.ts) for one scan: a shallow clone (depth 1, one
// branch, no tags) with isomorphic-git into a fresh temporary directory that `dispose` removes.
// isomorphic-git's own node transport (simple-get) follows redirects and resolves names without
// asking us, so the scanner brings its own: every connection's address is checked in the
// socket's DNS lookup (a name that resolves to a private address is refused, and the address
// checked is the one connected to), redirects are not followed, all responses of one clone
// together are cut at SCANNER_MAX_CLONE_BYTES, and the clone has one deadline. The checkout is
// then read like a local root (repository-reader.ts: size and count limits, symlinks never
// followed). Errors name the host at most: a target URL never carries credentials anyway.
import dns from 'node:dns';
import { promises as fs } from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import git from 'isomorphic-git';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { DomainError, InputError, PayloadTooLargeError, UnavailableError } from '../../platform/errors/domain-errors';
import { addressAllowed, type RemotePolicy, type RemoteRepository } from './remote-url';

export interface CloneLimits {
  /** All responses of one clone together (the pack above all). */
  maxBytes: number;
  timeoutMs: number;
}

export interface Checkout {
  dir: string;
  dispose(): Promise<void>;
}

function guardedLookup(policy: RemotePolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      const fail = callback as (e: Error) => void;
      if (err) return fail(err);
      const list = addresses as dns.LookupAddress[];
      const bad = list.find((a) => !addressAllowed(a.address, policy));
      if (bad)
        return fail(
          InputError.of(
            ['repositoryPath'],
            `${hostname} resolves to a private or reserved address; remote repositories are cloned from public addresses only`,
            'value_error.url',
          ),
        );
      if ((options as dns.LookupOptions).all)
        return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
    });
  };
}

async function collect(body: GitHttpRequest['body']): Promise<Buffer | undefined> {
  if (!body) return undefined;
  const parts: Uint8Array[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) parts.push(chunk);
  return Buffer.concat(parts);
}

/** An isomorphic-git HTTP client bound to one clone's policy, byte budget and deadline. */
export function guardedTransport(policy: RemotePolicy, limits: CloneLimits, deadline: number): HttpClient {
  let received = 0;
  return {
    async request(req: GitHttpRequest): Promise<GitHttpResponse> {
      const url = new URL(req.url);
      const payload = await collect(req.body);
      const client = url.protocol === 'https:' ? https : http;
      return new Promise<GitHttpResponse>((resolve, reject) => {
        let settled = false;
        const fail = (err: Error) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          request.destroy();
          reject(err);
        };
        const tooLarge = () =>
          new PayloadTooLargeError(
            `The remote repository is larger than ${limits.maxBytes} bytes (SCANNER_MAX_CLONE_BYTES)`,
          );
        const request = client.request(
          url,
          { method: req.method ?? 'GET', headers: req.headers, lookup: guardedLookup(policy) },
          (res: IncomingMessage) => {
            const parts: Buffer[] = [];
            res.on('data', (chunk: Buffer) => {
              received += chunk.length;
              if (received > limits.maxBytes) return fail(tooLarge());
              parts.push(chunk);
            });
            res.on('end', () => {
              if (settled) return;
              settled = true;
              clearTimeout(timer);
              const headers: Record<string, string> = {};
              for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = String(v);
              const body = Buffer.concat(parts);
              resolve({
                url: req.url,
                method: req.method,
                statusCode: res.statusCode ?? 0,
                statusMessage: res.statusMessage ?? '',
                headers,
                body: (async function* () {
                  yield new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
                })(),
              });
            });
            res.on('error', fail);
          },
        );
        const timer = setTimeout(
          () =>
            fail(new UnavailableError(`The remote repository did not answer in time (SCANNER_CLONE_TIMEOUT_SECONDS)`)),
          Math.max(0, deadline - Date.now()),
        );
        request.on('error', fail);
        request.end(payload);
      });
    },
  };
}

/** A shallow clone of the remote in a fresh temporary directory; the caller disposes of it. */
export async function cloneRemote(
  remote: RemoteRepository,
  policy: RemotePolicy,
  limits: CloneLimits,
): Promise<Checkout> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'scanner-clone-'));
  const dispose = () => fs.rm(dir, { recursive: true, force: true });
  try {
    await git.clone({
      fs,
      http: guardedTransport(policy, limits, Date.now() + limits.timeoutMs),
      dir,
      url: remote.url,
      ...(remote.ref ? { ref: remote.ref } : {}),
      singleBranch: true,
      depth: 1,
      noTags: true,
    });
  } catch (err) {
    await dispose();
    if (err instanceof DomainError) throw err;
    const host = new URL(remote.url).host;
    const e = err as { code?: string; data?: { statusCode?: number } };
    if (e.code === 'NotFoundError')
      throw InputError.of(['repositoryPath'], `The ref ${remote.ref ?? '(default)'} was not found at ${host}`);
    const status = e.data?.statusCode ? ` (HTTP ${e.data.statusCode})` : '';
    throw new UnavailableError(`The remote repository at ${host} could not be cloned${status}`);
  }
  return { dir, dispose };
}
