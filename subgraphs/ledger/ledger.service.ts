// The ledger's domain operations. Both doors (rest-compat/ledger and resolvers.ts) are thin
// adapters over these methods. Each begins with the tenant access check, then validates, then
// reads or writes through the store with database retries. Input problems name domain fields
// (`eventType`); each door reports them in its own names.
import {
  annotateActiveSpan,
  continueTrace,
  currentTraceId,
  tracingStarted,
} from '../../platform/telemetry/trace-context';
import type { Readable } from 'node:stream';
import { hasScope } from '../../platform/auth/auth-context';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { mayActPlatformWide } from '../../platform/auth/tenant.rule';
import { ForbiddenError, InputError, NotFoundError, type InputIssue } from '../../platform/errors/domain-errors';
import type { GroupCommitter, PreparedAppend } from './ledger-append.service';
import { exportCsv } from './ledger-export.service';
import { chainHash, canonicalEventData, contentHash, GENESIS_HASH } from './ledger.hash';
import type { LedgerStore } from './ledger.store';
import type { AppendInput, AppendResult, EventFilter, LedgerEvent, VerifyResult } from './ledger.types';
import { verifyTenantChain } from './ledger-verify.service';
import { withDbRetry } from '../../platform/db/db-retry';
import { isUuid } from '../../platform/ids';
import { unstorableText } from '../../platform/text';
import { seqCursor } from '../../platform/pagination/cursor';

/** The scope a service account needs to append (besides the generic `write`). */
export const LEDGER_WRITE_SCOPE = 'ledger:write';
export const MAX_STRING = 255;
/** Most events in one `POST /v1/ledger/append/batch`. */
export const MAX_APPEND_BATCH = 500;
export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
/** Deeper event data is refused: the ledger never accepts what it could not read back. */
export const MAX_EVENT_DATA_DEPTH = 64;
/** Past any chain this platform holds (and within PostgreSQL's OFFSET range). */
export const MAX_OFFSET = 1_000_000_000;

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
  entryId: string;
  tenantId: string;
  seq: number;
  createdAt: string;
  valid: boolean;
  contentHash: { stored: string; recomputed: string; valid: boolean };
  chainHash: { stored: string; recomputed: string; valid: boolean };
  previousHash: { stored: string; expected: string; previousEntryId: string | null; valid: boolean };
}

export interface AuditReport {
  tenantId: string;
  startTime: string | null;
  endTime: string | null;
  totalEvents: number;
  countsByEventType: Record<string, number>;
  countsByUser: Record<string, number>;
  chain: VerifyResult;
  firstHash: string | null;
  lastHash: string | null;
}

function checkString(issues: InputIssue[], field: string, value: unknown, required: boolean, max = MAX_STRING): void {
  if (value === undefined || value === null) {
    if (required) issues.push({ loc: [field], msg: 'Field required', type: 'missing' });
    return;
  }
  if (typeof value !== 'string')
    issues.push({ loc: [field], msg: 'Input should be a valid string', type: 'string_type' });
  else if (value.length > max)
    issues.push({ loc: [field], msg: `String should have at most ${max} characters`, type: 'string_too_long' });
  else if (required && value.length === 0)
    issues.push({ loc: [field], msg: 'String should have at least 1 character', type: 'string_too_short' });
  else badText(issues, field, value);
}

/**
 * PostgreSQL text cannot hold NUL, and a lone surrogate would be stored as U+FFFD, so the row
 * would no longer match the hash computed over the request: both are refused, so the hash is
 * always over exactly what is stored.
 */
const TEXT_PROBLEM = {
  nul: 'String should not contain NUL characters',
  surrogate: 'String should not contain unpaired surrogates',
} as const;

function badText(issues: InputIssue[], field: string | (string | number)[], value: string): boolean {
  const problem = unstorableText(value);
  if (problem)
    issues.push({ loc: Array.isArray(field) ? field : [field], msg: TEXT_PROBLEM[problem], type: 'value_error' });
  return problem !== undefined;
}

/**
 * Walks event_data without recursion (a hostile value may be very deep): refuses it past the
 * depth limit, and any key or string that could not be stored as sent.
 */
