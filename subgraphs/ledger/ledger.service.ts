// The ledger's domain operations. Both doors (rest-compat/ledger.ts and resolvers.ts) are thin
// adapters over these functions. Each begins with the tenant access check, then validates, then
// reads or writes through the store with database retries.
import type { Readable } from 'node:stream';
import { ForbiddenError, InputError, NotFoundError, type InputIssue } from '../../platform/errors/domain-errors';
import { mayVerifyAllTenants, resolveTenant, type Caller } from './ledger.access';
import { GroupCommitter, type PreparedAppend } from './ledger-append.service';
import { exportCsv } from './ledger-export.service';
import { chainHash, canonicalEventData, contentHash, GENESIS_HASH } from './ledger.hash';
import type { LedgerStore } from './ledger.store';
import type { AppendInput, AppendResult, EventFilter, LedgerEvent, VerifyResult } from './ledger.types';
import { verifyTenantChain } from './ledger-verify.service';
import { withDbRetry } from '../../platform/db/db-retry';

export const MAX_STRING = 255;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface EventPage {
  events: LedgerEvent[];
  total: number;
  limit: number;
  offset: number;
}

export interface EventConnection {
  events: LedgerEvent[];
  hasNextPage: boolean;
  endCursor: string | null;
  /** Counted only when asked for: counting a long chain costs more than reading a page. */
  totalCount: () => Promise<number | null>;
}

export interface EntryVerification {
  entry_id: string;
  tenant_id: string;
  seq: number;
  created_at: string;
  valid: boolean;
  content_hash: { stored: string; recomputed: string; valid: boolean };
  chain_hash: { stored: string; recomputed: string; valid: boolean };
  previous_hash: { stored: string; expected: string; previous_entry_id: string | null; valid: boolean };
}

export interface AuditReport {
  tenant_id: string;
  start_time: string | null;
  end_time: string | null;
  total_events: number;
  counts_by_event_type: Record<string, number>;
  counts_by_user: Record<string, number>;
  chain: VerifyResult;
  first_hash: string | null;
  last_hash: string | null;
}

function checkString(issues: InputIssue[], field: string, value: unknown, required: boolean, max = MAX_STRING): void {
  if (value === undefined || value === null) {
    if (required) issues.push({ loc: ['body', field], msg: 'Field required', type: 'missing' });
    return;
  }
  if (typeof value !== 'string') issues.push({ loc: ['body', field], msg: 'Input should be a valid string', type: 'string_type' });
  else if (value.length > max) issues.push({ loc: ['body', field], msg: `String should have at most ${max} characters`, type: 'string_too_long' });
  else if (required && value.length === 0) issues.push({ loc: ['body', field], msg: 'String should have at least 1 character', type: 'string_too_short' });
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail the insert.
  else if (value.includes('\u0000')) issues.push({ loc: ['body', field], msg: 'String should not contain NUL characters', type: 'value_error' });
}

