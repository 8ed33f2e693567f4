// One JSON POST to a vendor over a pool of kept-alive connections. The answer path (one
// completion, no stream) goes through here rather than the vendor SDK's fetch: at 50 concurrent
// calls the SDK's request building and undici's WHATWG fetch (headers objects, web streams, abort
// wiring) cost more main-thread CPU than the rest of the broker's call (docs/benchmarks.md, branch
// ai). Streams and probes stay on the SDKs.
//
// Two wires, the same request and answer: with tracing off, the broker's own HTTP/1.1 connections
// (vendor-socket.ts, a third of the CPU of Node's client); with tracing on, Node's `http` client,
// which the HTTP instrumentation traces (a client span, and the traceparent sent to the vendor).
//
// Failures keep the SDKs' shape, so `providerErrorOf` reads them the same way: an HTTP error
// carries `status`, `headers.get()` (Retry-After) and the vendor's parsed `error` body; a
// connection failure has no status (unavailable); an aborted call rejects with the signal's
// reason (the executor's timeout).
import http from 'node:http';
import https from 'node:https';
import { tracingStarted } from '../../../platform/telemetry/trace-context';
import { VendorSocketPool } from './vendor-socket';

// What Node's `http` accepts in a header value (validateHeaderValue), less the bytes above 0x7e,
// which it would send as Latin-1 and the socket wire as UTF-8: a key is ASCII.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type VendorWire = 'socket' | 'node-http';

/** An HTTP error answer from the vendor; its message never quotes the body (it may echo the prompt). */
export class VendorHttpError extends Error {
  override name = 'VendorHttpError';
  constructor(
    readonly status: number,
    private readonly responseHeaders: http.IncomingHttpHeaders | Record<string, string>,
    /** The vendor's error body, parsed when it is JSON (read for "context length" wording). */
    readonly error: unknown,
  ) {
    super(`vendor answered HTTP ${status}`);
  }

  get headers(): { get(name: string): string | null } {
    const h = this.responseHeaders;
    return {
      get: (name) => {
        const v = h[name.toLowerCase()];
        return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
      },
    };
  }
}

/** Connections to one vendor base URL (`https://api.openai.com/v1`), reused across calls. */
export class VendorConnection {
  private readonly base: URL;
  private readonly agent: http.Agent;
  private readonly transport: typeof http | typeof https;
  /** Request options per path, built once: parsing a URL on every call was a tenth of its CPU. */
  private readonly targets = new Map<string, http.RequestOptions>();
  /** The socket wire: its pool, and per path the request's first lines. */
  private readonly sockets?: VendorSocketPool;
  private readonly heads = new Map<string, string>();

  /** `wire`: decided once, when the connection is made (tracing starts before any service is built). */
  constructor(baseUrl: string, wire: VendorWire = tracingStarted() ? 'node-http' : 'socket') {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const secure = this.base.protocol === 'https:';
    this.transport = secure ? https : http;
    // Node's agent retires an idle socket a second before the server's `Keep-Alive: timeout`
    // hint, so a call rarely meets a connection the vendor is closing; LIFO reuses the warmest
    // socket and lets the others age out after a burst.
    const options = { keepAlive: true, scheduling: 'lifo' as const };
    this.agent = secure ? new https.Agent(options) : new http.Agent(options);
    if (wire === 'socket') {
      const host = this.base.hostname.startsWith('[') ? this.base.hostname.slice(1, -1) : this.base.hostname;
      this.sockets = new VendorSocketPool({ secure, host, port: Number(this.base.port || (secure ? 443 : 80)) });
    }
  }

  /** The request line and fixed headers for a path, as Node's client would write them. */
  private head(path: string): string {
    let h = this.heads.get(path);
    if (h === undefined) {
      const url = new URL(path, this.base);
      // `URL.host` omits the default port and brackets an IPv6 address, like Node's Host header.
      h = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\nContent-Type: application/json\r\nConnection: keep-alive\r\n`;
      this.heads.set(path, h);
    }
    return h;
  }

  private basicAuth(): string | undefined {
    const { username, password } = this.base;
    if (!username && !password) return undefined;
    const credentials = `${decodeURIComponent(username)}:${decodeURIComponent(password)}`;
    return `Basic ${Buffer.from(credentials).toString('base64')}`;
  }

  private target(path: string): http.RequestOptions {
    let t = this.targets.get(path);
    if (!t) {
      const url = new URL(path, this.base);
      t = {
        protocol: url.protocol,
        hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: this.agent,
        // User info in the base URL (a local server behind basic auth), as Node reads it from a URL.
        ...(url.username || url.password
          ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
          : {}),
      };
      this.targets.set(path, t);
    }
    return t;
  }

  /** POSTs `body` as JSON to `path` (relative to the base URL) and resolves with the parsed 2xx answer. */
  post(path: string, extraHeaders: Record<string, string>, body: unknown, signal: AbortSignal): Promise<unknown> {
    return this.sockets
      ? this.postOnSocket(this.sockets, path, extraHeaders, body, signal)
      : this.postOnHttp(path, extraHeaders, body, signal);
  }

  private async postOnSocket(
    sockets: VendorSocketPool,
    path: string,
    extraHeaders: Record<string, string>,
    body: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const payload = JSON.stringify(body);
    let request = this.head(path);
    let authorization = false;
    for (const name in extraHeaders) {
      const value = extraHeaders[name]!;
      // The values come from configuration (a key): a line break in one must not start a header.
      if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(value))
        throw new TypeError(`Invalid character in header content ["${name}"]`);
      if (name.toLowerCase() === 'authorization') authorization = true;
      request += `${name}: ${value}\r\n`;
    }
    const basic = authorization ? undefined : this.basicAuth();
    if (basic) request += `Authorization: ${basic}\r\n`;
    request += `Content-Length: ${Buffer.byteLength(payload)}\r\n\r\n${payload}`;
    const res = await sockets.exchange(request, signal);
    return answerOf(res.status, res.headers, res.body.toString('utf8'));
  }

  private postOnHttp(
    path: string,
    extraHeaders: Record<string, string>,
    body: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const headers: http.OutgoingHttpHeaders = {
      ...extraHeaders,
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': payload.length,
    };
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const req = this.transport.request({ ...this.target(path), headers });
      const onAbort = () => req.destroy(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      req.on('error', (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', () => undefined); // the request's 'error' handler rejects
        res.on('end', () => {
          signal.removeEventListener('abort', onAbort);
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          try {
            resolve(answerOf(res.statusCode ?? 0, res.headers, text));
          } catch (err) {
            reject(err);
          }
        });
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
    this.sockets?.close();
  }
}

/** A 2xx answer's parsed JSON; otherwise throws the SDK-shaped error. */
function answerOf(status: number, headers: http.IncomingHttpHeaders | Record<string, string>, text: string): unknown {
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (status >= 200 && status < 300) {
    if (parsed === undefined) throw new Error(`vendor answered HTTP ${status} without a JSON body`);
    return parsed;
  }
  // Both vendors wrap the detail in `error`; the SDKs expose that member the same way.
  const detail = (parsed as { error?: unknown } | undefined)?.error ?? parsed;
  throw new VendorHttpError(status, headers, detail);
}
