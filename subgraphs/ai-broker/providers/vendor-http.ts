// One JSON POST to a vendor over a pool of kept-alive connections (node:http / node:https). The
// answer path (one completion, no stream) goes through here rather than the vendor SDK's fetch:
// at 50 concurrent calls the SDK's request building and undici's WHATWG fetch (headers objects,
// web streams, abort wiring) cost more main-thread CPU than the rest of the broker's call
// (docs/benchmarks.md, branch ai). Streams and probes stay on the SDKs.
//
// Failures keep the SDKs' shape, so `providerErrorOf` reads them the same way: an HTTP error
// carries `status`, `headers.get()` (Retry-After) and the vendor's parsed `error` body; a
// connection failure has no status (unavailable); an aborted call rejects with the signal's
// reason (the executor's timeout).
import http from 'node:http';
import https from 'node:https';

/** An HTTP error answer from the vendor; its message never quotes the body (it may echo the prompt). */
export class VendorHttpError extends Error {
  override name = 'VendorHttpError';
  constructor(
    readonly status: number,
    private readonly responseHeaders: http.IncomingHttpHeaders,
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

  constructor(baseUrl: string) {
    this.base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const secure = this.base.protocol === 'https:';
    this.transport = secure ? https : http;
    // Node's agent retires an idle socket a second before the server's `Keep-Alive: timeout`
    // hint, so a call rarely meets a connection the vendor is closing; LIFO reuses the warmest
    // socket and lets the others age out after a burst.
    const options = { keepAlive: true, scheduling: 'lifo' as const };
    this.agent = secure ? new https.Agent(options) : new http.Agent(options);
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
          const status = res.statusCode ?? 0;
          let parsed: unknown;
          try {
            parsed = text === '' ? undefined : JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          if (status >= 200 && status < 300) {
            if (parsed === undefined) reject(new Error(`vendor answered HTTP ${status} without a JSON body`));
            else resolve(parsed);
            return;
          }
          // Both vendors wrap the detail in `error`; the SDKs expose that member the same way.
          const detail = (parsed as { error?: unknown } | undefined)?.error ?? parsed;
          reject(new VendorHttpError(status, res.headers, detail));
        });
      });
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
