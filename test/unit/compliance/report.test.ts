// The pure parts of compliance reports: periods (quarters, intervals, refusals naming the field),
// the result from the counts, the digest's stability, the OSCAL export against NIST's vendored
// assessment-results schema (Ajv, strict) for a report with and without evidence, and the HTML
// document escaping every tenant-supplied value.
import { schemaIssues } from '../../../subgraphs/compliance/oscal/oscal-schemas';
import { escapeHtml, reportDocument } from '../../../subgraphs/compliance/report.document';
import { assessmentResults, derivedUuid } from '../../../subgraphs/compliance/report.oscal';
import { asOfInstant, parsePeriod } from '../../../subgraphs/compliance/report.period';
import { reportDigest, resultOf } from '../../../subgraphs/compliance/report.service';
import type { ComplianceReport, ReportControl, ReportSummary } from '../../../subgraphs/compliance/report.types';
import { InputError } from '../../../platform/errors/domain-errors';

const NOW = new Date('2026-11-28T12:00:00Z');
const HOSTILE = `<script>alert('x')</script>"&`;

function issueOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof InputError) return err.issues[0];
    throw err;
  }
  throw new Error('no error');
}

const summary = (satisfied: number, controls: number): ReportSummary => ({
  controls,
  satisfied,
  not_satisfied: controls - satisfied,
  fresh: satisfied,
  expiring: 0,
  stale: controls - satisfied,
  evidence_items: satisfied,
  evidence_links: satisfied,
  unrecorded: 0,
});

const report: ComplianceReport = {
  tenantId: 't',
  id: '6f1c1d2e-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
  framework: 'nist-800-53',
  reportType: 'periodic',
  period: parsePeriod('2026-Q3', NOW),
  status: 'signed_off',
  result: 'partial',
  summary: summary(1, 2),
  checkpoint: {
    format: 'ledger-checkpoint/v1',
    id: 'c',
    tenant_id: 't',
    tree_size: 7,
    root_hash: 'a'.repeat(64),
    timestamp: '2026-11-28T12:00:00.000000+00:00',
    key_id: 'k',
    signature: 's',
  },
  contentSha256: 'b'.repeat(64),
  generatedBy: HOSTILE,
  generatedAt: NOW,
  submittedBy: 'ann',
  submittedAt: NOW,
  reviewedBy: 'rex',
  reviewedAt: NOW,
  reviewNotes: HOSTILE,
  ledgerEntryId: '0b7d6b0e-8f55-4d3f-9a57-6c1d7b2b1a11',
  ledgerChainHash: 'c'.repeat(64),
  workflowId: null,
  approvalTaskId: null,
};

const controls: ReportControl[] = [
  {
    controlId: 'ac-2',
    title: `Account Management ${HOSTILE}`,
    position: 0,
    freshness: 'fresh',
    satisfied: true,
    evidenceCount: 3,
    lastCollectedAt: new Date('2026-09-01T00:00:00Z'),
    expiresAt: new Date('2026-12-01T00:00:00Z'),
  },
  {
    controlId: 'au-2',
    title: '  Event Logging  ',
    position: 1,
    freshness: 'stale',
    satisfied: false,
    evidenceCount: 0,
    lastCollectedAt: null,
    expiresAt: null,
  },
];

const evidence = [
  {
    controlId: 'ac-2',
    itemId: 'd0c0a0b0-0000-4000-8000-000000000001',
    revision: 2,
    contentSha256: 'd'.repeat(64),
    source: HOSTILE,
    collectedAt: new Date('2026-09-01T00:00:00Z'),
    expiresAt: new Date('2026-12-01T00:00:00Z'),
    ledgerEntryId: null,
  },
];

describe('periods', () => {
  it('reads quarters and intervals in UTC', () => {
    expect(parsePeriod('2026-Q4', NOW)).toEqual({
      start: new Date('2026-10-01T00:00:00Z'),
      end: new Date('2027-01-01T00:00:00Z'),
      label: '2026-Q4',
    });
    expect(parsePeriod({ start: '2026-01-01', end: '2026-02-01T00:00:00Z' }, NOW).label).toBe(
      '2026-01-01T00:00:00.000Z/2026-02-01T00:00:00.000Z',
    );
    expect(asOfInstant(parsePeriod('2026-Q4', NOW), NOW)).toEqual(NOW);
    expect(asOfInstant(parsePeriod('2026-Q3', NOW), NOW)).toEqual(new Date('2026-10-01T00:00:00Z'));
  });

  it('refuses nonsense, a future start, an inverted or too long period, naming the field', () => {
    expect(issueOf(() => parsePeriod('2026-Q5', NOW))?.loc).toEqual(['period']);
    expect(issueOf(() => parsePeriod('2027-Q1', NOW))?.loc).toEqual(['period', 'start']);
    expect(issueOf(() => parsePeriod({ start: '2026-02-01', end: '2026-01-01' }, NOW))?.loc).toEqual(['period', 'end']);
    expect(issueOf(() => parsePeriod({ start: '2024-01-01', end: '2026-01-01' }, NOW))?.loc).toEqual(['period']);
    expect(issueOf(() => parsePeriod({ start: 'x', end: '2026-01-01' }, NOW))?.loc).toEqual(['period', 'start']);
    expect(issueOf(() => parsePeriod({ start: 3 as unknown as string, end: '2026-01-01' }, NOW))?.loc).toEqual([
      'period',
      'start',
    ]);
  });
});

describe('result and digest', () => {
  it('is pass, partial or fail from the counts', () => {
    expect(resultOf(summary(2, 2))).toBe('pass');
    expect(resultOf(summary(1, 2))).toBe('partial');
    expect(resultOf(summary(0, 2))).toBe('fail');
    expect(resultOf(summary(0, 0))).toBe('fail');
  });

  it('hashes what the report asserts, not its review status', () => {
    const d = reportDigest(report, report.summary, 'partial', report.checkpoint, controls);
    expect(d).toMatch(/^[0-9a-f]{64}$/);
    expect(reportDigest({ ...report }, report.summary, 'partial', report.checkpoint, controls)).toBe(d);
    expect(reportDigest(report, report.summary, 'pass', report.checkpoint, controls)).not.toBe(d);
  });
});

describe('OSCAL assessment results', () => {
  it("passes NIST's schema, with evidence and without, and derives stable version-4 UUIDs", () => {
    const doc = assessmentResults(
      report,
      { framework: 'nist-800-53', title: ' NIST ', version: '5', oscalUuid: 'u' },
      controls,
      evidence,
      (id) => `/e/${id}`,
    );
    expect(schemaIssues('assessment-results', doc)).toEqual([]);
    const empty = assessmentResults(
      { ...report, status: 'generated', checkpoint: null, reviewedBy: null, reviewedAt: null, ledgerEntryId: null },
      { framework: 'x', title: 'X', version: '1', oscalUuid: 'u' },
      [],
      [],
      (id) => id,
    );
    expect(schemaIssues('assessment-results', empty)).toEqual([]);
    expect(derivedUuid('a', 'b')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedUuid('a', 'b')).toBe(derivedUuid('a', 'b'));
  });
});

describe('the HTML document', () => {
  it('escapes every value from a tenant', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    const html = reportDocument(
      report,
      { framework: 'nist-800-53', title: HOSTILE, version: HOSTILE },
      controls,
      evidence,
      new Map([[evidence[0]!.itemId, { error: HOSTILE }]]),
    );
    expect(html).not.toContain('<script>');
    expect(html.split('&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;').length - 1).toBeGreaterThanOrEqual(
      6,
    );
  });
});
