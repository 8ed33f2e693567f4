// Evidence: the intake of compliance events, uploads and revisions, the reads reports build on
// (by control, by framework, by period), control freshness, and inclusion proofs.
//
// Every revision gets a content hash (SHA-256 of its RFC 8785 canonical JSON) and is appended to
// the tenant's ledger as `compliance_evidence` after its row commits; the entry's id is kept on
// the revision. The ledger call is outside the transaction (it is another service): a revision
// whose ledger append failed keeps an empty entry and is appended again, with the same
// idempotency key, by the next delivery of its event, by `recordPending`, or when its proof is
// asked for. Proofs are fetched from the ledger when asked, never stored, so they are never stale.
import { randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import crypto from 'node:crypto';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import type { LedgerInclusionProof } from '../../platform/clients/ledger.client';
import type { SqlExecutor, SqlQuery } from '../../platform/db/sql';
import { InputError, NotFoundError, PayloadTooLargeError, UnavailableError } from '../../platform/errors/domain-errors';
import type { Logger } from '../../platform/logging/logger';
import { textCursor } from '../../platform/pagination/cursor';
import { parsePayload } from '../../platform/contracts/event-contract';
import type { CatalogService } from './catalog.service';
import { INTAKE_CONTRACTS, intakeEventOf } from './compliance.intake';
import type { CatalogStore } from './catalog.store';
import type { ComplianceConfig } from './compliance.config';
import { assertMayRead, assertMayWrite } from './compliance.policy';
import {
  LIMITS,
  type ComplianceEventInput,
  type ControlFreshness,
  type ControlRef,
  type EvidenceItem,
  type EvidenceRevision,
  type IngestResult,
  type MappingPack,
} from './compliance.types';
import type { EvidenceLedger } from './evidence-ledger';
import { freshnessOf } from './evidence.freshness';
import type { EvidenceStore, IntakeRow, NewRevision } from './evidence.store';
import { jsonBytes, jsonDepth } from './oscal/document-limits';
import type { MappingPackService } from './mapping-pack.service';
import { resultBatcher } from './intake.batcher';
import { derivedUuid } from './report.oscal';

const DAY_MS = 86_400_000;

/**
 * The item an intake event becomes, derived from the tenant and the event id (version-4 shaped,
 * like every other id here): every delivery of the event names the same item, so its ledger
 * idempotency key (`compliance-evidence:<item>:1`) is the same too and a retry can never append
 * a second entry.
 */
export function intakeItemId(event: Pick<ComplianceEventInput, 'tenantId' | 'id'>): string {
  return derivedUuid('compliance-intake', event.tenantId, event.id);
}
const cursor = textCursor('ev');

export function contentSha256(content: unknown): string {
  return crypto
    .createHash('sha256')
    .update(canonicalize(content) ?? 'null')
    .digest('hex');
}

export interface EvidenceInput {
  controls: ControlRef[];
  content: unknown;
  source?: string;
  /** When the evidence was collected (default now); not in the future. */
  collectedAt?: Date;
  expiresAt?: Date;
  tenantId?: string;
}

export interface EvidencePageInput {
  framework?: string;
  controlId?: string;
  from?: Date;
  to?: Date;
  first?: number;
  after?: string;
  tenantId?: string;
}

export interface EvidencePage {
  items: EvidenceItem[];
  /** Pass as `after` for the next page; null on the last. */
  nextCursor: string | null;
}

export interface EvidenceProof {
  itemId: string;
  revision: number;
  contentSha256: string;
  /** The ledger's inclusion proof of the revision's entry against its latest signed checkpoint. */
  ledger: LedgerInclusionProof;
}

/** An event of a committed batch: `done` settles at once for a new event, for a redelivery once what its first delivery left is finished. */
export interface TakenEvent {
  done: Promise<IngestResult>;
}

export class EvidenceService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly store: EvidenceStore,
    private readonly catalogStore: CatalogStore,
    private readonly catalog: CatalogService,
    private readonly packs: MappingPackService,
    private readonly ledger: EvidenceLedger,
    private readonly access: TenantAccess,
    private readonly config: Pick<ComplianceConfig, 'evidenceTtlDays' | 'expiringDays'>,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Concurrent intakes share a batch (intake.batcher.ts), at most 200 a batch. One batch at a
   * time: measured against two in flight, the batches were twice as large and each event cost
   * less CPU (docs/benchmarks.md, "Compliance intake, ledger first").
   */
  private readonly intake = resultBatcher<ComplianceEventInput, TakenEvent>((batch) => this.takeBatch(batch), 200);

  /**
   * Takes one compliance event (at least once from the bus or the durable consumer, or through
   * the REST door): at most one evidence item per event id and tenant, whatever the redeliveries.
   * The controls come from the tenant's certified mapping packs; an event no rule maps is still
   * recorded as taken (so a redelivery is recognised) but makes no evidence. Events taken
   * concurrently are written together (`takeBatch`).
   */
  async ingestComplianceEvent(event: ComplianceEventInput): Promise<IngestResult> {
    return (await this.intake(event)).done;
  }

  /** A batch written and recorded in the ledger, one result per event in order (no batcher: tests, the bench). */
  async ingestBatch(events: readonly ComplianceEventInput[]): Promise<IngestResult[]> {
    return Promise.all((await this.takeBatch(events)).map((t) => t.done));
  }

  /**
   * A batch of events. Per tenant: the ids already taken are read (one query; those are
   * redeliveries), the new events' first revisions go to the ledger together (the ledger
   * group-commits concurrent appends), and then ONE statement (`takeIntakes`) writes the intake
   * rows (`ON CONFLICT DO NOTHING`, for a redelivery racing this one), the new items, their
   * controls and first revisions WITH their ledger entries. The tenant's certified packs are
   * read once per batch.
   *
   * Why the ledger first: filling the entry in afterwards was an UPDATE of every revision row
   * just written (a second write of each row, a third round trip, and a scan of the tenant's
   * revisions whenever the planner's statistics lagged the intake: it cost as much as all the
   * inserts together). The item's id is derived from (tenant, event id) and the ledger's
   * idempotency key from the item, so any retry of the event, after a failure on either side,
   * lands on the same ledger entry and the same item. A failed append leaves the revision
   * without an entry (logged), for the redelivery, a report, a proof or the periodic sweep.
   */
  async takeBatch(events: readonly ComplianceEventInput[]): Promise<TakenEvent[]> {
    const packs = new Map<string, Promise<MappingPack[]>>();
    const packsOf = (tenantId: string) => {
      let p = packs.get(tenantId);
      if (!p) packs.set(tenantId, (p = this.packs.certified(tenantId)));
      return p;
    };
    const planned = await Promise.all(
      events.map(async (event) => {
        const { controls, ttlDays } = await this.controlsFor(event, await packsOf(event.tenantId));
        const revision: NewRevision = {
          content: { topic: event.topic, event_id: event.id, data: event.data },
          contentSha256: '',
          collectedAt: event.occurredAt,
          expiresAt: new Date(event.occurredAt.getTime() + ttlDays * DAY_MS),
          recordedBy: null,
        };
        revision.contentSha256 = contentSha256(revision.content);
        return { event, controls, revision, itemId: controls.length > 0 ? intakeItemId(event) : null };
      }),
    );
    // The first of each (tenant, id) in the batch is written; a repeat is answered as a redelivery.
    const byTenant = new Map<string, typeof planned>();
    const seen = new Set<string>();
    for (const p of planned) {
      const key = `${p.event.tenantId}\u0000${p.event.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const list = byTenant.get(p.event.tenantId);
      if (list) list.push(p);
      else byTenant.set(p.event.tenantId, [p]);
    }
    const rows = new Map<string, IntakeRow[]>();
    await Promise.all(
      [...byTenant].map(async ([tenantId, list]) => {
        const before = await this.store.takenEventIds(
          this.sql,
          tenantId,
          list.map((p) => p.event.id),
        );
        const fresh = list.filter((p) => !before.has(p.event.id));
        rows.set(
          tenantId,
          await Promise.all(
            fresh.map(async (p) => ({
              eventId: p.event.id,
              topic: p.event.topic,
              item:
                p.itemId === null
                  ? null
                  : {
                      id: p.itemId,
                      source: `event:${p.event.topic}`,
                      eventId: p.event.id,
                      eventType: p.event.types[0] ?? null,
                      createdBy: null,
                      controls: p.controls,
                    },
              first: p.itemId === null ? null : p.revision,
              ledger: p.itemId === null ? null : await this.appendQuietly(p.event, p.itemId, p.controls, p.revision),
            })),
          ),
        );
      }),
    );
    const created = new Set<(typeof planned)[number]>();
    const take = async (q: SqlQuery) => {
      for (const [tenantId, list] of byTenant) {
        const taken = await this.store.takeIntakes(q, tenantId, rows.get(tenantId)!);
        for (const p of list) if (taken.has(p.event.id)) created.add(p);
      }
    };
    // One tenant's batch is one statement, atomic by itself; several tenants share a transaction
    // so the batch commits (or fails and is retried event by event) as a whole.
    if (byTenant.size === 1) await take(this.sql);
    else await this.sql.transaction(take);
    return planned.map((p) => ({
      done: created.has(p)
        ? Promise.resolve({ created: true, itemId: p.itemId, controls: p.controls })
        : this.redelivered(p.event),
    }));
  }

  /** A new event's first revision to the ledger; null (logged) when the ledger did not take it. */
  private async appendQuietly(
    event: ComplianceEventInput,
    itemId: string,
    controls: ControlRef[],
    revision: NewRevision,
  ): Promise<{ entryId: string; chainHash: string } | null> {
    try {
      return await this.ledger.record(event.tenantId, {
        itemId,
        revision: 1,
        source: `event:${event.topic}`,
        eventId: event.id,
        controls,
        ...revision,
      });
    } catch (err) {
      this.logger.warn(
        { err, tenantId: event.tenantId, itemId, revision: 1 },
        'compliance: evidence not yet in the ledger',
      );
      return null;
    }
  }

  /** A redelivery: finish what the first delivery may have left (its ledger entry), add nothing. */
  private async redelivered(event: ComplianceEventInput): Promise<IngestResult> {
    const taken = await this.store.intakeItem(this.sql, event.tenantId, event.id);
    if (taken?.itemId) await this.recordPending(event.tenantId, taken.itemId);
    const item = taken?.itemId ? await this.store.item(this.sql, event.tenantId, taken.itemId) : null;
    return { created: false, itemId: taken?.itemId ?? null, controls: item?.controls ?? [] };
  }

  /**
   * The controls the event names itself (found in the tenant's frameworks) and those every
   * certified mapping rule matching it names, and the shortest evidence lifetime among the rules.
   */
  private async controlsFor(
    event: ComplianceEventInput,
    packs: readonly MappingPack[],
  ): Promise<{ controls: ControlRef[]; ttlDays: number }> {
    const controls = new Map<string, ControlRef>();
    for (const c of await this.catalogStore.controlsNamed(this.sql, event.tenantId, event.controlIds ?? []))
      controls.set(`${c.framework}\u0000${c.controlId}`, c);
    let ttlDays: number | undefined;
    for (const p of packs)
      for (const rule of p.pack.mappings) {
        if (!event.types.includes(rule.event_type)) continue;
        if (rule.rule_pack_ids && (event.rulePackId === null || !rule.rule_pack_ids.includes(event.rulePackId)))
          continue;
        for (const c of rule.controls)
          controls.set(`${c.framework}\u0000${c.control_id}`, { framework: c.framework, controlId: c.control_id });
        if (rule.evidence_ttl_days !== undefined) ttlDays = Math.min(ttlDays ?? Infinity, rule.evidence_ttl_days);
      }
    return { controls: [...controls.values()], ttlDays: ttlDays ?? this.config.evidenceTtlDays };
  }

  /**
   * The REST door of the intake (the typed client's, platform/clients/compliance.client.ts): a
   * compliance event as its producer would publish it. The payload is parsed by its topic's
   * contract; its tenant is held to the platform's tenant rule (a tenant's caller for its own
   * tenant, service accounts and operators for any).
   */
  async submitEvent(caller: Caller, input: { id: string; topic: string; data: unknown }): Promise<IngestResult> {
    assertMayWrite(caller);
    if (input.id.length < 1 || input.id.length > 300)
      throw InputError.of(['id'], 'String should have 1 to 300 characters', 'string_too_long');
    const contract = INTAKE_CONTRACTS.find((c) => c.topic === input.topic);
    if (!contract)
      throw InputError.of(
        ['topic'],
        `Input should be one of ${INTAKE_CONTRACTS.map((c) => `'${c.topic}'`).join(', ')}`,
        'enum',
      );
    const parsed = parsePayload(contract, input.data);
    if (!parsed.ok) {
      const [issue] = parsed.issues;
      const path = (issue?.path ?? '/')
        .split('/')
        .slice(1)
        .filter(Boolean)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
      throw InputError.of(['data', ...path], issue?.message ?? 'Invalid payload', 'value_error');
    }
    await this.access.resolve(caller, parsed.value.tenant_id, ['data', 'tenant_id'], 'compliance.intake');
    return this.ingestComplianceEvent(intakeEventOf(contract, parsed.value, { id: input.id }));
  }

  /** Evidence uploaded by a person (a screenshot's hash, a review's minutes, a configuration export). */
  async addEvidence(caller: Caller, input: EvidenceInput): Promise<EvidenceItem> {
    assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.evidence.add');
    const controls = dedupe(input.controls);
    if (controls.length === 0) throw InputError.of(['controls'], 'Name at least one control', 'too_short');
    if (controls.length > LIMITS.controlsPerItem)
      throw InputError.of(['controls'], `At most ${LIMITS.controlsPerItem} controls`, 'too_long');
    if (input.source !== undefined && (input.source.length < 1 || input.source.length > 200))
      throw InputError.of(['source'], 'String should have 1 to 200 characters', 'string_too_long');
    const revision = this.revisionOf(caller, input.content, input.collectedAt, input.expiresAt);
    const id = randomUUID();
    const source = input.source ?? 'manual';
    await this.sql.transaction(async (tx) => {
      await this.assertControlsExist(tx, tenantId, controls);
      await this.store.insertItem(
        tx,
        tenantId,
        { id, source, eventId: null, eventType: null, createdBy: caller.auth?.username ?? null, controls },
        revision,
      );
    });
    await this.recordQuietly(
      tenantId,
      { itemId: id, revision: 1, source, eventId: null, controls, ...revision },
      caller.correlationId,
    );
    return (await this.store.item(this.sql, tenantId, id))!;
  }

  /** A new revision of an item; the earlier ones stay as they were. */
  async reviseEvidence(
    caller: Caller,
    input: { itemId: string; content: unknown; collectedAt?: Date; expiresAt?: Date; tenantId?: string },
  ): Promise<EvidenceItem> {
    assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.evidence.revise');
    assertUuid(input.itemId, 'itemId');
    const revision = this.revisionOf(caller, input.content, input.collectedAt, input.expiresAt);
    const number = await this.sql.transaction((tx) => this.store.appendRevision(tx, tenantId, input.itemId, revision));
    if (number === null) throw new NotFoundError(`Evidence ${input.itemId} not found`);
    const item = (await this.store.item(this.sql, tenantId, input.itemId))!;
    await this.recordQuietly(
      tenantId,
      {
        itemId: item.id,
        revision: number,
        source: item.source,
        eventId: item.eventId,
        controls: item.controls,
        ...revision,
      },
      caller.correlationId,
    );
    return (await this.store.item(this.sql, tenantId, input.itemId))!;
  }

  private revisionOf(caller: Caller, content: unknown, collectedAt?: Date, expiresAt?: Date): NewRevision {
    if (content === undefined) throw InputError.of(['content'], 'Field required', 'missing');
    if (jsonDepth(content, LIMITS.documentDepth) > LIMITS.documentDepth)
      throw InputError.of(['content'], `Content nests deeper than ${LIMITS.documentDepth} levels`, 'json_too_deep');
    const bytes = jsonBytes(content);
    if (bytes > LIMITS.evidenceBytes)
      throw new PayloadTooLargeError(
        `Evidence content is ${bytes} bytes; at most ${LIMITS.evidenceBytes} are accepted`,
      );
    const now = this.now();
    const collected = collectedAt ?? now;
    if (Number.isNaN(collected.getTime()) || collected.getTime() > now.getTime() + 60_000)
      throw InputError.of(['collectedAt'], 'Collection time must be a valid time, not in the future', 'value_error');
    const expires = expiresAt ?? new Date(collected.getTime() + this.config.evidenceTtlDays * DAY_MS);
    if (Number.isNaN(expires.getTime()) || expires.getTime() <= collected.getTime())
      throw InputError.of(['expiresAt'], 'Expiry must be after the collection time', 'value_error');
    return {
      content,
      contentSha256: contentSha256(content),
      collectedAt: collected,
      expiresAt: expires,
      recordedBy: caller.auth?.username ?? null,
    };
  }

  /** Every named control must be one of the tenant's: another tenant's, or none, is a 422 naming it. */
  private async assertControlsExist(
    tx: Parameters<CatalogStore['existing']>[0],
    tenantId: string,
    controls: ControlRef[],
  ) {
    const found = await this.catalogStore.existing(tx, tenantId, controls);
    const has = new Set(found.map((r) => `${r.framework}\u0000${r.controlId}`));
    const issues = controls.flatMap((c, i) =>
      has.has(`${c.framework}\u0000${c.controlId}`)
        ? []
        : [
            {
              loc: ['controls', i],
              msg: `Control '${c.controlId}' of framework '${c.framework}' is not imported in this tenant`,
              type: 'dangling_reference',
            },
          ],
    );
    if (issues.length > 0) throw new InputError(issues.slice(0, 20));
  }

  /** Appends a revision to the ledger; a failure is logged and left for a retry (the revision keeps no entry yet). */
  private async recordQuietly(
    tenantId: string,
    e: {
      itemId: string;
      revision: number;
      source: string;
      eventId: string | null;
      controls: ControlRef[];
    } & NewRevision,
    correlationId?: string,
  ): Promise<void> {
    try {
      const entry = await this.ledger.record(tenantId, { ...e, correlationId });
      await this.store.setLedgerEntry(this.sql, tenantId, e.itemId, e.revision, entry.entryId, entry.chainHash);
    } catch (err) {
      this.logger.warn(
        { err, tenantId, itemId: e.itemId, revision: e.revision },
        'compliance: evidence not yet in the ledger',
      );
    }
  }

  /** Appends to the ledger every revision of `itemId` (or, without it, up to 100 of the tenant's) still without an entry. */
  async recordPending(tenantId: string, itemId?: string): Promise<number> {
    const items = itemId
      ? [await this.store.item(this.sql, tenantId, itemId)].filter((i): i is EvidenceItem => i !== null)
      : await Promise.all(
          [...new Set((await this.store.unrecorded(this.sql, tenantId, 100)).map((p) => p.itemId))].map(
            async (id) => (await this.store.item(this.sql, tenantId, id))!,
          ),
        );
    let recorded = 0;
    for (const item of items)
      for (const r of item.revisions.filter((x) => x.ledgerEntryId === null)) {
        await this.recordQuietly(tenantId, {
          ...r,
          source: item.source,
          eventId: item.eventId,
          controls: item.controls,
        });
        recorded++;
      }
    return recorded;
  }

  async evidence(caller: Caller, id: string, requestedTenant?: string): Promise<EvidenceItem> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenantId'], 'compliance.evidence.get');
    assertUuid(id, 'id');
    const item = await this.store.item(this.sql, tenantId, id);
    if (!item) throw new NotFoundError(`Evidence ${id} not found`);
    return item;
  }

  /** Evidence by framework (and control), by period: what reports read. Oldest first, paged. */
  async listEvidence(caller: Caller, input: EvidencePageInput): Promise<EvidencePage> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenantId'], 'compliance.evidence.list');
    if (input.controlId !== undefined && input.framework === undefined)
      throw InputError.of(['framework'], 'Name the framework of the control', 'missing');
    if (input.framework !== undefined) {
      await this.catalog.frameworkOf(tenantId, input.framework);
      if (input.controlId !== undefined) await this.catalog.controlOf(tenantId, input.framework, input.controlId);
    }
    const limit = input.first ?? LIMITS.pageSize;
    if (!Number.isInteger(limit) || limit < 1 || limit > LIMITS.maxPageSize)
      throw InputError.of(['first'], `Input should be between 1 and ${LIMITS.maxPageSize}`, 'less_than_equal');
    for (const [field, d] of [
      ['from', input.from],
      ['to', input.to],
    ] as const)
      if (d !== undefined && Number.isNaN(d.getTime()))
        throw InputError.of([field], 'Input should be a valid datetime', 'datetime_parsing');
    const after = input.after === undefined ? undefined : decodeAfter(input.after);
    const items = await this.store.items(this.sql, tenantId, {
      framework: input.framework,
      controlId: input.controlId,
      from: input.from,
      to: input.to,
      limit: limit + 1,
      after,
    });
    const page = items.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page,
      nextCursor: items.length > limit && last ? cursor.encode(`${last.createdAt.toISOString()}|${last.id}`) : null,
    };
  }

  /** The freshness of every control of a framework, in the framework's order. */
  async frameworkFreshness(caller: Caller, framework: string, requestedTenant?: string): Promise<ControlFreshness[]> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenantId'], 'compliance.freshness');
    await this.catalog.frameworkOf(tenantId, framework);
    const controls = await this.catalogStore.controls(this.sql, tenantId, framework);
    const rows = new Map((await this.store.freshness(this.sql, tenantId, framework)).map((r) => [r.controlId, r]));
    const now = this.now();
    return controls.map((c) =>
      freshnessOf(framework, c.controlId, rows.get(c.controlId), now, this.config.expiringDays),
    );
  }

  async controlFreshness(
    caller: Caller,
    framework: string,
    controlId: string,
    requestedTenant?: string,
  ): Promise<ControlFreshness> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenantId'], 'compliance.freshness');
    return this.freshnessIn(tenantId, framework, controlId);
  }

  /** For the GraphQL field of a control already read in `tenantId`. */
  async freshnessIn(tenantId: string, framework: string, controlId: string): Promise<ControlFreshness> {
    await this.catalog.controlOf(tenantId, framework, controlId);
    const [row] = await this.store.freshness(this.sql, tenantId, framework, controlId);
    return freshnessOf(framework, controlId, row, this.now(), this.config.expiringDays);
  }

  /** The ledger's inclusion proof of a revision (the newest by default), fetched now. */
  async proof(caller: Caller, input: { itemId: string; revision?: number; tenantId?: string }): Promise<EvidenceProof> {
    const item = await this.evidence(caller, input.itemId, input.tenantId);
    const revision = pickRevision(item, input.revision);
    let entryId = revision.ledgerEntryId;
    if (entryId === null) {
      await this.recordPending(item.tenantId, item.id);
      entryId = pickRevision(
        (await this.store.item(this.sql, item.tenantId, item.id))!,
        revision.revision,
      ).ledgerEntryId;
      if (entryId === null)
        throw new UnavailableError('The ledger has not recorded this evidence yet; try again shortly');
    }
    const ledger = await this.ledger.inclusionProof(item.tenantId, entryId, caller.correlationId);
    return { itemId: item.id, revision: revision.revision, contentSha256: revision.contentSha256, ledger };
  }
}

function pickRevision(item: EvidenceItem, revision: number | undefined): EvidenceRevision {
  const found = revision === undefined ? item.revisions[0] : item.revisions.find((r) => r.revision === revision);
  if (!found) throw new NotFoundError(`Revision ${revision} of evidence ${item.id} not found`);
  return found;
}

function dedupe(refs: ControlRef[]): ControlRef[] {
  const seen = new Map<string, ControlRef>();
  for (const r of refs) seen.set(`${r.framework}\u0000${r.controlId}`, r);
  return [...seen.values()];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertUuid(value: string, field: string): void {
  if (!UUID.test(value)) throw InputError.of([field], 'Input should be a valid UUID', 'uuid_parsing');
}

function decodeAfter(value: string): { createdAt: Date; id: string } {
  const text = cursor.decode(value, 'after');
  const [at, id] = text.split('|');
  const createdAt = new Date(at ?? '');
  if (!id || !UUID.test(id) || Number.isNaN(createdAt.getTime()))
    throw InputError.of(['after'], 'Invalid cursor', 'value_error');
  return { createdAt, id };
}
