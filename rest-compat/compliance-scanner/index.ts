// The scanner's REST door (port 8140, under /api/scanner/...; the gateway proxies the same
// paths), thin adapters over subgraphs/compliance-scanner: each handler builds the Caller, calls
// one domain method and shapes the JSON (snake_case). Authentication is the kernel's hook on the
// whole prefix; the pack key set is public (verifiers need no account).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../../platform/auth/jwt';
import { callerOf } from '../../platform/http/caller';
import type { ScannerModule } from '../../subgraphs/compliance-scanner/compliance-scanner.module';
import type {
  Finding,
  Scan,
  ScannerPack,
  ScanSchedule,
  ScanTarget,
  Suppression,
} from '../../subgraphs/compliance-scanner/scanner.types';
import {
  CreateScheduleBody,
  CreateTargetBody,
  FindingList,
  FindingQuery,
  IdParams,
  KeySet,
  PackList,
  PackListQuery,
  PackParams,
  PackSchema,
  responses,
  RunScanBody,
  Sarif,
  Sbom,
  ScheduleList,
  ScheduleSchema,
  ScanList,
  ScanListQuery,
  ScanSchema,
  SubmitPackBody,
  SuppressionBody,
  SuppressionList,
  SuppressionQuery,
  SuppressionSchema,
  TargetList,
  TargetSchema,
  TenantBody,
  TenantQuery,
} from './compliance-scanner.schemas';

const PREFIX = '/api/scanner';
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const query = { inputLocation: 'query' as const };

function packJson(p: ScannerPack) {
  return {
    pack_id: p.packId,
    version: p.version,
    status: p.status,
    pack: p.pack as unknown as Record<string, unknown>,
    sha256: p.sha256,
    author: p.author,
    submitted_at: p.submittedAt.toISOString(),
    certified_by: p.certifiedBy,
    certified_at: iso(p.certifiedAt),
    signature: p.signature,
    key_id: p.keyId,
  };
}

function targetJson(t: ScanTarget) {
  return {
    id: t.id,
    name: t.name,
    kind: t.kind,
    path: t.path,
    settings: t.settings,
    namespace: t.namespace,
    created_by: t.createdBy,
    created_at: t.createdAt.toISOString(),
  };
}

export function scanJson(s: Scan) {
  return {
    id: s.id,
    target_id: s.targetId,
    pack_id: s.packId,
    pack_version: s.packVersion,
    status: s.status,
    requested_by: s.requestedBy,
    trigger: s.trigger,
    schedule_id: s.scheduleId,
    started_at: s.startedAt.toISOString(),
    finished_at: iso(s.finishedAt),
    files_scanned: s.filesScanned,
    summary: s.summary,
    error: s.error,
  };
}

export function scheduleJson(s: ScanSchedule) {
  return {
    id: s.id,
    target_id: s.targetId,
    pack_id: s.packId,
    every_seconds: s.everySeconds,
    on_events: s.onEvents,
    due_at: iso(s.dueAt),
    due_trigger: s.dueTrigger,
    last_run_at: iso(s.lastRunAt),
    last_scan_id: s.lastScanId,
    last_error: s.lastError,
    created_by: s.createdBy,
    created_at: s.createdAt.toISOString(),
  };
}

export function findingJson(f: Finding) {
  return {
    id: f.id,
    target_id: f.targetId,
    fingerprint: f.fingerprint,
    rule_id: f.ruleId,
    pack_id: f.packId,
    pack_version: f.packVersion,
    severity: f.severity,
    status: f.status,
    path: f.path,
    line: f.line,
    detail: f.detail,
    controls: f.controls,
    inline_skip: f.inlineSkip,
    suppression_id: f.suppressionId,
    first_seen: f.firstSeen.toISOString(),
    last_seen: f.lastSeen.toISOString(),
    last_scan_id: f.lastScanId,
  };
}

