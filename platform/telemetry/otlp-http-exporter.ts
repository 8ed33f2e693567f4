// The span exporter of a platform process: OTLP/HTTP JSON POSTed to the traces URL, the body
// written by otlp-json.ts (redacted as it is written). It replaces @opentelemetry/exporter-trace-
// otlp-http, whose serializer (otlp-transformer's object tree, then JSON.stringify) is not
// pluggable: its transport is a nested copy of @opentelemetry/otlp-exporter-base that the platform
// cannot import by name. What that transport did is kept here, as the OTLP exporter spec asks:
// a keep-alive agent, a timeout per export (OTEL_EXPORTER_OTLP[_TRACES]_TIMEOUT, 10 s), headers
// (OTEL_EXPORTER_OTLP[_TRACES]_HEADERS), gzip when asked (OTEL_EXPORTER_OTLP[_TRACES]_COMPRESSION),
// and retries with backoff on 429/502/503/504 and network errors, Retry-After honoured, within the
// timeout. docs/decisions.md "Tracing: our own OTLP JSON writer".
import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import { ExportResultCode, suppressTracing, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import http from 'node:http';
import https from 'node:https';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { otlpTracesJson } from './otlp-json';

export interface OtlpHttpOptions {
  /** The OTLP/HTTP traces URL (…/v1/traces). */
  url: string;
  headers?: Record<string, string>;
  timeoutMillis?: number;
  compression?: 'gzip' | 'none';
}

type Attempt = { ok: true } | { ok: false; retryable: boolean; retryInMillis?: number; error: Error };

const gzip = promisify(zlib.gzip);
const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
// The OTLP exporter spec's retry schedule, as otlp-exporter-base has it.
const MAX_RETRIES = 5;
const INITIAL_BACKOFF = 1000;
const MAX_BACKOFF = 5000;
/** Exports in flight at most (otlp-exporter-base's bound): past it a batch is dropped, not queued. */
const MAX_IN_FLIGHT = 30;

function retryAfterMillis(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number.parseInt(header, 10);
  if (Number.isInteger(seconds)) return seconds > 0 ? seconds * 1000 : -1;
  const delay = new Date(header).getTime() - Date.now();
  return delay >= 0 ? delay : 0;
}

export class OtlpHttpSpanExporter implements SpanExporter {
  private readonly target: URL;
  private readonly client: typeof http | typeof https;
  private readonly agent: http.Agent;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly options: OtlpHttpOptions) {
    this.target = new URL(options.url);
    this.client = this.target.protocol === 'https:' ? https : http;
    this.agent = new this.client.Agent({ keepAlive: true });
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    if (this.closed) return done({ code: ExportResultCode.FAILED, error: new Error('the exporter is shut down') });
    if (this.inFlight.size >= MAX_IN_FLIGHT)
      return done({ code: ExportResultCode.FAILED, error: new Error('too many exports in flight') });
    let body: string;
    try {
      body = otlpTracesJson(spans);
    } catch (error) {
      return done({ code: ExportResultCode.FAILED, error: error as Error });
    }
    const sent: Promise<void> = this.send(body).then(
      (error) => done(error ? { code: ExportResultCode.FAILED, error } : { code: ExportResultCode.SUCCESS }),
      (error: Error) => done({ code: ExportResultCode.FAILED, error }),
    );
    this.inFlight.add(sent);
    void sent.finally(() => this.inFlight.delete(sent));
  }

  async forceFlush(): Promise<void> {
    await Promise.all(this.inFlight);
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    await this.forceFlush();
    this.agent.destroy();
  }

  /** Sends one body with the retries the spec asks for; answers the last error, or undefined on success. */
  private async send(text: string): Promise<Error | undefined> {
    const timeout = this.options.timeoutMillis ?? 10_000;
    const deadline = Date.now() + timeout;
    const gzipped = this.options.compression === 'gzip';
    const body = gzipped ? await gzip(text) : Buffer.from(text);
    let backoff = INITIAL_BACKOFF;
    for (let retry = 0; ; retry++) {
      const attempt = await this.post(body, gzipped, Math.max(deadline - Date.now(), 1));
      if (attempt.ok) return undefined;
      if (!attempt.retryable || retry === MAX_RETRIES) return attempt.error;
      const wait = attempt.retryInMillis ?? Math.min(backoff * (0.8 + Math.random() * 0.4), MAX_BACKOFF);
      backoff *= 1.5;
      if (wait > deadline - Date.now()) return attempt.error;
      await new Promise((resolve) => setTimeout(resolve, Math.max(wait, 0)).unref());
    }
  }

  private post(body: Buffer, gzipped: boolean, timeout: number): Promise<Attempt> {
    const headers: http.OutgoingHttpHeaders = {
      ...this.options.headers,
      'content-type': 'application/json',
      'content-length': body.length,
    };
    if (gzipped) headers['content-encoding'] = 'gzip';
    return new Promise((resolve) => {
      // The exporter's own request is not traced (instrumentation-http would make a span per export).
      context.with(suppressTracing(ROOT_CONTEXT), () => {
        const req = this.client.request(this.target, { method: 'POST', headers, agent: this.agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) return resolve({ ok: true });
            const error = new Error(
              `OTLP export: ${status} ${res.statusMessage ?? ''} ${Buffer.concat(chunks).toString().slice(0, 200)}`,
            );
            resolve({
              ok: false,
              retryable: RETRYABLE_STATUS.has(status),
              retryInMillis: retryAfterMillis(res.headers['retry-after']),
              error,
            });
          });
          res.on('error', (error) => resolve({ ok: false, retryable: true, error }));
        });
        req.setTimeout(timeout, () => {
          req.destroy();
          resolve({ ok: false, retryable: true, error: new Error('OTLP export timed out') });
        });
        req.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ ok: false, retryable: RETRYABLE_ERRORS.has(error.code ?? ''), error }),
        );
        req.end(body);
      });
    });
  }
}
