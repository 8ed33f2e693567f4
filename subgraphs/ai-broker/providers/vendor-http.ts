// One JSON POST to a vendor over a pool of kept-alive connections. The answer path (one
// completion, no stream) goes through here rather than the vendor SDK's fetch: at 50 concurrent
// calls the SDK's request building and undici's WHATWG fetch (headers objects, web streams, abort
// wiring) cost more main-thread CPU than the rest of the broker's call (docs/benchmarks.md, branch
// ai). Streams and probes stay on the SDKs.
//
// Two wires, the same request and answer: with tracing off, an undici `Pool` (kept-alive HTTP/1.1
// connections, llhttp reading the vendor's bytes; about 40% of the main-thread CPU of Node's
// client a call); with tracing on, Node's `http` client, which the HTTP instrumentation traces (a
// client span, and the traceparent sent to the vendor).
//
// Failures keep the SDKs' shape, so `providerErrorOf` reads them the same way: an HTTP error
// carries `status`, `headers.get()` (Retry-After) and the vendor's parsed `error` body; a
// connection failure has no status (unavailable); an aborted call rejects with the signal's
// reason (the executor's timeout).
import http from 'node:http';
import https from 'node:https';
import { Pool } from 'undici';
import { tracingStarted } from '../../../platform/telemetry/trace-context';

// What Node's `http` accepts in a header value (validateHeaderValue), less the bytes above 0x7e,
// which Node would send as Latin-1 and undici as UTF-8: a key is ASCII. Checked here for both
// wires, so a bad key fails the same way (a TypeError, nothing sent) whichever is in use.
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type VendorWire = 'undici' | 'node-http';

/** An HTTP error answer from the vendor; its message never quotes the body (it may echo the prompt). */
export class VendorHttpError extends Error {
  override name = 'VendorHttpError';
  constructor(
    readonly status: number,
    private readonly responseHeaders: Record<string, string | string[] | undefined>,
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
  /** The undici wire: its pool, the request path per base-relative path, the basic auth (if any). */
  private readonly pool?: Pool;
  private readonly paths = new Map<string, string>();
  private readonly basic?: string;

  /** `wire`: decided once, when the connection is made (tracing starts before any service is built). */
  constructor(baseUrl: string, wire: VendorWire = tracingStarted() ? 'node-http' : 'undici') {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const secure = this.base.protocol === 'https:';
    this.transport = secure ? https : http;
    // Node's agent retires an idle socket a second before the server's `Keep-Alive: timeout`
    // hint, so a call rarely meets a connection the vendor is closing; LIFO reuses the warmest
    // socket and lets the others age out after a burst.
    const options = { keepAlive: true, scheduling: 'lifo' as const };
    this.agent = secure ? new https.Agent(options) : new http.Agent(options);
    if (wire === 'undici') {
      // As many connections as calls in flight, one request at a time on each (no pipelining),
      // the first idle one reused (the later ones age out after a burst; undici frees a connection
      // a tick after its answer, so a caller sending at once may open a second), an idle one retired a
      // second before the server's `Keep-Alive: timeout` (4 s when it gives none). undici never
      // retries a request by itself (the executor fails over), and unrefs idle sockets, so they
      // never keep the process alive. User info is not part of an origin: it is sent as basic auth.
      this.pool = new Pool(this.base.origin, { keepAliveTimeoutThreshold: 1000 });
      const { username, password } = this.base;
      if (username || password)
        this.basic = `Basic ${Buffer.from(`${decodeURIComponent(username)}:${decodeURIComponent(password)}`).toString('base64')}`;
    }
  }

  /** The request target for a path relative to the base URL. */
  private path(path: string): string {
    let p = this.paths.get(path);
    if (p === undefined) {
      const url = new URL(path, this.base);
      p = `${url.pathname}${url.search}`;
      this.paths.set(path, p);
    }
    return p;
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
    // The values come from configuration (a key): a line break in one must not start a header.
    for (const name in extraHeaders)
      if (!HEADER_NAME.test(name) || !HEADER_VALUE.test(extraHeaders[name]!))
        return Promise.reject(new TypeError(`Invalid character in header content ["${name}"]`));
    return this.pool
      ? this.postOnPool(this.pool, path, extraHeaders, body, signal)
      : this.postOnHttp(path, extraHeaders, body, signal);
  }

  private async postOnPool(
    pool: Pool,
    path: string,
    extraHeaders: Record<string, string>,
    body: unknown,
    signal: AbortSignal,
  ): Promise<unknown> {
    // A flat name/value list: undici copies it without looking names up (Host and Content-Length
    // are its own).
    const headers = ['accept', 'application/json', 'content-type', 'application/json'];
    let authorization = false;
    for (const name in extraHeaders) {
      if (name.toLowerCase() === 'authorization') authorization = true;
      headers.push(name, extraHeaders[name]!);
    }
    if (this.basic && !authorization) headers.push('authorization', this.basic);
    const res = await pool.request({
      path: this.path(path),
      method: 'POST',
      headers,
      body: JSON.stringify(body),
      signal,
    });
    return answerOf(res.statusCode, res.headers, await res.body.text());
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
    void this.pool?.destroy();
  }
}

/** A 2xx answer's parsed JSON; otherwise throws the SDK-shaped error. */
function answerOf(status: number, headers: Record<string, string | string[] | undefined>, text: string): unknown {
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
