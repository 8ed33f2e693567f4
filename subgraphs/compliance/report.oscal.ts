// A report as an OSCAL 1.0.0 assessment-results document (pure; the service validates it against
// NIST's vendored schema before serving). One `result` for the period: every control of the
// framework is a reviewed control and one finding (satisfied when evidence of the period is in
// force at its end), backed by one observation listing the control's evidence (the newest
// REPORT_LIMITS.oscalEvidencePerControl; the rest are counted in a property and are in the JSON
// export) with each item's content hash and ledger entry. The report's ledger checkpoint and its
// sign-off are properties of the result. UUIDs are derived from the report and control ids, so
// exporting the same report twice gives the same document.
import crypto from 'node:crypto';
import type { Framework } from './compliance.types';
import type { ComplianceReport, ReportControl, ReportEvidence } from './report.types';

/** Our namespace for properties OSCAL does not define. */
export const OSCAL_PROP_NS = 'https://regulated-platform.example/ns/oscal';
const OSCAL_VERSION = '1.0.0';

/** A version-4-shaped UUID from a hash of `parts` (OSCAL's UUID pattern insists on version 4). */
export function derivedUuid(...parts: string[]): string {
  const h = crypto.createHash('sha256').update(parts.join('\u0000')).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}

const prop = (name: string, value: string | number) => ({ name, ns: OSCAL_PROP_NS, value: String(value) });
/** OSCAL strings may not start or end with spaces, and may not be empty. */
const text = (value: string, fallback: string) => value.replace(/\s+/g, ' ').trim() || fallback;

export function assessmentResults(
  report: ComplianceReport,
  framework: Pick<Framework, 'framework' | 'title' | 'version' | 'oscalUuid'>,
  controls: ReportControl[],
  evidence: ReportEvidence[],
  /** The href an evidence item resolves to (its REST route). */
  evidenceHref: (itemId: string) => string,
): Record<string, unknown> {
  const byControl = new Map<string, ReportEvidence[]>();
  for (const e of evidence) byControl.set(e.controlId, [...(byControl.get(e.controlId) ?? []), e]);
  const observations = controls.map((c) => {
    const listed = byControl.get(c.controlId) ?? [];
    const obs: Record<string, unknown> = {
      uuid: derivedUuid(report.id, 'observation', c.controlId),
      title: `Evidence for ${c.controlId}`,
      description:
        c.evidenceCount === 0
          ? `No evidence for ${c.controlId} was collected in ${report.period.label}.`
          : `${c.evidenceCount} evidence item(s) for ${c.controlId} collected in ${report.period.label}; freshness at the period's end: ${c.freshness}.`,
      props: [
        prop('freshness', c.freshness),
        prop('evidence-count', c.evidenceCount),
        prop('evidence-listed', listed.length),
      ],
      methods: ['EXAMINE'],
      types: ['control-objective'],
      collected: (c.lastCollectedAt ?? report.generatedAt).toISOString(),
    };
    if (c.expiresAt) obs.expires = c.expiresAt.toISOString();
    if (listed.length > 0)
      obs['relevant-evidence'] = listed.map((e) => ({
        href: evidenceHref(e.itemId),
        description: text(`Evidence ${e.itemId} revision ${e.revision} from ${e.source}`, 'Evidence'),
        props: [
          prop('content-sha256', e.contentSha256),
          prop('collected', e.collectedAt.toISOString()),
          ...(e.ledgerEntryId ? [prop('ledger-entry-id', e.ledgerEntryId)] : [prop('ledger-entry-id', 'unrecorded')]),
        ],
      }));
    return obs;
  });
  const findings = controls.map((c) => ({
    uuid: derivedUuid(report.id, 'finding', c.controlId),
    title: text(`${c.controlId}: ${c.title}`, c.controlId),
    description: c.satisfied
      ? `Evidence collected in ${report.period.label} is in force at the period's end.`
      : `No evidence collected in ${report.period.label} is in force at the period's end.`,
    target: {
      type: 'objective-id',
      'target-id': c.controlId,
      status: { state: c.satisfied ? 'satisfied' : 'not-satisfied' },
    },
    'related-observations': [{ 'observation-uuid': derivedUuid(report.id, 'observation', c.controlId) }],
  }));
  const resultProps = [
    prop('report-id', report.id),
    prop('report-type', report.reportType),
    prop('result', report.result ?? 'none'),
    prop('status', report.status),
    ...(report.generatedBy ? [prop('generated-by', report.generatedBy)] : []),
    ...(report.reviewedBy && report.status === 'signed_off' ? [prop('signed-off-by', report.reviewedBy)] : []),
    ...(report.contentSha256 ? [prop('content-sha256', report.contentSha256)] : []),
    ...(report.checkpoint
      ? [
          prop('ledger-checkpoint-tree-size', report.checkpoint.tree_size),
          prop('ledger-checkpoint-root-hash', report.checkpoint.root_hash),
          prop('ledger-checkpoint-key-id', report.checkpoint.key_id),
        ]
      : []),
    ...(report.ledgerEntryId ? [prop('ledger-entry-id', report.ledgerEntryId)] : []),
  ];
  const planUuid = derivedUuid(report.id, 'assessment-plan');
  const result: Record<string, unknown> = {
    uuid: derivedUuid(report.id, 'result'),
    title: text(`${framework.title}: ${report.period.label}`, report.period.label),
    description: `Periodic evidence review of ${framework.framework} for ${report.period.label}: ${report.summary.satisfied} of ${report.summary.controls} controls satisfied.`,
    start: report.period.start.toISOString(),
    end: report.period.end.toISOString(),
    // OSCAL 1.0.0's assessment-results schema names a result's properties `prop` (singular),
    // unlike every other assembly's `props`; the vendored schema is the contract.
    prop: resultProps,
    'reviewed-controls': {
      'control-selections':
        controls.length > 0
          ? [{ 'include-controls': controls.map((c) => ({ 'control-id': c.controlId })) }]
          : [{ 'include-all': {} }],
    },
  };
  if (observations.length > 0) result.observations = observations;
  if (findings.length > 0) result.findings = findings;
  return {
    'assessment-results': {
      uuid: derivedUuid(report.id, 'assessment-results'),
      metadata: {
        title: text(`Compliance report ${report.period.label}: ${framework.title}`, 'Compliance report'),
        'last-modified': (report.reviewedAt ?? report.generatedAt).toISOString(),
        version: report.id,
        'oscal-version': OSCAL_VERSION,
        props: [prop('framework', framework.framework), prop('framework-version', text(framework.version, 'none'))],
      },
      // No separate assessment plan exists: the plan is "every control of the framework, from
      // the evidence of the period", described by a back-matter resource.
      'import-ap': { href: `#${planUuid}` },
      results: [result],
      'back-matter': {
        resources: [
          {
            uuid: planUuid,
            title: `Assessment plan: evidence review of ${framework.framework}`,
            description: `Every control of ${framework.framework} (OSCAL ${framework.oscalUuid}) is assessed from the evidence collected in the period and recorded in the tenant's ledger.`,
          },
        ],
      },
    },
  };
}