export function suppressionJson(s: Suppression) {
  return {
    id: s.id,
    scope: s.scope,
    fingerprint: s.fingerprint,
    rule_id: s.ruleId,
    path_glob: s.pathGlob,
    purl: s.purl,
    owner: s.owner,
    justification: s.justification,
    expires_at: s.expiresAt.toISOString(),
    status: s.status,
    requested_by: s.requestedBy,
    approver: s.approver,
    workflow_id: s.workflowId,
    created_at: s.createdAt.toISOString(),
    decided_at: iso(s.decidedAt),
  };
}

export function registerComplianceScannerRoutes(routes: FastifyInstance, scanner: ScannerModule): void {
  const { packs, targets, scans, suppressions, schedules } = scanner;

  routes.post<{ Body: SubmitPackBody }>(
    `${PREFIX}/packs`,
    {
      bodyLimit: 600 * 1024,
      schema: {
        tags: ['packs'],
        summary: 'Submits a scanner pack (a draft until a second person certifies it)',
        body: SubmitPackBody,
        response: { ...responses(PackSchema), 201: PackSchema },
      },
    },
    async (request, reply) => {
      const r = await packs.submit(callerOf(request), { pack: request.body.pack, tenantId: request.body.tenant_id });
      return reply.code(r.created ? 201 : 200).send(packJson(r.pack));
    },
  );

  routes.get<{ Querystring: PackListQuery }>(
    `${PREFIX}/packs`,
    {
      config: query,
      schema: {
        tags: ['packs'],
        summary: "The tenant's scanner packs",
        querystring: PackListQuery,
        response: responses(PackList),
      },
    },
    async (request) => ({
      packs: (
        await packs.list(callerOf(request), { status: request.query.status, tenantId: request.query.tenant_id })
      ).map(packJson),
    }),
  );

  routes.get<{ Params: PackParams; Querystring: TenantQuery }>(
    `${PREFIX}/packs/:pack_id/versions/:version`,
    {
      config: query,
      schema: {
        tags: ['packs'],
        summary: 'One scanner pack version',
        params: PackParams,
        querystring: TenantQuery,
        response: responses(PackSchema),
      },
    },
    async (request) =>
      packJson(
        await packs.get(callerOf(request), {
          packId: request.params.pack_id,
          version: request.params.version,
          tenantId: request.query.tenant_id,
        }),
      ),
  );

  routes.post<{ Params: PackParams; Body: TenantBody }>(
    `${PREFIX}/packs/:pack_id/versions/:version/certify`,
    {
      schema: {
        tags: ['packs'],
        summary: 'Certifies and signs a draft (admin or reviewer of the tenant, never its author)',
        params: PackParams,
        body: TenantBody,
        response: responses(PackSchema),
      },
    },
    async (request) =>
      packJson(
        await packs.certify(callerOf(request), {
          packId: request.params.pack_id,
          version: request.params.version,
          tenantId: request.body?.tenant_id,
        }),
      ),
  );

  routes.get(
    `${PREFIX}/pack-keys`,
    {
      config: { auth: 'public' },
      schema: {
        tags: ['packs'],
        summary: 'The public keys that sign certified scanner packs (JWK Set, Ed25519)',
        response: { 200: KeySet },
      },
    },
    () => packs.keySet(),
  );

  routes.post<{ Body: CreateTargetBody }>(
    `${PREFIX}/targets`,
    {
      // The domain says repositoryPath where a scan may also mean a file's path.
      config: { inputNames: { repositoryPath: 'path' } },
      schema: {
        tags: ['targets'],
        summary: 'Registers a target: a repository inside SCANNER_ALLOWED_ROOTS, or a configuration',
        body: CreateTargetBody,
        response: { ...responses(TargetSchema), 201: TargetSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const t = await targets.create(callerOf(request), {
        name: b.name,
        kind: b.kind,
        path: b.path,
        settings: b.settings,
        namespace: b.namespace,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(targetJson(t));
    },
  );

  routes.get<{ Querystring: TenantQuery }>(
    `${PREFIX}/targets`,
    {
      config: query,
      schema: {
        tags: ['targets'],
        summary: "The tenant's targets",
        querystring: TenantQuery,
        response: responses(TargetList),
      },
    },
    async (request) => ({
      targets: (await targets.list(callerOf(request), { tenantId: request.query.tenant_id })).map(targetJson),
    }),
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/targets/:id`,
    {
      config: query,
      schema: {
        tags: ['targets'],
        summary: 'One target',
        params: IdParams,
        querystring: TenantQuery,
        response: responses(TargetSchema),
      },
    },
    async (request) =>
      targetJson(await targets.get(callerOf(request), { id: request.params.id, tenantId: request.query.tenant_id })),
  );

  routes.post<{ Body: RunScanBody }>(
    `${PREFIX}/scans`,
    {
      schema: {
        tags: ['scans'],
        summary: 'Runs a certified pack over a target now; answers the finished scan (or the running one, background)',
        body: RunScanBody,
        response: { ...responses(ScanSchema), 201: ScanSchema, 202: ScanSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const input = { targetId: b.target_id, packId: b.pack_id, packVersion: b.pack_version, tenantId: b.tenant_id };
      if (b.background) return reply.code(202).send(scanJson(await scans.startInBackground(callerOf(request), input)));
      const scan = await scans.run(callerOf(request), input);
      return reply.code(201).send(scanJson(scan));
    },
  );

  routes.get<{ Querystring: ScanListQuery }>(
    `${PREFIX}/scans`,
    {
      config: query,
      schema: {
        tags: ['scans'],
        summary: 'Scans, newest first',
        querystring: ScanListQuery,
        response: responses(ScanList),
      },
    },
    async (request) => ({
      scans: (
        await scans.list(callerOf(request), {
          targetId: request.query.target_id,
          limit: request.query.limit,
          tenantId: request.query.tenant_id,
        })
      ).map(scanJson),
    }),
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/scans/:id`,
    {
      config: query,
      schema: {
        tags: ['scans'],
        summary: 'One scan with its summary',
        params: IdParams,
        querystring: TenantQuery,
        response: responses(ScanSchema),
      },
    },
    async (request) =>
      scanJson(await scans.get(callerOf(request), { id: request.params.id, tenantId: request.query.tenant_id })),
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/scans/:id/sarif`,
    {
      config: query,
      schema: {
        tags: ['scans'],
        summary: "The scan's report as SARIF 2.1.0 (validated against the schema), suppressed findings included",
        params: IdParams,
        querystring: TenantQuery,
        response: responses(Sarif),
      },
    },
    async (request, reply) => {
      const log = await scans.sarif(callerOf(request), {
        scanId: request.params.id,
        tenantId: request.query.tenant_id,
      });
      return reply.type('application/sarif+json').send(log);
    },
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/scans/:id/sbom`,
    {
      config: query,
      schema: {
        tags: ['scans'],
        summary: "The scanned repository's CycloneDX 1.5 SBOM (from its package-lock.json, with licences)",
        params: IdParams,
        querystring: TenantQuery,
        response: responses(Sbom),
      },
    },
    async (request, reply) => {
      const sbom = await scans.sbom(callerOf(request), {
        scanId: request.params.id,
        tenantId: request.query.tenant_id,
      });
      return reply.type('application/vnd.cyclonedx+json').send(sbom);
    },
  );

  routes.post<{ Body: CreateScheduleBody }>(
    `${PREFIX}/schedules`,
    {
      config: { inputNames: { everySeconds: 'every_seconds', onEvents: 'on_events', targetId: 'target_id' } },
      schema: {
        tags: ['schedules'],
        summary: 'Scans a target with a pack every so often and/or on config.changed or ingestion.completed',
        body: CreateScheduleBody,
        response: { ...responses(ScheduleSchema), 201: ScheduleSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const s = await schedules.create(callerOf(request), {
        targetId: b.target_id,
        packId: b.pack_id,
        everySeconds: b.every_seconds,
        onEvents: b.on_events,
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(scheduleJson(s));
    },
  );

  routes.get<{ Querystring: TenantQuery }>(
    `${PREFIX}/schedules`,
    {
      config: query,
      schema: {
        tags: ['schedules'],
        summary: "The tenant's scan schedules",
        querystring: TenantQuery,
        response: responses(ScheduleList),
      },
    },
    async (request) => ({
      schedules: (await schedules.list(callerOf(request), { tenantId: request.query.tenant_id })).map(scheduleJson),
    }),
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/schedules/:id`,
    {
      config: query,
      schema: {
        tags: ['schedules'],
        summary: 'One schedule with its last run',
        params: IdParams,
        querystring: TenantQuery,
        response: responses(ScheduleSchema),
      },
    },
    async (request) =>
      scheduleJson(
        await schedules.get(callerOf(request), { id: request.params.id, tenantId: request.query.tenant_id }),
      ),
  );

  routes.delete<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/schedules/:id`,
    {
      config: query,
      schema: {
        tags: ['schedules'],
        summary: 'Deletes a schedule (its past scans stay)',
        params: IdParams,
        querystring: TenantQuery,
        response: { ...responses(Type.Null()), 204: Type.Null() },
      },
    },
    async (request, reply) => {
      await schedules.remove(callerOf(request), { id: request.params.id, tenantId: request.query.tenant_id });
      return reply.code(204).send();
    },
  );

  routes.get<{ Querystring: FindingQuery }>(
    `${PREFIX}/findings`,
    {
      config: query,
      schema: {
        tags: ['findings'],
        summary: 'Findings by target, scan and status',
        querystring: FindingQuery,
        response: responses(FindingList),
      },
    },
    async (request) => {
      const q = request.query;
      const found = await scans.findings(callerOf(request), {
        targetId: q.target_id,
        scanId: q.scan_id,
        status: q.status,
        limit: q.limit,
        tenantId: q.tenant_id,
      });
      return { findings: found.map(findingJson) };
    },
  );

  routes.post<{ Body: SuppressionBody }>(
    `${PREFIX}/suppressions`,
    {
      schema: {
        tags: ['suppressions'],
        summary: 'Requests a suppression: pending until a second person approves its workflow',
        body: SuppressionBody,
        response: { ...responses(SuppressionSchema), 201: SuppressionSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const s = await suppressions.request(
        callerOf(request),
        {
          scope: b.scope,
          fingerprint: b.fingerprint,
          ruleId: b.rule_id,
          pathGlob: b.path_glob,
          purl: b.purl,
          owner: b.owner,
          justification: b.justification,
          expiresAt: b.expires_at,
          tenantId: b.tenant_id,
        },
        { token: bearerToken(request.headers.authorization) },
      );
      return reply.code(201).send(suppressionJson(s));
    },
  );

  routes.get<{ Querystring: SuppressionQuery }>(
    `${PREFIX}/suppressions`,
    {
      config: query,
      schema: {
        tags: ['suppressions'],
        summary: 'Suppressions, newest first',
        querystring: SuppressionQuery,
        response: responses(SuppressionList),
      },
    },
    async (request) => ({
      suppressions: (
        await suppressions.list(callerOf(request), {
          status: request.query.status,
          limit: request.query.limit,
          tenantId: request.query.tenant_id,
        })
      ).map(suppressionJson),
    }),
  );

  routes.get<{ Params: IdParams; Querystring: TenantQuery }>(
    `${PREFIX}/suppressions/:id`,
    {
      config: query,
      schema: {
        tags: ['suppressions'],
        summary: 'One suppression',
        params: IdParams,
        querystring: TenantQuery,
        response: responses(SuppressionSchema),
      },
    },
    async (request) =>
      suppressionJson(
        await suppressions.get(callerOf(request), { id: request.params.id, tenantId: request.query.tenant_id }),
      ),
  );

  routes.post<{ Params: IdParams; Body: TenantBody }>(
    `${PREFIX}/suppressions/:id/refresh`,
    {
      schema: {
        tags: ['suppressions'],
        summary:
          "Reads the approval's outcome from the workflow service now (the sweep also does, every SCANNER_SWEEP_SECONDS)",
        params: IdParams,
        body: TenantBody,
        response: responses(SuppressionSchema),
      },
    },
    async (request) =>
      suppressionJson(
        await suppressions.refresh(callerOf(request), { id: request.params.id, tenantId: request.body?.tenant_id }),
      ),
  );
}
