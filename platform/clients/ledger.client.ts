// Typed HTTP client for the ledger's append route (spec 03: POST /append), used by the outbox
// relay and by any service that logs to the ledger. Errors say whether a retry can help.
import type { DelegatedIdentity } from '../auth/service-identity';
import {
  expandIndexedBatch,
  type LedgerAppendRequest,
  type LedgerAppendResponse,
  type LedgerIndexedInclusionBatch,
  type LedgerInclusionBatch,
  type LedgerInclusionProof,
} from '../contracts/clients/ledger.api';
import { credentialHeaders, serviceRequest, ServiceCallError, type ServiceCallContext } from './service-request';

// Re-exported so callers keep importing the client's module; the types live in platform/contracts.
export type { LedgerAppendRequest, LedgerAppendResponse, LedgerInclusionBatch, LedgerInclusionProof };

export class LedgerClientError extends Error {
  override name = 'LedgerClientError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface LedgerClient {
  append(event: LedgerAppendRequest, options?: { correlationId?: string }): Promise<LedgerAppendResponse>;
  /**
   * `POST /v1/ledger/append/batch`: several events (each with an idempotency key) in one call and
   * in order, one result each. All or nothing at the door; a failure after that may leave some
   * stored, which the keys make safe to send again. Absent on clients that only append one.
   */
  appendBatch?(events: readonly LedgerAppendRequest[]): Promise<LedgerAppendBatchResult[]>;
}

export interface LedgerAppendBatchResult extends LedgerAppendResponse {
  replayed: boolean;
}