function checkEventData(issues: InputIssue[], data: object): void {
  const stack: [unknown, (string | number)[]][] = [[data, ['eventData']]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (badText(issues, path, v)) return;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (path.length > MAX_EVENT_DATA_DEPTH) {
      issues.push({
        loc: ['eventData'],
        msg: `Input should be nested at most ${MAX_EVENT_DATA_DEPTH} levels deep`,
        type: 'value_error',
      });
      return;
    }
    for (const [key, child] of Object.entries(v)) {
      if (badText(issues, [...path, key], key)) return;
      stack.push([child, [...path, Array.isArray(v) ? Number(key) : key]]);
    }
  }
}

/** created_at bounds PostgreSQL can compare: a real date-time in years 1..9999. */
function checkTime(issues: InputIssue[], field: string, value: string | undefined): void {
  if (value === undefined) return;
  const ms = Date.parse(value);
  const year = Number.isNaN(ms) ? NaN : new Date(ms).getUTCFullYear();
  if (!(year >= 1 && year <= 9999))
    issues.push({
      loc: [field],
      msg: 'Input should be a valid datetime between years 1 and 9999',
      type: 'datetime_parsing',
    });
}

function checkFilter(filter: EventFilter): void {
  const issues: InputIssue[] = [];
  for (const [field, value] of [
    ['eventType', filter.eventType],
    ['userId', filter.userId],
    ['correlationId', filter.correlationId],
  ] as const) {
    if (value !== undefined) badText(issues, field, value);
  }
  checkTime(issues, 'startTime', filter.startTime);
  checkTime(issues, 'endTime', filter.endTime);
  if (issues.length > 0) throw new InputError(issues);
}

