// Compliance reports (issue 28 item 4): one per framework, period and tenant, generated from the
// evidence store, reviewed and signed off by a second person, then appended to the ledger as
// `compliance_report`; exported as JSON, OSCAL assessment results and an HTML document.
//
// Generation is a snapshot: the report's evidence rows and verdicts are written in one
// transaction (status `generating`), then ONE ledger checkpoint is taken (after the snapshot, so
// it covers every entry the snapshot names) and the report becomes `generated`. If the
// checkpoint cannot be had, the rows are removed: nothing half-applied. A crash between the two
// leaves a `generating` report nobody is shown; report.sweep.ts removes it later the same way. Proofs are not stored:
// exports build them against the checkpoint's tree size when asked (the same proof every time).
//
// Sign-off (four eyes, through the workflow's approval step) is report-signoff.service.ts.
import { randomUUID } from 'node:crypto';
import crypto from 'node:crypto';
import canonicalize from 'canonicalize';
import type { Caller } from '../../platform/auth/caller';
import type { TenantAccess } from '../../platform/auth/tenant-access';
import { inclusionOf, type LedgerCheckpoint } from '../../platform/clients/ledger.client';
import type { SqlExecutor } from '../../platform/db/sql';
import { InputError, NotFoundError, UnavailableError } from '../../platform/errors/domain-errors';
import type { Logger } from '../../platform/logging/logger';
import { textCursor } from '../../platform/pagination/cursor';
import type { CatalogService } from './catalog.service';
import type { ComplianceConfig } from './compliance.config';
import { assertMayRead, assertMayWrite } from './compliance.policy';
import type { EvidenceService } from './evidence.service';
import { schemaIssues } from './oscal/oscal-schemas';
import { reportDocument, type EvidenceProofResult } from './report.document';
import { ledgerFailure, type ReportLedger } from './report-ledger';
import { assessmentResults } from './report.oscal';
import { asOfInstant, parsePeriod, type PeriodInput } from './report.period';
import type { ReportStore } from './report.store';
import {
  REPORT_LIMITS,
  type ComplianceReport,
  type ReportControl,
  type ReportEvidence,
  type ReportResult,
  type ReportStatus,
  type ReportSummary,
} from './report.types';

const REPORT_TYPE = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const listCursor = textCursor('rp');
const evidenceCursor = textCursor('re');
/** Item-entry pairs read per query by the proof export (and entries per batch-route fallback page). */
const EXPORT_PAGE = 50_000;
const STATUSES: ReportStatus[] = ['generated', 'pending_review', 'signing', 'signed_off', 'rejected'];

export interface GenerateInput {
  framework: string;
  period: PeriodInput;
  reportType?: string;
  tenantId?: string;
}

export type ReportEvidenceWithProof = ReportEvidence & { proof?: EvidenceProofResult };

export interface ReportEvidencePage {
  items: ReportEvidenceWithProof[];
  nextCursor: string | null;
}

export interface ReportPage {
  reports: ComplianceReport[];
  nextCursor: string | null;
}

export function resultOf(summary: ReportSummary): ReportResult {
  if (summary.controls > 0 && summary.not_satisfied === 0) return 'pass';
  return summary.satisfied === 0 ? 'fail' : 'partial';
}

/** SHA-256 of the RFC 8785 canonical JSON of what the report asserts: its scope, verdicts and checkpoint. */
export function reportDigest(
  report: Pick<ComplianceReport, 'id' | 'tenantId' | 'framework' | 'reportType' | 'period'>,
  summary: ReportSummary,
  result: ReportResult,
  checkpoint: LedgerCheckpoint | null,
  controls: ReportControl[],
): string {
  const body = {
    report_id: report.id,
    tenant_id: report.tenantId,
    framework: report.framework,
    report_type: report.reportType,
    period: {
      start: report.period.start.toISOString(),
      end: report.period.end.toISOString(),
      label: report.period.label,
    },
    result,
    summary,
    checkpoint,
    controls: controls.map((c) => ({
      control_id: c.controlId,
      freshness: c.freshness,
      satisfied: c.satisfied,
      evidence_count: c.evidenceCount,
    })),
  };
  return crypto
    .createHash('sha256')
    .update(canonicalize(body) ?? '')
    .digest('hex');
}

