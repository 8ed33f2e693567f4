// One HTTP attempt. node:http rather than fetch: its `lookup` hook lets the SSRF guard judge the
// addresses the connection actually uses (no gap between check and connect for DNS rebinding),
// and it follows no redirects (a 3xx is a failed attempt, never a hop to another host).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { AddressGuard } from './address.guard';
import { AddressRefusedError } from './address.guard';

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborts the attempt before its timeout (the worker stopping); the result is then `interrupted`. */
  signal?: AbortSignal;
}

export interface SendResult {
  /** `interrupted`: this process stopped it (shutting down); it says nothing of the receiver. */
  outcome: 'success' | 'http_error' | 'timeout' | 'network_error' | 'refused' | 'interrupted';
  statusCode: number | null;
  /** The first KiB of the answer, or the error's message. */
  response: string | null;
  durationMs: number;
}

const RESPONSE_KEEP = 1024;

export function createWebhookSender(guard: AddressGuard, now: () => number = performance.now.bind(performance)) {
  return async function send(req: SendRequest): Promise<SendResult> {
    const started = now();
    const done = (r: Omit<SendResult, 'durationMs'>): SendResult => ({ ...r, durationMs: Math.round(now() - started) });
    const url = new URL(req.url);
    // An IP literal never reaches `lookup`: judge it here.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) {
      const why = guard.refusal(host);
      if (why) return done({ outcome: 'refused', statusCode: null, response: `refused: ${why}` });
    }
    const timeout = AbortSignal.timeout(req.timeoutMs);
    const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<SendResult>((resolve) => {
      const request = client.request(
        url,
        {
          method: 'POST',
          headers: { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) },
          lookup: guard.lookup,
          signal,
          // A fresh connection per attempt: a pooled socket would skip the lookup (and the guard).
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          res.on('data', (chunk: Buffer) => {
            if (kept < RESPONSE_KEEP) chunks.push(chunk.subarray(0, RESPONSE_KEEP - kept));
            kept += chunk.length;
            // Enough read to log; the rest of a large answer is not worth the slot.
            if (kept >= RESPONSE_KEEP) res.destroy();
          });
          const finish = () => {
            const status = res.statusCode ?? 0;
            resolve(
              done({
                outcome: status >= 200 && status < 300 ? 'success' : 'http_error',
                statusCode: status,
                response: Buffer.concat(chunks).toString('utf8') || null,
              }),
            );
          };
          res.on('end', finish);
          res.on('close', finish);
          res.on('error', finish);
        },
      );
      request.on('error', (err: Error) => {
        if (err instanceof AddressRefusedError) {
          resolve(done({ outcome: 'refused', statusCode: null, response: err.message }));
        } else if (req.signal?.aborted && !timeout.aborted) {
          resolve(done({ outcome: 'interrupted', statusCode: null, response: 'the sending process stopped' }));
        } else if (signal.aborted) {
          resolve(done({ outcome: 'timeout', statusCode: null, response: `no answer within ${req.timeoutMs} ms` }));
        } else {
          resolve(done({ outcome: 'network_error', statusCode: null, response: err.message.slice(0, RESPONSE_KEEP) }));
        }
      });
      request.end(req.body);
    });
  };
}

export type WebhookSend = ReturnType<typeof createWebhookSender>;