/** Validates an append (both doors) and canonicalises event_data once. */
export function prepareAppend(input: AppendInput): PreparedAppend {
  const issues: InputIssue[] = [];
  checkString(issues, 'tenant_id', input.tenantId, true);
  checkString(issues, 'event_type', input.eventType, true);
  checkString(issues, 'user_id', input.userId, false);
  checkString(issues, 'correlation_id', input.correlationId, false);
  checkString(issues, 'idempotency_key', input.idempotencyKey, false);
  checkString(issues, 'description', input.description, false, 1_000_000);
  let eventDataText = '';
  const data = input.eventData as unknown;
  if (data === undefined || data === null) issues.push({ loc: ['body', 'event_data'], msg: 'Field required', type: 'missing' });
  else if (typeof data !== 'object' || Array.isArray(data)) issues.push({ loc: ['body', 'event_data'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  else {
    try {
      eventDataText = canonicalEventData(data);
    } catch {
      issues.push({ loc: ['body', 'event_data'], msg: 'Input should contain only finite numbers', type: 'value_error' });
    }
  }
  if (issues.length > 0) throw new InputError(issues);
  return {
    tenantId: input.tenantId,
    eventType: input.eventType,
    eventDataText,
    userId: input.userId ?? null,
    correlationId: input.correlationId ?? null,
    description: input.description ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
  };
}

function checkPage(limit: number, offset: number): void {
  const issues: InputIssue[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) issues.push({ loc: ['query', 'limit'], msg: `Input should be between 1 and ${MAX_LIMIT}`, type: 'value_error' });
  if (!Number.isInteger(offset) || offset < 0) issues.push({ loc: ['query', 'offset'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal' });
  if (issues.length > 0) throw new InputError(issues);
}

export function encodeCursor(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const m = /^seq:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw InputError.of(['after'], 'Invalid cursor', 'value_error');
  return Number(m[1]);
}

export interface LedgerServiceDeps {
  store: LedgerStore;
  committer: GroupCommitter;
}

export type LedgerService = ReturnType<typeof createLedgerService>;

export function createLedgerService({ store, committer }: LedgerServiceDeps) {
  const read = <T>(work: () => Promise<T>) => withDbRetry(work);

  return {
    async append(caller: Caller, input: AppendInput): Promise<AppendResult> {
      // Shape first (a missing tenant_id is a 422), then whether this caller may write there.
      const prepared = prepareAppend(input);
      resolveTenant(caller, prepared.tenantId, ['body', 'tenant_id']);
      return committer.append(prepared);
    },

    async listEvents(caller: Caller, q: { tenantId?: string; filter: EventFilter; limit?: number; offset?: number; newestFirst?: boolean }): Promise<EventPage> {
      const tenantId = resolveTenant(caller, q.tenantId, ['query', 'tenant_id']);
      const limit = q.limit ?? DEFAULT_LIMIT;
      const offset = q.offset ?? 0;
      checkPage(limit, offset);
      const [events, total] = await Promise.all([
        read(() => store.listEvents(tenantId, q.filter, { limit, offset, newestFirst: q.newestFirst })),
        read(() => store.countEvents(tenantId, q.filter)),
      ]);
      return { events, total, limit, offset };
    },

    async eventsConnection(caller: Caller, q: { tenantId?: string; filter: EventFilter; first?: number; after?: string }): Promise<EventConnection> {
      const tenantId = resolveTenant(caller, q.tenantId, ['tenantId']);
      const first = q.first ?? 50;
      if (!Number.isInteger(first) || first < 1 || first > MAX_LIMIT) throw InputError.of(['first'], `first should be between 1 and ${MAX_LIMIT}`);
      const afterSeq = q.after ? decodeCursor(q.after) : 0;
      const rows = await read(() => store.eventsAfter(tenantId, q.filter, afterSeq, first + 1));
      const events = rows.slice(0, first);
      const last = events[events.length - 1];
      const totalCount = () => read(() => store.countEvents(tenantId, q.filter));
      return { events, hasNextPage: rows.length > first, endCursor: last ? encodeCursor(last.seq) : null, totalCount };
    },

    async getEvent(caller: Caller, q: { tenantId?: string; id: string }): Promise<LedgerEvent> {
      const tenantId = resolveTenant(caller, q.tenantId, ['query', 'tenant_id']);
      const event = UUID.test(q.id) ? await read(() => store.getEvent(tenantId, q.id)) : undefined;
      if (!event) throw new NotFoundError('Ledger entry not found');
      return event;
    },

    /** One tenant's chain, or every tenant's when the caller may and names none. */
    async verify(caller: Caller, q: { tenantId?: string }): Promise<VerifyResult> {
      if (q.tenantId === undefined && mayVerifyAllTenants(caller)) {
        let total = 0;
        for (const tenantId of await read(() => store.listChainTenants())) {
          const result = await read(() => verifyTenantChain(store, tenantId));
          total += result.total_events;
          if (!result.valid) return { valid: false, total_events: total, error: `Tenant ${tenantId}: ${result.error}` };
        }
        return { valid: true, total_events: total, error: null };
      }
      const tenantId = resolveTenant(caller, q.tenantId, ['query', 'tenant_id']);
      return read(() => verifyTenantChain(store, tenantId));
    },

    async verifyEntry(caller: Caller, q: { tenantId?: string; entryId: string }): Promise<EntryVerification> {
      const tenantId = resolveTenant(caller, q.tenantId, ['query', 'tenant_id']);
      const event = UUID.test(q.entryId) ? await read(() => store.getEvent(tenantId, q.entryId)) : undefined;
      if (!event) throw new NotFoundError('Ledger entry not found');
      const previous = event.seq > 1 ? await read(() => store.getEventBySeq(tenantId, event.seq - 1)) : undefined;
      const recomputedContent = contentHash({
        tenantId, eventType: event.eventType, eventDataCanonical: event.eventDataText, userId: event.userId, createdAt: event.createdAt,
      });
      const recomputedChain = chainHash(recomputedContent, event.previousHash);
      const expectedPrevious = event.seq === 1 ? GENESIS_HASH : previous?.chainHash ?? '';
      const content = { stored: event.contentHash, recomputed: recomputedContent, valid: recomputedContent === event.contentHash };
      const chain = { stored: event.chainHash, recomputed: recomputedChain, valid: recomputedChain === event.chainHash };
      const link = { stored: event.previousHash, expected: expectedPrevious, previous_entry_id: previous?.id ?? null, valid: expectedPrevious === event.previousHash };
      return {
        entry_id: event.id, tenant_id: tenantId, seq: event.seq, created_at: event.createdAt,
        valid: content.valid && chain.valid && link.valid, content_hash: content, chain_hash: chain, previous_hash: link,
      };
    },

    async auditReport(caller: Caller, q: { tenantId?: string; startTime?: string; endTime?: string }): Promise<AuditReport> {
      const tenantId = resolveTenant(caller, q.tenantId, ['body', 'tenant_id']);
      const filter: EventFilter = { startTime: q.startTime, endTime: q.endTime };
      const [byType, byUser, bounds, chain] = await Promise.all([
        read(() => store.countsBy(tenantId, 'event_type', filter)),
        read(() => store.countsBy(tenantId, 'user_id', filter)),
        read(() => store.hashBounds(tenantId, filter)),
        read(() => verifyTenantChain(store, tenantId)),
      ]);
      return {
        tenant_id: tenantId,
        start_time: q.startTime ?? null,
        end_time: q.endTime ?? null,
        total_events: byType.reduce((n, c) => n + c.count, 0),
        counts_by_event_type: Object.fromEntries(byType.map((c) => [c.key ?? '', c.count])),
        // Events without a user are counted under the empty key.
        counts_by_user: Object.fromEntries(byUser.map((c) => [c.key ?? '', c.count])),
        chain,
        first_hash: bounds.first,
        last_hash: bounds.last,
      };
    },

    async exportCsv(caller: Caller, q: { tenantId?: string; eventType?: string }): Promise<{ tenantId: string; stream: Readable }> {
      const tenantId = resolveTenant(caller, q.tenantId, ['query', 'tenant_id']);
      return { tenantId, stream: await exportCsv(store, tenantId, q.eventType) };
    },

    /** Batch for the per-request DataLoader behind User.auditTrail: newest first per user. */
    async auditTrails(caller: Caller, usernames: readonly string[], first: number, before: number | null): Promise<LedgerEvent[][]> {
      const tenantId = resolveTenant(caller, undefined, ['tenantId']);
      if (!Number.isInteger(first) || first < 1 || first > MAX_LIMIT) throw InputError.of(['first'], `first should be between 1 and ${MAX_LIMIT}`);
      const rows = await read(() => store.eventsOfUsers(tenantId, [...usernames], first + 1, before));
      return usernames.map((u) => rows.filter((r) => r.userId === u));
    },

    /** Throws ForbiddenError unless the caller may read the tenant (subscriptions check before listening). */
    assertCanRead(caller: Caller, tenantId: string): void {
      resolveTenant(caller, tenantId, ['tenantId']);
    },

    /** The event a bus notification points at, if the caller may see it. */
    async eventForSubscriber(caller: Caller, tenantId: string, id: string): Promise<LedgerEvent | undefined> {
      try {
        resolveTenant(caller, tenantId, ['tenantId']);
      } catch (err) {
        if (err instanceof ForbiddenError) return undefined;
        throw err;
      }
      return read(() => store.getEvent(tenantId, id));
    },
  };
}