export class ReportService {
  constructor(
    private readonly sql: SqlExecutor,
    private readonly store: ReportStore,
    private readonly catalog: CatalogService,
    private readonly evidence: EvidenceService,
    private readonly ledger: ReportLedger,
    private readonly access: TenantAccess,
    private readonly config: Pick<ComplianceConfig, 'expiringDays'>,
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async generate(caller: Caller, input: GenerateInput): Promise<ComplianceReport> {
    assertMayWrite(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenant_id'], 'compliance.report.generate');
    const reportType = input.reportType ?? 'periodic';
    if (!REPORT_TYPE.test(reportType))
      throw InputError.of(
        ['report_type'],
        `String should match pattern '${REPORT_TYPE.source}'`,
        'string_pattern_mismatch',
      );
    const now = this.now();
    const period = parsePeriod(input.period, now);
    const framework = await this.catalog.frameworkOf(tenantId, input.framework);
    // Evidence whose ledger append failed earlier gets another chance, so the report can prove it.
    await this.evidence.recordPending(tenantId).catch(() => 0);
    const id = randomUUID();
    const summary = await this.sql.transaction((tx) =>
      this.store.snapshot(
        tx,
        tenantId,
        {
          id,
          framework: framework.framework,
          reportType,
          periodStart: period.start,
          periodEnd: period.end,
          periodLabel: period.label,
          generatedBy: caller.auth?.username ?? null,
          generatedAt: now,
        },
        asOfInstant(period, now),
        this.config.expiringDays,
      ),
    );
    let checkpoint: LedgerCheckpoint | null = null;
    try {
      if (summary.evidence_links > summary.unrecorded)
        checkpoint = await this.ledger.checkpoint(tenantId, caller.correlationId);
    } catch (err) {
      await this.sql.transaction((tx) => this.store.discard(tx, tenantId, id));
      throw ledgerFailure(err, 'The ledger could not take the report checkpoint');
    }
    const result = resultOf(summary);
    const controls = await this.store.controls(this.sql, tenantId, id);
    const digest = reportDigest(
      { id, tenantId, framework: framework.framework, reportType, period },
      summary,
      result,
      checkpoint,
      controls,
    );
    if (!(await this.store.markGenerated(this.sql, tenantId, id, { result, checkpoint, contentSha256: digest })))
      // The sweep (report.sweep.ts) took it for a generation a crash had cut: nothing of it is left.
      throw new UnavailableError('The report took too long to generate and was discarded: generate it again');
    return (await this.store.report(this.sql, tenantId, id))!;
  }

  async list(
    caller: Caller,
    input: { framework?: string; status?: string; first?: number; after?: string; tenantId?: string },
  ): Promise<ReportPage> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, input.tenantId, ['tenant_id'], 'compliance.report.list');
    const limit = input.first ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200)
      throw InputError.of(['limit'], 'Input should be between 1 and 200', 'value_error');
    if (input.status !== undefined && !STATUSES.includes(input.status as ReportStatus))
      throw InputError.of(['status'], `Input should be one of ${STATUSES.map((s) => `'${s}'`).join(', ')}`, 'enum');
    let after: { generatedAt: Date; id: string } | undefined;
    if (input.after) {
      const [at, id] = listCursor.decode(input.after, 'cursor').split('|');
      const generatedAt = new Date(at ?? '');
      if (!id || !UUID.test(id) || Number.isNaN(generatedAt.getTime()))
        throw InputError.of(['cursor'], 'Invalid cursor', 'value_error');
      after = { generatedAt, id };
    }
    const reports = await this.store.reports(this.sql, tenantId, {
      framework: input.framework,
      status: input.status as ReportStatus | undefined,
      limit: limit + 1,
      after,
    });
    const page = reports.slice(0, limit);
    const last = page[page.length - 1];
    return {
      reports: page,
      nextCursor:
        reports.length > limit && last ? listCursor.encode(`${last.generatedAt.toISOString()}|${last.id}`) : null,
    };
  }

  /** A report of the caller's tenant (404 for another tenant's, as for none). */
  async report(caller: Caller, id: string, requestedTenant?: string): Promise<ComplianceReport> {
    assertMayRead(caller);
    const tenantId = await this.access.resolve(caller, requestedTenant, ['tenant_id'], 'compliance.report.read');
    return this.reportIn(tenantId, id);
  }

  private async reportIn(tenantId: string, id: string): Promise<ComplianceReport> {
    if (!UUID.test(id)) throw InputError.of(['report_id'], 'Input should be a valid UUID', 'uuid_parsing');
    const found = await this.store.report(this.sql, tenantId, id);
    if (!found) throw new NotFoundError(`Report ${id} not found`);
    return found;
  }

  controls(report: ComplianceReport): Promise<ReportControl[]> {
    return this.store.controls(this.sql, report.tenantId, report.id);
  }

  /** The report's evidence, paged by (control, item); with `proofs`, each item's inclusion proof against the report's checkpoint. */
  async evidencePage(
    caller: Caller,
    id: string,
    input: { controlId?: string; first?: number; after?: string; proofs?: boolean; tenantId?: string },
  ): Promise<ReportEvidencePage> {
    const report = await this.report(caller, id, input.tenantId);
    const max = input.proofs ? REPORT_LIMITS.maxProofPageSize : REPORT_LIMITS.maxPageSize;
    const limit = input.first ?? REPORT_LIMITS.pageSize;
    if (!Number.isInteger(limit) || limit < 1 || limit > max)
      throw InputError.of(['limit'], `Input should be between 1 and ${max}`, 'value_error');
    let after: { controlId: string; itemId: string } | undefined;
    if (input.after) {
      const text = evidenceCursor.decode(input.after, 'cursor');
      const cut = text.lastIndexOf('|');
      const itemId = text.slice(cut + 1);
      if (cut < 1 || !UUID.test(itemId)) throw InputError.of(['cursor'], 'Invalid cursor', 'value_error');
      after = { controlId: text.slice(0, cut), itemId };
    }
    const rows = await this.store.evidence(this.sql, report.tenantId, report.id, {
      controlId: input.controlId,
      limit: limit + 1,
      after,
    });
    const page = rows.slice(0, limit);
    const proofs = input.proofs ? await this.proofs(report, page, caller.correlationId) : undefined;
    const last = page[page.length - 1];
    return {
      items: page.map((e) => (proofs ? { ...e, proof: proofs.get(e.itemId) } : e)),
      nextCursor: rows.length > limit && last ? evidenceCursor.encode(`${last.controlId}|${last.itemId}`) : null,
    };
  }

  /**
   * Inclusion proofs of `items` against the report's checkpoint: the ledger's batch route, up to
   * 1,000 entries a call (the proofs of one tree share their upper nodes, which the ledger reads
   * once), a few calls in flight.
   */
  async proofs(
    report: ComplianceReport,
    items: ReportEvidence[],
    correlationId?: string,
  ): Promise<Map<string, EvidenceProofResult>> {
    const out = new Map<string, EvidenceProofResult>();
    const byEntry = new Map<string, string[]>();
    for (const item of items) {
      if (out.has(item.itemId)) continue;
      if (!item.ledgerEntryId || !report.checkpoint) {
        out.set(item.itemId, { error: 'not recorded in the ledger when the report was generated' });
        continue;
      }
      const entry = item.ledgerEntryId.toLowerCase();
      byEntry.set(entry, [...(byEntry.get(entry) ?? []), item.itemId]);
    }
    const entries = [...byEntry.keys()];
    const chunks = Array.from({ length: Math.ceil(entries.length / REPORT_LIMITS.proofBatch) }, (_, i) =>
      entries.slice(i * REPORT_LIMITS.proofBatch, (i + 1) * REPORT_LIMITS.proofBatch),
    );
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const chunk = chunks[next++]!;
        try {
          const batch = await this.ledger.inclusionProofs(
            report.tenantId,
            chunk,
            report.checkpoint!.tree_size,
            correlationId,
          );
          for (const p of batch.proofs)
            for (const itemId of byEntry.get(p.entry.id.toLowerCase()) ?? [])
              out.set(itemId, { proof: inclusionOf(batch, p) });
          for (const id of batch.not_found)
            for (const itemId of byEntry.get(id) ?? [])
              out.set(itemId, { error: "the ledger holds no such entry in the report's checkpoint" });
        } catch (err) {
          this.logger.warn(
            { err, reportId: report.id, entries: chunk.length },
            'compliance: report proofs unavailable',
          );
          for (const id of chunk)
            for (const itemId of byEntry.get(id) ?? [])
              out.set(itemId, { error: 'the ledger did not answer; try again' });
        }
      }
    };
    await Promise.all(Array.from({ length: REPORT_LIMITS.proofConcurrency }, worker));
    return out;
  }

  /**
   * Every item of the report with its inclusion proof against the report's checkpoint (or why it
   * has none), in batches: the full proof export an auditor checks offline. The report's
   * (item, entry) pairs are read in pages, then the ledger proves all the entries from the
   * checkpoint's tree built once (`inclusionProofStream`; a million entries in seconds), or, when
   * the ledger offers no stream, through the batch route a thousand at a time.
   */
  async *proofExport(
    caller: Caller,
    id: string,
    requestedTenant?: string,
  ): AsyncGenerator<{ itemId: string; result: EvidenceProofResult }[]> {
    const report = await this.report(caller, id, requestedTenant);
    const itemsOf = new Map<string, string[]>();
    const unrecorded: string[] = [];
    const seen = new Set<string>();
    for (let after: { controlId: string; itemId: string } | null = null; ;) {
      const page = await this.store.itemEntries(this.sql, report.tenantId, report.id, after, EXPORT_PAGE);
      for (const { itemId, ledgerEntryId } of page) {
        if (seen.has(itemId)) continue;
        seen.add(itemId);
        if (!ledgerEntryId || !report.checkpoint) unrecorded.push(itemId);
        else {
          const entry = ledgerEntryId.toLowerCase();
          const items = itemsOf.get(entry);
          if (items) items.push(itemId);
          else itemsOf.set(entry, [itemId]);
        }
      }
      if (page.length < EXPORT_PAGE) break;
      after = page[page.length - 1]!;
    }
    seen.clear();
    if (unrecorded.length > 0)
      yield unrecorded.map((itemId) => ({
        itemId,
        result: { error: 'not recorded in the ledger when the report was generated' },
      }));
    if (itemsOf.size === 0) return;
    const stream = this.ledger.inclusionProofStream;
    if (!stream) {
      // No stream at the ledger: the batch route, a page of entries at a time.
      const entries = [...itemsOf.keys()];
      for (let i = 0; i < entries.length; i += EXPORT_PAGE) {
        const items = entries
          .slice(i, i + EXPORT_PAGE)
          .flatMap((e) => itemsOf.get(e)!.map((itemId) => ({ itemId, ledgerEntryId: e }) as ReportEvidence));
        const proofs = await this.proofs(report, items, caller.correlationId);
        yield [...proofs].map(([itemId, result]) => ({ itemId, result }));
      }
      return;
    }
    const batches = stream.call(this.ledger, report.tenantId, [...itemsOf.keys()], report.checkpoint!.tree_size);
    // A ledger refusal or outage as the doors answer it (429/503), not a 500, even mid-export.
    const iterator = batches[Symbol.asyncIterator]();
    const nextBatch = async () => {
      try {
        return await iterator.next();
      } catch (err) {
        throw ledgerFailure(err, "The report's proofs are unavailable");
      }
    };
    let finished = false;
    try {
      for (let step = await nextBatch(); !step.done; step = await nextBatch()) {
        const batch = step.value;
        const out: { itemId: string; result: EvidenceProofResult }[] = [];
        for (const p of batch.proofs)
          for (const itemId of itemsOf.get(p.entry.id.toLowerCase()) ?? [])
            out.push({ itemId, result: { proof: inclusionOf(batch, p) } });
        for (const entry of batch.not_found)
          for (const itemId of itemsOf.get(entry) ?? [])
            out.push({ itemId, result: { error: "the ledger holds no such entry in the report's checkpoint" } });
        yield out;
      }
      finished = true;
    } finally {
      // A consumer that stopped early: the ledger's answer is dropped, not left open.
      if (!finished) await iterator.return?.(undefined).catch(() => undefined);
    }
  }

  /** The report as OSCAL 1.0.0 assessment results, checked against NIST's schema before it is served. */
  async oscal(caller: Caller, id: string, requestedTenant?: string): Promise<Record<string, unknown>> {
    const report = await this.report(caller, id, requestedTenant);
    const framework = await this.catalog.frameworkOf(report.tenantId, report.framework);
    const controls = await this.controls(report);
    const evidence = await this.store.evidencePerControl(
      this.sql,
      report.tenantId,
      report.id,
      REPORT_LIMITS.oscalEvidencePerControl,
    );
    const doc = assessmentResults(report, framework, controls, evidence, (item) => `/api/compliance/evidence/${item}`);
    const issues = schemaIssues('assessment-results', doc);
    // Our own output failing NIST's schema is our bug, not the caller's: a 500 that says so.
    if (issues.length > 0) throw new Error(`OSCAL export of report ${id} is invalid: ${JSON.stringify(issues[0])}`);
    return doc;
  }

  /** The human-readable document (HTML, print CSS), with the newest evidence of each control and its proofs. */
  async document(caller: Caller, id: string, requestedTenant?: string): Promise<string> {
    const report = await this.report(caller, id, requestedTenant);
    const framework = await this.catalog.frameworkOf(report.tenantId, report.framework);
    const controls = await this.controls(report);
    const evidence = await this.store.evidencePerControl(
      this.sql,
      report.tenantId,
      report.id,
      REPORT_LIMITS.documentEvidencePerControl,
    );
    const proofs = await this.proofs(report, evidence, caller.correlationId);
    return reportDocument(report, framework, controls, evidence, proofs);
  }
}
