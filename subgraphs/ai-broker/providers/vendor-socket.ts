// Kept-alive TCP (or TLS) connections to one vendor, each carrying one request at a time: a
// request is written as one piece of HTTP/1.1 text, its answer read by vendor-response.ts. This is
// the answer path's wire when tracing is off (vendor-http.ts): Node's `http` client cost ~90 us of
// main-thread CPU a call at 50 concurrent calls (ClientRequest and IncomingMessage streams, the
// agent's bookkeeping, header validation), this ~30 us (docs/benchmarks.md, branch ai,
// 2026-11-29). Like Node's keep-alive agent: as many connections as calls in flight, the most
// recently used idle one first, an idle one retired a second before the server's
// `Keep-Alive: timeout`, idle connections never keep the process alive, and a failed request is
// not retried (the executor fails over).
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import tls from 'node:tls';
import { ResponseReader, type VendorResponse } from './vendor-response';

/** Published around each exchange (bench/server-time.support.ts times the vendor call with them). */
export const VENDOR_REQUEST_START = diagnostics.channel('ai-broker:vendor-request:start');
export const VENDOR_RESPONSE_FINISH = diagnostics.channel('ai-broker:vendor-response:finish');

export interface VendorOrigin {
  secure: boolean;
  host: string;
  port: number;
}

interface Exchange {
  reader: ResponseReader;
  settle(err: unknown, response?: VendorResponse): void;
}

interface Connection {
  socket: net.Socket;
  exchange?: Exchange;
  /** When an idle connection is to be retired (ms since the epoch; Infinity: no server hint). */
  retireAt: number;
}

const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

export class VendorSocketPool {
  /** Idle connections, most recently used last. */
  private readonly idle: Connection[] = [];

  constructor(private readonly origin: VendorOrigin) {}

  /** Writes `request` (head and body as one text) and resolves with the whole response. */
  exchange(request: string, signal: AbortSignal): Promise<VendorResponse> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const c = this.take();
      const token = {};
      if (VENDOR_REQUEST_START.hasSubscribers) VENDOR_REQUEST_START.publish({ request: token });
      const onAbort = () => {
        exchange.settle(signal.reason);
        c.socket.destroy();
      };
      const exchange: Exchange = {
        reader: new ResponseReader(),
        settle: (err, response) => {
          if (c.exchange !== exchange) return;
          c.exchange = undefined;
          signal.removeEventListener('abort', onAbort);
          if (VENDOR_RESPONSE_FINISH.hasSubscribers) VENDOR_RESPONSE_FINISH.publish({ request: token });
          if (response) {
            if (response.reusable && !c.socket.destroyed) this.release(c, response.keepAliveMs);
            else c.socket.destroy();
            resolve(response);
          } else {
            c.socket.destroy();
            reject(err);
          }
        },
      };
      c.exchange = exchange;
      signal.addEventListener('abort', onAbort, { once: true });
      c.socket.write(request);
    });
  }

  close(): void {
    for (const c of this.idle.splice(0)) c.socket.destroy();
  }

  private take(): Connection {
    const now = Date.now();
    for (let c = this.idle.pop(); c; c = this.idle.pop()) {
      if (c.retireAt > now && !c.socket.destroyed) {
        c.socket.ref();
        return c;
      }
      c.socket.destroy();
    }
    return this.connect();
  }

  private release(c: Connection, keepAliveMs: number | undefined): void {
    c.retireAt = keepAliveMs === undefined ? Infinity : Date.now() + keepAliveMs - 1000;
    c.socket.unref();
    this.idle.push(c);
  }

  private connect(): Connection {
    const { secure, host, port } = this.origin;
    const socket = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] })
      : net.connect({ host, port });
    socket.setNoDelay(true);
    const c: Connection = { socket, retireAt: Infinity };
    const forget = () => {
      const i = this.idle.indexOf(c);
      if (i >= 0) this.idle.splice(i, 1);
    };
    socket.on('data', (chunk: Buffer) => {
      const x = c.exchange;
      // Bytes nobody asked for: the connection is out of step with the server.
      if (!x) return socket.destroy();
      let response;
      try {
        response = x.reader.push(chunk);
      } catch (err) {
        return x.settle(err);
      }
      if (response) x.settle(undefined, response);
    });
    socket.on('end', () => {
      const x = c.exchange;
      const response = x?.reader.end();
      if (x) x.settle(response ? undefined : hangUp(), response);
      socket.destroy();
    });
    socket.on('error', (err) => c.exchange?.settle(err));
    socket.on('close', () => {
      forget();
      c.exchange?.settle(hangUp());
    });
    return c;
  }
}
