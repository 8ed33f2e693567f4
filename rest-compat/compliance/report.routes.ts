// The compliance reports' REST door under /api/compliance/reports (docs/compliance.md,
// "Reports"): generate, list, read (JSON), the evidence with proofs (paged), the OSCAL
// assessment-results export, the HTML document, submit for review and sign off. Thin adapters
// over subgraphs/compliance/report.service.ts.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { ComplianceModule } from '../../subgraphs/compliance/compliance.module';
import type { EvidenceProofResult } from '../../subgraphs/compliance/report.document';
import type { ComplianceReport, ReportControl, ReportEvidence } from '../../subgraphs/compliance/report.types';
import { responses } from './compliance.schemas';
import {
  GenerateBody,
  ReportEvidencePage,
  ReportEvidenceQuery,
  ReportList,
  ReportListQuery,
  ReportParams,
  ReportSchema,
  ReportTenantQuery,
  ReportWithControls,
  SignOffBody,
  SubmitBody,
} from './report.schemas';

const PREFIX = '/api/compliance/reports';
const tags = ['reports'];
const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function reportJson(r: ComplianceReport) {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    framework: r.framework,
    report_type: r.reportType,
    period: { start: r.period.start.toISOString(), end: r.period.end.toISOString(), label: r.period.label },
    status: r.status,
    result: r.result,
    summary: r.summary,
    checkpoint: r.checkpoint,
    content_sha256: r.contentSha256,
    generated_by: r.generatedBy,
    generated_at: r.generatedAt.toISOString(),
    submitted_by: r.submittedBy,
    submitted_at: iso(r.submittedAt),
    reviewed_by: r.reviewedBy,
    reviewed_at: iso(r.reviewedAt),
    review_notes: r.reviewNotes,
    ledger_entry_id: r.ledgerEntryId,
    ledger_chain_hash: r.ledgerChainHash,
    workflow_id: r.workflowId,
    approval_task_id: r.approvalTaskId,
  };
}

export function reportControlJson(c: ReportControl) {
  return {
    control_id: c.controlId,
    title: c.title,
    freshness: c.freshness,
    satisfied: c.satisfied,
    evidence_count: c.evidenceCount,
    last_collected_at: iso(c.lastCollectedAt),
    expires_at: iso(c.expiresAt),
  };
}

function evidenceJson(e: ReportEvidence & { proof?: EvidenceProofResult }) {
  return {
    control_id: e.controlId,
    item_id: e.itemId,
    revision: e.revision,
    content_sha256: e.contentSha256,
    source: e.source,
    collected_at: e.collectedAt.toISOString(),
    expires_at: e.expiresAt.toISOString(),
    ledger_entry_id: e.ledgerEntryId,
    ...(e.proof ? { proof: 'proof' in e.proof ? e.proof.proof : { error: e.proof.error } } : {}),
  };
}

