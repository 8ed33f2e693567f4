// A report as a human-readable HTML document (pure): the verdicts, the sign-off, the ledger
// checkpoint, and per control its evidence with content hashes and inclusion proofs (leaf index
// and audit path against the report's checkpoint). Print CSS makes "Save as PDF" in a browser the
// PDF export (docs/compliance.md says why there is no server-side PDF). Every value that came
// from a tenant (titles, sources, usernames, notes) is escaped: the document is text, never markup.
import type { LedgerInclusionProof } from '../../platform/clients/ledger.client';
import type { Framework } from './compliance.types';
import type { ComplianceReport, ReportControl, ReportEvidence } from './report.types';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

/** A proof of one evidence item, or why there is none. */
export type EvidenceProofResult = { proof: LedgerInclusionProof } | { error: string };

const iso = (d: Date | null) => (d ? d.toISOString() : '—');

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #111; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid #bbb; padding: .25rem .4rem; text-align: left; vertical-align: top; }
code, .hash { font-family: ui-monospace, monospace; font-size: 11px; word-break: break-all; }
.satisfied { color: #0a6b2d; } .not-satisfied { color: #a1150f; }
.meta th { width: 14rem; background: #f3f3f3; }
details { margin: .15rem 0; }
@media print {
  body { margin: 0; font-size: 11px; }
  details > summary { display: none; } details { display: block; }
  section.control { break-inside: avoid-page; }
  a { color: inherit; text-decoration: none; }
}`;

export function reportDocument(
  report: ComplianceReport,
  framework: Pick<Framework, 'framework' | 'title' | 'version'>,
  controls: ReportControl[],
  evidence: ReportEvidence[],
  proofs: Map<string, EvidenceProofResult>,
): string {
  const e = escapeHtml;
  const byControl = new Map<string, ReportEvidence[]>();
  for (const item of evidence) byControl.set(item.controlId, [...(byControl.get(item.controlId) ?? []), item]);
  const s = report.summary;
  const cp = report.checkpoint;
  const meta: [string, string][] = [
    ['Report', `<code>${e(report.id)}</code>`],
    ['Tenant', e(report.tenantId)],
    ['Framework', `${e(framework.title)} (<code>${e(framework.framework)}</code>, version ${e(framework.version)})`],
    ['Report type', e(report.reportType)],
    [
      'Period',
      `${e(report.period.label)} (${e(iso(report.period.start))} to ${e(iso(report.period.end))}, end excluded)`,
    ],
    ['Result', `<strong>${e(report.result ?? '—')}</strong>: ${s.satisfied} of ${s.controls} controls satisfied`],
    ['Status', e(report.status)],
    ['Generated', `${e(iso(report.generatedAt))} by ${e(report.generatedBy ?? 'the service')}`],
    ['Reviewed', report.reviewedBy ? `${e(iso(report.reviewedAt))} by ${e(report.reviewedBy)}` : 'not yet'],
    ['Review notes', e(report.reviewNotes ?? '')],
    ['Content SHA-256', `<span class="hash">${e(report.contentSha256 ?? '')}</span>`],
    ['Ledger entry', report.ledgerEntryId ? `<code>${e(report.ledgerEntryId)}</code>` : 'written at sign-off'],
    [
      'Ledger checkpoint',
      cp
        ? `tree size ${e(cp.tree_size)}, root <span class="hash">${e(cp.root_hash)}</span>, ${e(cp.timestamp)}, key <code>${e(cp.key_id)}</code>, signature <span class="hash">${e(cp.signature)}</span>`
        : 'none (no evidence in the ledger)',
    ],
    [
      'Evidence',
      `${s.evidence_items} item(s), ${s.evidence_links} control link(s), ${s.unrecorded} not recorded in the ledger; freshness: ${s.fresh} fresh, ${s.expiring} expiring, ${s.stale} stale`,
    ],
  ];
  const rows = controls
    .map(
      (c) => `<tr><td><a href="#c-${e(c.controlId)}">${e(c.controlId)}</a></td><td>${e(c.title)}</td>
<td class="${c.satisfied ? 'satisfied' : 'not-satisfied'}">${c.satisfied ? 'satisfied' : 'not satisfied'}</td>
<td>${e(c.freshness)}</td><td>${c.evidenceCount}</td><td>${e(iso(c.lastCollectedAt))}</td><td>${e(iso(c.expiresAt))}</td></tr>`,
    )
    .join('\n');
  const sections = controls.map((c) => {
    const items = byControl.get(c.controlId) ?? [];
    const more = c.evidenceCount - items.length;
    const list = items
      .map((item) => {
        const p = proofs.get(item.itemId);
        const proof =
          p === undefined
            ? 'not fetched'
            : 'error' in p
              ? e(p.error)
              : `leaf ${e(p.proof.leaf_index)} of ${e(p.proof.tree_size)}; chain hash <span class="hash">${e(p.proof.entry.chain_hash)}</span>
<details><summary>audit path (${p.proof.audit_path.length})</summary><ol>${p.proof.audit_path.map((h) => `<li class="hash">${e(h)}</li>`).join('')}</ol></details>`;
        return `<tr><td><code>${e(item.itemId)}</code> r${e(item.revision)}</td><td>${e(item.source)}</td><td>${e(iso(item.collectedAt))}</td>
<td class="hash">${e(item.contentSha256)}</td><td><code>${e(item.ledgerEntryId ?? 'unrecorded')}</code></td><td>${proof}</td></tr>`;
      })
      .join('\n');
    return `<section class="control" id="c-${e(c.controlId)}"><h2>${e(c.controlId)}: ${e(c.title)}</h2>
<p>${c.evidenceCount} evidence item(s) in the period${more > 0 ? `; the newest ${items.length} are listed here, every one is in the JSON export (<code>/evidence?control_id=${e(c.controlId)}</code>)` : ''}.</p>
${items.length > 0 ? `<table><thead><tr><th>item</th><th>source</th><th>collected</th><th>content SHA-256</th><th>ledger entry</th><th>inclusion proof</th></tr></thead><tbody>${list}</tbody></table>` : ''}
</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${e(`Compliance report ${report.period.label}: ${framework.title}`)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><h1>Compliance report: ${e(framework.title)}</h1><p>${e(report.period.label)}</p>
<table class="meta"><tbody>${meta.map(([k, v]) => `<tr><th>${e(k)}</th><td>${v}</td></tr>`).join('\n')}</tbody></table>
<h2>Controls</h2>
<table><thead><tr><th>control</th><th>title</th><th>verdict</th><th>freshness</th><th>evidence</th><th>last collected</th><th>in force until</th></tr></thead>
<tbody>${rows}</tbody></table>
${sections.join('\n')}
<p>Check a proof offline: <code>npm run verify -- proof --jwks jwks.json proof.json</code> with the ledger's JWKS (docs/ledger.md).</p>
</body></html>`;
}