export interface LedgerClientOptions {
  /** e.g. http://127.0.0.1:8136 (serviceUrl(env, 'ledger')). */
  baseUrl: string;
  /** A bearer token for REQUIRE_AUTH=true ledgers (a service account's), fetched per call. */
  token?: () => Promise<string | undefined> | string | undefined;
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export function createLedgerClient(options: LedgerClientOptions): LedgerClient {
  const doFetch = options.fetch ?? fetch;
  const base = options.baseUrl.replace(/\/+$/, '');
  async function post<T>(route: string, body: unknown, headers: Record<string, string>): Promise<T> {
    const token = await options.token?.();
    if (token) headers.authorization = `Bearer ${token}`;
    let res: Response;
    try {
      res = await doFetch(`${base}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (err) {
      throw new LedgerClientError(`ledger unreachable: ${(err as Error).message}`, undefined, true);
    }
    const text = await res.text();
    if (!res.ok) {
      // 408/429/5xx are passing conditions; other 4xx mean this request will never succeed as is.
      const retryable = res.status >= 500 || res.status === 429 || res.status === 408;
      throw new LedgerClientError(`ledger answered ${res.status}: ${text.slice(0, 500)}`, res.status, retryable);
    }
    return JSON.parse(text) as T;
  }
  return {
    append(event, callOptions = {}) {
      const headers: Record<string, string> = { 'x-tenant-id': event.tenant_id };
      if (callOptions.correlationId) headers['x-correlation-id'] = callOptions.correlationId;
      return post<LedgerAppendResponse>('/append', event, headers);
    },
    async appendBatch(events) {
      const headers: Record<string, string> = events[0] ? { 'x-tenant-id': events[0].tenant_id } : {};
      return (await post<{ results: LedgerAppendBatchResult[] }>('/v1/ledger/append/batch', { events }, headers))
        .results;
    },
  };
}

/** The ledger's proof routes (docs/ledger.md, "Proofs"), for services that keep ledger entry ids. */
export interface LedgerProofClient {
  /** An entry's inclusion proof against the tenant's latest signed checkpoint (ServiceCallError 404: no such entry). */
  inclusion(context: ServiceCallContext, entryId: string, treeSize?: number): Promise<LedgerInclusionProof>;
  /** Up to 1,000 entries' proofs against the existing checkpoint of `treeSize`, in one call. */
  inclusionBatch(
    context: ServiceCallContext & { tenantId: string },
    entryIds: string[],
    treeSize: number,
  ): Promise<LedgerInclusionBatch>;
  /**
   * Every proof of many entries against the existing checkpoint of `treeSize`, from the
   * checkpoint's tree built once by the ledger (POST /v1/ledger/proofs/inclusion/stream, NDJSON),
   * in batches in seq order; ids not in the tenant's tree come back in `not_found`. More ids than
   * one request takes go in several requests, one after the other. ServiceCallError on a refusal
   * (its status) or on an answer cut short (no status: a retry can help).
   */
  inclusionStream(
    context: ServiceCallContext & { tenantId: string },
    entryIds: readonly string[],
    treeSize: number,
    options?: { batchSize?: number; timeoutMs?: number },
  ): AsyncIterable<LedgerInclusionBatch>;
  /** A checkpoint of the tenant's log as it stands now (ServiceCallError 429: the ledger's per-tenant limit). */
  checkpoint(context: ServiceCallContext & { tenantId: string }): Promise<LedgerCheckpoint>;
}

/** A signed checkpoint in wire names (docs/ledger.md, "Checkpoints"). */
export interface LedgerCheckpoint {
  format: string;
  id: string;
  tenant_id: string;
  tree_size: number;
  root_hash: string;
  timestamp: string;
  key_id: string;
  signature: string;
}

/** `identity`: the calling service's, used for callers without a token (service-request.ts). */
export function createLedgerProofClient(baseUrl: string, identity?: DelegatedIdentity): LedgerProofClient {
  const endpoint = { baseUrl, identity };
  return {
    inclusion: (context, entryId, treeSize) =>
      serviceRequest(endpoint, 'v1/ledger/proofs/inclusion', context, {
        query: { entry_id: entryId, tree_size: treeSize },
        timeoutMs: 10_000,
      }),
    inclusionBatch: (context, entryIds, treeSize) =>
      serviceRequest(endpoint, 'v1/ledger/proofs/inclusion/batch', context, {
        method: 'POST',
        body: { tenant_id: context.tenantId, entry_ids: entryIds, tree_size: treeSize },
        timeoutMs: 30_000,
      }),
    async *inclusionStream(context, entryIds, treeSize, options = {}) {
      for (let i = 0; i < entryIds.length; i += INCLUSION_STREAM_MAX)
        yield* streamedBatches(
          endpoint,
          context,
          {
            tenant_id: context.tenantId,
            tree_size: treeSize,
            entry_ids: entryIds.slice(i, i + INCLUSION_STREAM_MAX),
            batch_size: options.batchSize,
          },
          options.timeoutMs ?? 600_000,
        );
    },
    checkpoint: (context) =>
      serviceRequest(endpoint, 'v1/ledger/checkpoints', context, {
        method: 'POST',
        body: { tenant_id: context.tenantId },
        timeoutMs: 10_000,
      }),
  };
}

/** One proof of a batch as the single-entry route answers it (what verifier/verify-proof.cjs reads). */
export function inclusionOf(
  batch: LedgerInclusionBatch,
  proof: LedgerInclusionBatch['proofs'][number],
): LedgerInclusionProof {
  return {
    type: 'inclusion',
    tenant_id: batch.tenant_id,
    leaf_index: proof.leaf_index,
    tree_size: batch.tree_size,
    entry: proof.entry,
    audit_path: proof.audit_path,
    checkpoint: batch.checkpoint,
  };
}

/** The ledger's most ids a stream request (its INCLUSION_STREAM_MAX). */
const INCLUSION_STREAM_MAX = 1_000_000;

/** One stream request: its NDJSON lines, parsed as they arrive, batches yielded until the `end` line. */
async function* streamedBatches(
  endpoint: { baseUrl: string; identity?: DelegatedIdentity },
  context: ServiceCallContext,
  body: Record<string, unknown>,
  timeoutMs: number,
): AsyncGenerator<LedgerInclusionBatch> {
  const path = 'v1/ledger/proofs/inclusion/stream';
  const base = endpoint.baseUrl.endsWith('/') ? endpoint.baseUrl : `${endpoint.baseUrl}/`;
  const url = new URL(path, base);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/x-ndjson',
        'content-type': 'application/json',
        ...(await credentialHeaders(context, endpoint.identity)),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new ServiceCallError(`${url.origin} unreachable: ${(err as Error).message}`, undefined, undefined);
  }
  if (!res.ok) {
    const text = await res.text().catch(() => '');
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    throw new ServiceCallError(`${url.pathname} answered ${res.status}`, res.status, parsed);
  }
  if (!res.body) throw new ServiceCallError(`${url.pathname} answered without a body`, undefined, undefined);
  const decoder = new TextDecoder();
  // A line (a batch of thousands of proofs) spans many chunks: only each new chunk is searched.
  const parts: string[] = [];
  let ended = false;
  const line = (text: string): LedgerInclusionBatch | undefined => {
    const doc = JSON.parse(text) as { type?: string; detail?: unknown };
    if (doc.type === 'inclusion_batch') return expandIndexedBatch(doc as LedgerIndexedInclusionBatch);
    if (doc.type === 'end') ended = true;
    else if (doc.type === 'error')
      throw new ServiceCallError(`${url.pathname} failed mid-answer: ${String(doc.detail)}`, undefined, doc);
    return undefined;
  };
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      let text = decoder.decode(chunk, { stream: true });
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n')) {
        parts.push(text.slice(0, nl));
        text = text.slice(nl + 1);
        const whole = parts.join('');
        parts.length = 0;
        const batch = whole ? line(whole) : undefined;
        if (batch) yield batch;
      }
      if (text) parts.push(text);
    }
  } catch (err) {
    if (err instanceof ServiceCallError) throw err;
    throw new ServiceCallError(`${url.origin} stopped answering: ${(err as Error).message}`, undefined, undefined);
  }
  const last = parts.join('') + decoder.decode();
  if (last.trim()) line(last);
  // No `end` line: the answer was cut short (the ledger stopped, a proxy's limit), never complete.
  if (!ended) throw new ServiceCallError(`${url.pathname} answer ended before its end line`, undefined, undefined);
}