export function registerReportRoutes(routes: FastifyInstance, { reports, signOff }: ComplianceModule): void {
  const signOffCaller = (request: FastifyRequest) => ({
    ...callerOf(request),
    token: bearerToken(request.headers.authorization),
  });
  routes.post<{ Body: GenerateBody }>(
    PREFIX,
    {
      schema: {
        tags,
        summary:
          'Generates a report of a framework for a period (a snapshot of its evidence and one ledger checkpoint)',
        body: GenerateBody,
        response: { ...responses(ReportSchema), 201: ReportSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const report = await reports.generate(callerOf(request), {
        framework: b.framework,
        period: b.period,
        reportType: b.report_type,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(reportJson(report));
    },
  );

  routes.get<{ Querystring: ReportListQuery }>(
    PREFIX,
    {
      config: { inputNames: { after: 'cursor', first: 'limit' } },
      schema: {
        tags,
        summary: "The tenant's reports, newest first",
        querystring: ReportListQuery,
        response: responses(ReportList),
      },
    },
    async (request) => {
      const q = request.query;
      const page = await reports.list(callerOf(request), {
        framework: q.framework,
        status: q.status,
        first: q.limit,
        after: q.cursor,
        tenantId: q.tenant_id,
      });
      return { reports: page.reports.map(reportJson), next_cursor: page.nextCursor };
    },
  );

  routes.get<{ Params: ReportParams; Querystring: ReportTenantQuery }>(
    `${PREFIX}/:report_id`,
    {
      schema: {
        tags,
        summary: 'A report (JSON) with its per-control verdicts',
        params: ReportParams,
        querystring: ReportTenantQuery,
        response: responses(ReportWithControls),
      },
    },
    async (request) => {
      const report = await reports.report(callerOf(request), request.params.report_id, request.query.tenant_id);
      return { ...reportJson(report), controls: (await reports.controls(report)).map(reportControlJson) };
    },
  );

  routes.get<{ Params: ReportParams; Querystring: ReportEvidenceQuery }>(
    `${PREFIX}/:report_id/evidence`,
    {
      config: { inputNames: { after: 'cursor', first: 'limit', controlId: 'control_id' } },
      schema: {
        tags,
        summary: "A report's evidence by control, paged; with proofs=true each item's inclusion proof",
        params: ReportParams,
        querystring: ReportEvidenceQuery,
        response: responses(ReportEvidencePage),
      },
    },
    async (request) => {
      const q = request.query;
      const page = await reports.evidencePage(callerOf(request), request.params.report_id, {
        controlId: q.control_id,
        first: q.limit,
        after: q.cursor,
        proofs: q.proofs,
        tenantId: q.tenant_id,
      });
      return { items: page.items.map(evidenceJson), next_cursor: page.nextCursor };
    },
  );

  routes.get<{ Params: ReportParams; Querystring: ReportTenantQuery }>(
    `${PREFIX}/:report_id/oscal`,
    {
      schema: {
        tags,
        summary: "The report as OSCAL 1.0.0 assessment results (validated against NIST's schema)",
        params: ReportParams,
        querystring: ReportTenantQuery,
      },
    },
    async (request, reply) => {
      const doc = await reports.oscal(callerOf(request), request.params.report_id, request.query.tenant_id);
      return reply.type('application/json; charset=utf-8').send(doc);
    },
  );

  routes.get<{ Params: ReportParams; Querystring: ReportTenantQuery }>(
    `${PREFIX}/:report_id/document`,
    {
      schema: {
        tags,
        summary: 'The report as an HTML document with its evidence and proofs (print it to PDF)',
        params: ReportParams,
        querystring: ReportTenantQuery,
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      const html = await reports.document(callerOf(request), request.params.report_id, request.query.tenant_id);
      return reply
        .type('text/html; charset=utf-8')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
        .header('X-Content-Type-Options', 'nosniff')
        .send(html);
    },
  );

  routes.post<{ Params: ReportParams; Body: SubmitBody }>(
    `${PREFIX}/:report_id/submit`,
    {
      schema: {
        tags,
        summary: 'Puts a generated report in front of a reviewer (pending_review)',
        params: ReportParams,
        body: SubmitBody,
        response: responses(ReportSchema),
      },
    },
    async (request) =>
      reportJson(await signOff.submit(signOffCaller(request), request.params.report_id, request.body?.tenant_id)),
  );

  routes.post<{ Params: ReportParams; Body: SignOffBody }>(
    `${PREFIX}/:report_id/sign-off`,
    {
      schema: {
        tags,
        summary:
          'Approves (appended to the ledger as compliance_report) or rejects a report pending review; never by its generator',
        params: ReportParams,
        body: SignOffBody,
        response: responses(ReportSchema),
      },
    },
    async (request) =>
      reportJson(
        await signOff.signOff(signOffCaller(request), {
          id: request.params.report_id,
          decision: request.body.decision,
          notes: request.body.notes,
          tenantId: request.body.tenant_id,
        }),
      ),
  );
}