/** Validates an append (both doors) and canonicalises event_data once. */
export function prepareAppend(input: AppendInput): PreparedAppend {
  const issues: InputIssue[] = [];
  checkString(issues, 'tenantId', input.tenantId, true);
  checkString(issues, 'eventType', input.eventType, true);
  checkString(issues, 'userId', input.userId, false);
  checkString(issues, 'correlationId', input.correlationId, false);
  checkString(issues, 'idempotencyKey', input.idempotencyKey, false);
  checkString(issues, 'description', input.description, false, 1_000_000);
  let eventDataText = '';
  const data = input.eventData;
  if (data === undefined || data === null) issues.push({ loc: ['eventData'], msg: 'Field required', type: 'missing' });
  else if (typeof data !== 'object' || Array.isArray(data))
    issues.push({ loc: ['eventData'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
  else {
    const before = issues.length;
    checkEventData(issues, data);
    if (issues.length === before) {
      try {
        eventDataText = canonicalEventData(data);
      } catch {
        issues.push({ loc: ['eventData'], msg: 'Input should contain only finite numbers', type: 'value_error' });
      }
    }
  }
  // checkString above refused a missing tenant, so it is a string from here on.
  if (issues.length > 0) throw new InputError(issues);
  return {
    tenantId: input.tenantId!,
    eventType: input.eventType,
    eventDataText,
    userId: input.userId ?? null,
    correlationId: input.correlationId ?? null,
    description: input.description ?? null,
    idempotencyKey: input.idempotencyKey ?? null,
    writtenBy: null,
    traceId: null,
  };
}

/** The tenant a caller acts in when its request names none (undefined for an anonymous caller without a gateway header). */
function tenantOfCaller(caller: Caller): string | undefined {
  return caller.headerTenant ?? caller.auth?.tenantId;
}

/** Event types only the platform's own services may write (identity's authentication trail). */
export const SERVICE_ONLY_EVENT_PREFIXES = ['auth_'];

function checkPage(limit: number, offset: number): void {
  const issues: InputIssue[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    issues.push({ loc: ['limit'], msg: `Input should be between 1 and ${MAX_LIMIT}`, type: 'value_error' });
  if (!Number.isInteger(offset) || offset < 0 || offset > MAX_OFFSET)
    issues.push({ loc: ['offset'], msg: `Input should be between 0 and ${MAX_OFFSET}`, type: 'value_error' });
  if (issues.length > 0) throw new InputError(issues);
}

/** Page cursors: a chain position (`seq`). */
export const seqPosition = seqCursor('seq');

export class LedgerService {
  constructor(
    private readonly store: LedgerStore,
    private readonly committer: GroupCommitter,
    private readonly access: TenantAccess,
  ) {}

  private read<T>(work: () => Promise<T>): Promise<T> {
    return withDbRetry(work);
  }

  async append(caller: Caller, input: AppendInput): Promise<AppendResult> {
    // A tenant the input does not name is the caller's (a token's, or the gateway's header); then
    // the shape (a tenant nobody names is a 422), then whether this caller may write there.
    const prepared = prepareAppend({ ...input, tenantId: input.tenantId ?? tenantOfCaller(caller) });
    await this.access.resolve(caller, prepared.tenantId, ['tenantId'], 'ledger.append');
    this.checkWriter(caller, prepared);
    const result = await this.committer.append({
      ...prepared,
      writtenBy: caller.auth?.username ?? null,
      traceId: currentTraceId(),
    });
    // The trace shows where the event landed in the chain.
    annotateActiveSpan({
      'ledger.tenant_id': result.event.tenantId,
      'ledger.seq': result.event.seq,
      'ledger.replayed': result.replayed,
    });
    return result;
  }

  /**
   * Several appends in one call, in the given order: every one is checked before any is queued
   * (one refused event refuses the call), then all are queued together, so they share the group
   * commit's transactions and each tenant's events keep their order in its chain. Each must carry
   * an idempotency key: a call that failed part-way (a database error after some commits) can then
   * be sent again, whole or one event at a time, without storing any event twice.
   */
  async appendBatch(caller: Caller, inputs: readonly AppendInput[]): Promise<AppendResult[]> {
    if (inputs.length === 0 || inputs.length > MAX_APPEND_BATCH)
      throw InputError.of(['events'], `Send between 1 and ${MAX_APPEND_BATCH} events`, 'value_error');
    const prepared: PreparedAppend[] = [];
    const issues: InputIssue[] = [];
    inputs.forEach((input, i) => {
      try {
        const p = prepareAppend({ ...input, tenantId: input.tenantId ?? tenantOfCaller(caller) });
        if (p.idempotencyKey === null)
          issues.push({ loc: ['events', i, 'idempotencyKey'], msg: 'Field required', type: 'missing' });
        prepared.push(p);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        issues.push(...err.issues.map((issue) => ({ ...issue, loc: ['events', i, ...issue.loc] })));
      }
    });
    if (issues.length > 0) throw new InputError(issues);
    for (const tenantId of new Set(prepared.map((p) => p.tenantId)))
      await this.access.resolve(caller, tenantId, ['tenantId'], 'ledger.append');
    for (const p of prepared) this.checkWriter(caller, p);
    const writtenBy = caller.auth?.username ?? null;
    const traceId = currentTraceId();
    const appendOne = (p: PreparedAppend) => this.committer.append({ ...p, writtenBy, traceId });
    // Queued in one turn, in order: the committer takes them in arrival order.
    if (!tracingStarted()) return Promise.all(prepared.map(appendOne));
    // A span per event, as the single append's: the trace shows where each event landed in the chain.
    return Promise.all(
      prepared.map((p) =>
        continueTrace(null, 'ledger.append', {}, async (span) => {
          const result = await appendOne(p);
          span.setAttributes({
            'ledger.tenant_id': result.event.tenantId,
            'ledger.seq': result.event.seq,
            'ledger.replayed': result.replayed,
          });
          return result;
        }),
      ),
    );
  }

  /** Anyone could otherwise forge, say, `auth_login_succeeded` for anyone; and writing needs a write scope. */
  private checkWriter(caller: Caller, prepared: PreparedAppend): void {
    if (SERVICE_ONLY_EVENT_PREFIXES.some((p) => prepared.eventType.startsWith(p)) && !caller.auth?.isService) {
      throw new ForbiddenError(`Only service accounts may write '${prepared.eventType}' events`);
    }
    if (caller.auth && !hasScope(caller.auth, 'write') && !hasScope(caller.auth, LEDGER_WRITE_SCOPE)) {
      throw new ForbiddenError(`Scope 'write' or '${LEDGER_WRITE_SCOPE}' required`);
    }
  }

  async listEvents(
    caller: Caller,
    q: { tenantId?: string; filter: EventFilter; limit?: number; offset?: number; newestFirst?: boolean },
  ): Promise<EventPage> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.events.list');
    const limit = q.limit ?? DEFAULT_LIMIT;
    const offset = q.offset ?? 0;
    checkPage(limit, offset);
    checkFilter(q.filter);
    const [events, total] = await Promise.all([
      this.read(() => this.store.listEvents(tenantId, q.filter, { limit, offset, newestFirst: q.newestFirst })),
      this.read(() => this.store.countEvents(tenantId, q.filter)),
    ]);
    return { events, total, limit, offset };
  }

  async eventsConnection(
    caller: Caller,
    q: { tenantId?: string; filter: EventFilter; first?: number; after?: string },
  ): Promise<EventConnection> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.events.list');
    const first = q.first ?? 50;
    if (!Number.isInteger(first) || first < 1 || first > MAX_LIMIT)
      throw InputError.of(['first'], `first should be between 1 and ${MAX_LIMIT}`);
    checkFilter(q.filter);
    const afterSeq = q.after ? seqPosition.decode(q.after, 'after') : 0;
    const rows = await this.read(() => this.store.eventsAfter(tenantId, q.filter, afterSeq, first + 1));
    const events = rows.slice(0, first);
    const last = events[events.length - 1];
    const totalCount = () => this.read(() => this.store.countEvents(tenantId, q.filter));
    return {
      events,
      hasNextPage: rows.length > first,
      endCursor: last ? seqPosition.encode(last.seq) : null,
      totalCount,
    };
  }

  async getEvent(caller: Caller, q: { tenantId?: string; id: string }): Promise<LedgerEvent> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.events.get');
    const event = isUuid(q.id) ? await this.read(() => this.store.getEvent(tenantId, q.id)) : undefined;
    if (!event) throw new NotFoundError('Ledger entry not found');
    return event;
  }

  /** Several events of the caller's tenant in one read (entity references); unknown or foreign ids are null. */
  async eventsByIds(caller: Caller, ids: readonly string[]): Promise<(LedgerEvent | null)[]> {
    const tenantId = await this.access.resolve(caller, undefined, ['tenantId'], 'ledger.events.get');
    const wanted = ids.filter((id) => isUuid(id));
    const found = wanted.length === 0 ? [] : await this.read(() => this.store.getEvents(tenantId, wanted));
    const byId = new Map(found.map((e) => [e.id, e]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** One tenant's chain, or every tenant's when the caller may and names none. */
  async verify(caller: Caller, q: { tenantId?: string }): Promise<VerifyResult> {
    if (q.tenantId === undefined && mayActPlatformWide(caller)) {
      // Every tenant is verified: one broken chain must not hide the state of the others.
      let total = 0;
      const broken: string[] = [];
      for (const tenantId of await this.read(() => this.store.listChainTenants())) {
        const result = await this.read(() => verifyTenantChain(this.store, tenantId));
        total += result.totalEvents;
        if (!result.valid) broken.push(`Tenant ${tenantId}: ${result.error}`);
      }
      return { valid: broken.length === 0, totalEvents: total, error: broken.length > 0 ? broken.join('; ') : null };
    }
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.verify');
    return this.read(() => verifyTenantChain(this.store, tenantId));
  }

  async verifyEntry(caller: Caller, q: { tenantId?: string; entryId: string }): Promise<EntryVerification> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.verify.entry');
    const event = isUuid(q.entryId) ? await this.read(() => this.store.getEvent(tenantId, q.entryId)) : undefined;
    if (!event) throw new NotFoundError('Ledger entry not found');
    const previous =
      event.seq > 1 ? await this.read(() => this.store.getEventBySeq(tenantId, event.seq - 1)) : undefined;
    const recomputedContent = contentHash({
      tenantId,
      eventType: event.eventType,
      eventDataCanonical: event.eventDataText,
      userId: event.userId,
      createdAt: event.createdAt,
    });
    const recomputedChain = chainHash(recomputedContent, event.previousHash);
    const expectedPrevious = event.seq === 1 ? GENESIS_HASH : (previous?.chainHash ?? '');
    const content = {
      stored: event.contentHash,
      recomputed: recomputedContent,
      valid: recomputedContent === event.contentHash,
    };
    const chain = { stored: event.chainHash, recomputed: recomputedChain, valid: recomputedChain === event.chainHash };
    const link = {
      stored: event.previousHash,
      expected: expectedPrevious,
      previousEntryId: previous?.id ?? null,
      valid: expectedPrevious === event.previousHash,
    };
    return {
      entryId: event.id,
      tenantId,
      seq: event.seq,
      createdAt: event.createdAt,
      valid: content.valid && chain.valid && link.valid,
      contentHash: content,
      chainHash: chain,
      previousHash: link,
    };
  }

  async auditReport(
    caller: Caller,
    q: { tenantId?: string; startTime?: string; endTime?: string },
  ): Promise<AuditReport> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.audit_report');
    const filter: EventFilter = { startTime: q.startTime, endTime: q.endTime };
    checkFilter(filter);
    const [byType, byUser, bounds, chain] = await Promise.all([
      this.read(() => this.store.countsBy(tenantId, 'event_type', filter)),
      this.read(() => this.store.countsBy(tenantId, 'user_id', filter)),
      this.read(() => this.store.hashBounds(tenantId, filter)),
      this.read(() => verifyTenantChain(this.store, tenantId)),
    ]);
    return {
      tenantId,
      startTime: q.startTime ?? null,
      endTime: q.endTime ?? null,
      totalEvents: byType.reduce((n, c) => n + c.count, 0),
      countsByEventType: Object.fromEntries(byType.map((c) => [c.key ?? '', c.count])),
      // Events without a user are counted under the empty key.
      countsByUser: Object.fromEntries(byUser.map((c) => [c.key ?? '', c.count])),
      chain,
      firstHash: bounds.first,
      lastHash: bounds.last,
    };
  }

  async exportCsv(
    caller: Caller,
    q: { tenantId?: string; eventType?: string },
  ): Promise<{ tenantId: string; stream: Readable }> {
    const tenantId = await this.access.resolve(caller, q.tenantId, ['tenantId'], 'ledger.export');
    checkFilter({ eventType: q.eventType });
    return { tenantId, stream: await exportCsv(this.store, tenantId, q.eventType) };
  }

  /** Batch for the per-request DataLoader behind User.auditTrail: newest first per user. */
  async auditTrails(
    caller: Caller,
    usernames: readonly string[],
    first: number,
    before: number | null,
  ): Promise<LedgerEvent[][]> {
    const tenantId = await this.access.resolve(caller, undefined, ['tenantId'], 'ledger.audit_trail');
    if (!Number.isInteger(first) || first < 1 || first > MAX_LIMIT)
      throw InputError.of(['first'], `first should be between 1 and ${MAX_LIMIT}`);
    const rows = await this.read(() => this.store.eventsOfUsers(tenantId, [...usernames], first + 1, before));
    return usernames.map((u) => rows.filter((r) => r.userId === u));
  }

  /** The tenant a subscriber may follow (checked, and an operator's access recorded, once). */
  async subscriptionTenant(caller: Caller, requested: string | undefined): Promise<string> {
    return this.access.resolve(caller, requested, ['tenantId'], 'ledger.subscribe');
  }

  /** The tenant's chain head: where a subscriber that wants everything from now on starts. */
  async position(
    caller: Caller,
    requested: string | undefined,
  ): Promise<{ tenantId: string; seq: number; chainHash: string }> {
    const tenantId = await this.access.resolve(caller, requested, ['tenantId'], 'ledger.position');
    const head = await this.read(() => this.store.getHead(tenantId));
    return { tenantId, seq: head?.lastSeq ?? 0, chainHash: head?.lastHash ?? GENESIS_HASH };
  }

  /** The chain's last seq (0 before the first event), for a subscription starting now. */
  async headSeqForSubscriber(tenantId: string): Promise<number> {
    return (await this.read(() => this.store.getHead(tenantId)))?.lastSeq ?? 0;
  }

  /**
   * A subscriber's next events after `afterSeq`, in chain order. The tenant was settled by
   * subscriptionTenant when the subscription started (the caller cannot change on a socket).
   */
  async eventsForSubscriber(
    tenantId: string,
    eventType: string | undefined,
    afterSeq: number,
    limit: number,
  ): Promise<LedgerEvent[]> {
    return this.read(() => this.store.eventsAfter(tenantId, { eventType }, afterSeq, limit));
  }
}
