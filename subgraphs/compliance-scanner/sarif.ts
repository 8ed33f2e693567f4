// A scan's report as SARIF 2.1.0, checked against the OASIS schema (platform/contracts/sarif,
// vendored from @microsoft/jest-sarif) before it is served. Every finding the scan saw is a
// result, suppressed ones included with their suppression (status accepted, justification,
// expiry): a report always shows what is waived. An inline `scanner:ignore` that no approved
// suppression backs is an `inSource` suppression with status `rejected`, and the finding stays.
import Ajv from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import sarifSchema from '../../platform/contracts/sarif/sarif-2.1.0-rtm.5.schema.json';
import type { ScannerPackDocument, ScannerSeverity } from '../../platform/contracts/scanner-pack.schema';
import type { Finding, Scan, ScanTarget, Suppression } from './scanner.types';

const LEVEL: Record<ScannerSeverity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  high: 'error',
  medium: 'warning',
  low: 'note',
  info: 'note',
};

/** GitHub's convention for a numeric severity (0-10) that code-scanning UIs sort by. */
const SECURITY_SEVERITY: Record<ScannerSeverity, string> = {
  critical: '9.5',
  high: '8.0',
  medium: '5.5',
  low: '3.0',
  info: '0.0',
};

// unicodeRegExp off: the published schema's `language` pattern has a stray `]`
// (`^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$`), an error only in a `u` regular expression.
const ajv = new Ajv({ allErrors: false, strict: false, unicodeRegExp: false });
addFormats(ajv);
const validateSarif = ajv.compile(sarifSchema as object);

/** The schema's first complaint, or null when the log is valid SARIF 2.1.0. */
export function sarifProblem(log: unknown): string | null {
  if (validateSarif(log)) return null;
  const e = validateSarif.errors?.[0];
  return e ? `${e.instancePath || '/'} ${e.message ?? 'is invalid'}` : 'invalid';
}

export function buildSarif(input: {
  scan: Scan;
  target: ScanTarget;
  pack: ScannerPackDocument;
  findings: readonly Finding[];
  suppressions: ReadonlyMap<string, Suppression>;
  serviceVersion: string;
}) {
  const { scan, target, pack } = input;
  const ruleIndex = new Map(pack.rules.map((r, i) => [r.id, i]));
  const ignored = new Set((scan.summary?.ignored_inline_skips ?? []).map((s) => s.fingerprint));
  const results = input.findings.map((f) => {
    const suppression = f.suppressionId ? input.suppressions.get(f.suppressionId) : undefined;
    const suppressions = [];
    if (f.status === 'suppressed' && suppression)
      suppressions.push({
        kind: 'external',
        status: 'accepted',
        justification: suppression.justification,
        guid: suppression.id,
        properties: {
          owner: suppression.owner,
          approver: suppression.approver,
          expires_at: suppression.expiresAt.toISOString(),
          scope: suppression.scope,
        },
      });
    if (ignored.has(f.fingerprint))
      suppressions.push({
        kind: 'inSource',
        status: 'rejected',
        justification: 'Inline scanner:ignore without an approved suppression: ignored',
      });
    const rule = pack.rules[ruleIndex.get(f.ruleId) ?? -1];
    return {
      ruleId: f.ruleId,
      ...(ruleIndex.has(f.ruleId) ? { ruleIndex: ruleIndex.get(f.ruleId)! } : {}),
      level: LEVEL[f.severity],
      message: { text: rule ? rule.description : f.ruleId },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: f.path, ...(target.kind === 'repository' ? { uriBaseId: 'TARGET' } : {}) },
            ...(f.line !== null ? { region: { startLine: f.line } } : {}),
          },
          ...(f.detail ? { logicalLocations: [{ name: f.detail }] } : {}),
        },
      ],
      partialFingerprints: { 'scannerFingerprint/v1': f.fingerprint },
      ...(suppressions.length > 0 ? { suppressions } : {}),
      properties: {
        status: f.status,
        first_seen: f.firstSeen.toISOString(),
        last_seen: f.lastSeen.toISOString(),
        controls: f.controls,
        finding_id: f.id,
      },
    };
  });
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0' as const,
    runs: [
      {
        tool: {
          driver: {
            name: 'compliance-scanner',
            version: input.serviceVersion,
            rules: pack.rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.description },
              help: { text: r.remediation },
              defaultConfiguration: { level: LEVEL[r.severity] },
              properties: {
                tags: r.controls,
                'security-severity': SECURITY_SEVERITY[r.severity],
                severity: r.severity,
              },
            })),
          },
        },
        automationDetails: { id: `${target.name}/${scan.id}` },
        ...(target.kind === 'repository'
          ? { originalUriBaseIds: { TARGET: { description: { text: target.name } } } }
          : {}),
        invocations: [
          {
            executionSuccessful: scan.status === 'completed',
            startTimeUtc: scan.startedAt.toISOString(),
            ...(scan.finishedAt ? { endTimeUtc: scan.finishedAt.toISOString() } : {}),
            toolExecutionNotifications: (scan.summary?.rule_errors ?? []).slice(0, 500).map((e) => ({
              level: 'warning',
              message: { text: e.message },
              descriptor: { id: e.rule_id },
              locations: [{ physicalLocation: { artifactLocation: { uri: e.path } } }],
            })),
          },
        ],
        properties: {
          pack_id: scan.packId,
          pack_version: scan.packVersion,
          skipped_files: scan.summary?.skipped_files ?? [],
          ignored_inline_skips: scan.summary?.ignored_inline_skips ?? [],
        },
        results,
      },
    ],
  };
}
