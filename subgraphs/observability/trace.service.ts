// The observability domain: ingest OTLP spans, read a trace, search spans. Reads follow the
// platform's one tenant rule (TenantAccess): a caller sees its own tenant's traces; another
// tenant's trace is NOT_FOUND, as a missing one is. Queries are bounded: a window of at most
// seven days (an hour by default) and at most 100 spans; a trace of at most 5,000 spans.
import type { Caller } from '../../platform/auth/caller';
import { requireAuth } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { InputError, NotFoundError, type InputIssue } from '../../platform/errors/domain-errors';
import { decodeOtlpTraces } from './otlp.decode';
import type { SpanStore } from './span.store';
import {
  MAX_SEARCH_LIMIT,
  MAX_SEARCH_WINDOW_MS,
  MAX_TRACE_SPANS,
  type SpanRecord,
  type SpanSearch,
} from './observability.types';

const TRACE_ID = /^[0-9a-f]{32}$/;

export class TraceService {
  constructor(
    private readonly store: SpanStore,
    private readonly access: TenantAccess,
    private readonly clock: () => number = Date.now,
  ) {}

  /** OTLP/HTTP JSON in; answers how many spans were stored. */
  async ingest(body: unknown): Promise<{ accepted: number }> {
    const spans = decodeOtlpTraces(body);
    await this.store.insert(spans);
    return { accepted: spans.length };
  }

  async trace(caller: Caller, traceId: string, tenantId?: string): Promise<{ traceId: string; spans: SpanRecord[] }> {
    requireAuth(caller);
    const tenant = await this.access.resolve(caller, tenantId, ['tenantId'], 'observability.read');
    if (!TRACE_ID.test(traceId)) throw new NotFoundError('Trace not found');
    const spans = await this.store.trace(tenant, traceId, MAX_TRACE_SPANS);
    if (spans.length === 0) throw new NotFoundError('Trace not found');
    return { traceId, spans };
  }

  async search(caller: Caller, search: SpanSearch & { tenantId?: string }): Promise<SpanRecord[]> {
    requireAuth(caller);
    const tenant = await this.access.resolve(caller, search.tenantId, ['tenantId'], 'observability.read');
    const issues: InputIssue[] = [];
    const to = search.to === undefined ? this.clock() : Date.parse(search.to);
    const from = search.from === undefined ? to - 3600_000 : Date.parse(search.from);
    if (Number.isNaN(to)) issues.push({ loc: ['to'], msg: 'Input should be an ISO 8601 time', type: 'value_error' });
    if (Number.isNaN(from))
      issues.push({ loc: ['from'], msg: 'Input should be an ISO 8601 time', type: 'value_error' });
    else if (to - from > MAX_SEARCH_WINDOW_MS || to < from)
      issues.push({ loc: ['from'], msg: 'The window must be at most 7 days, from before to', type: 'value_error' });
    const limit = search.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT)
      issues.push({ loc: ['limit'], msg: `Input should be between 1 and ${MAX_SEARCH_LIMIT}`, type: 'value_error' });
    if (issues.length > 0) throw new InputError(issues);
    return this.store.search(tenant, {
      ...search,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      limit,
    });
  }

  /** Retention: spans received longer ago than `retainMs` go. */
  prune(retainMs: number): Promise<number> {
    return this.store.prune(new Date(this.clock() - retainMs));
  }
}
