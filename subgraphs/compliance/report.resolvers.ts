// The compliance subgraph's report resolvers (merged into resolvers.ts): thin adapters over
// ReportService, the same calls as the REST door. Enum values are the domain's lower-case words.
import { InputError } from '../../platform/errors/domain-errors';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import { callerOf } from './graphql.context';
import type { PeriodInput } from './report.period';
import type { Resolvers } from './resolvers.generated';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function periodOf(input: { period?: string | null; start?: string | null; end?: string | null }): PeriodInput {
  if (input.period != null) return input.period;
  if (input.start == null || input.end == null)
    throw InputError.of(['period'], "Give a quarter ('2026-Q3') as period, or both start and end", 'missing');
  return { start: input.start, end: input.end };
}

export const reportResolvers = {
  ComplianceReportStatus: {
    GENERATED: 'generated',
    PENDING_REVIEW: 'pending_review',
    SIGNING: 'signing',
    SIGNED_OFF: 'signed_off',
    REJECTED: 'rejected',
  },
  ComplianceReportResult: { PASS: 'pass', PARTIAL: 'partial', FAIL: 'fail' },
  ComplianceReportDecision: { APPROVE: 'approve', REJECT: 'reject' },
  ComplianceReportPeriod: {
    start: (p) => p.start.toISOString(),
    end: (p) => p.end.toISOString(),
  },
  ComplianceReportSummary: {
    notSatisfied: (s) => s.not_satisfied,
    evidenceItems: (s) => s.evidence_items,
    evidenceLinks: (s) => s.evidence_links,
  },
  ComplianceReportControl: {
    lastCollectedAt: (c) => iso(c.lastCollectedAt),
    expiresAt: (c) => iso(c.expiresAt),
  },
  ComplianceReportEvidence: {
    collectedAt: (e) => e.collectedAt.toISOString(),
    expiresAt: (e) => e.expiresAt.toISOString(),
    proof: (e) => (e.proof === undefined ? null : 'proof' in e.proof ? e.proof.proof : { error: e.proof.error }),
  },
  ComplianceReport: {
    status: (r) => (r.status === 'generating' ? 'generated' : r.status),
    generatedAt: (r) => r.generatedAt.toISOString(),
    submittedAt: (r) => iso(r.submittedAt),
    reviewedAt: (r) => iso(r.reviewedAt),
    controls: (r, _, ctx) => ctx.compliance.reports.controls(r),
    evidence: (r, args, ctx) =>
      ctx.compliance.reports.evidencePage(callerOf(ctx), r.id, {
        controlId: opt(args.controlId),
        first: opt(args.first),
        after: opt(args.after),
        proofs: opt(args.proofs),
        tenantId: r.tenantId,
      }),
    oscal: (r, _, ctx) => ctx.compliance.reports.oscal(callerOf(ctx), r.id, r.tenantId),
    documentPath: (r) => `/api/compliance/reports/${r.id}/document`,
  },
  Query: {
    complianceReports: (_, args, ctx) =>
      ctx.compliance.reports.list(callerOf(ctx), {
        framework: opt(args.framework),
        status: opt(args.status),
        first: opt(args.first),
        after: opt(args.after),
        tenantId: opt(args.tenantId),
      }),
    complianceReport: (_, args, ctx) =>
      orNull(ctx.compliance.reports.report(callerOf(ctx), args.id, opt(args.tenantId))),
  },
  Mutation: {
    generateComplianceReport: (_, { input }, ctx) =>
      ctx.compliance.reports.generate(callerOf(ctx), {
        framework: input.framework,
        period: periodOf(input),
        reportType: opt(input.reportType),
        tenantId: opt(input.tenantId),
      }),
    submitComplianceReport: (_, args, ctx) => ctx.compliance.signOff.submit(callerOf(ctx), args.id, opt(args.tenantId)),
    signOffComplianceReport: (_, args, ctx) =>
      ctx.compliance.signOff.signOff(callerOf(ctx), {
        id: args.id,
        decision: args.decision,
        notes: opt(args.notes),
        tenantId: opt(args.tenantId),
      }),
  },
} satisfies Resolvers;
