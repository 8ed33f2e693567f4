// The compliance service's REST door (port 8135, under /api/compliance/...; the gateway proxies
// the same paths), thin adapters over subgraphs/compliance: each handler builds the Caller, calls
// one domain function and shapes the JSON (snake_case). Authentication is the kernel's hook on
// the whole prefix; the mapping-pack key set is public (verifiers need no account).
import type { FastifyInstance } from 'fastify';
import { callerOf } from '../../platform/http/caller';
import type { ComplianceModule } from '../../subgraphs/compliance/compliance.module';
import {
  LIMITS,
  type Control,
  type ControlFreshness,
  type ControlRef,
  type EvidenceItem,
  type Framework,
  type MappingPack,
} from '../../subgraphs/compliance/compliance.types';
import {
  AddEvidenceBody,
  ControlList,
  ControlParams,
  ControlSchema,
  EventBody,
  EvidencePage,
  EvidenceQuery,
  EvidenceSchema,
  FrameworkList,
  FrameworkParams,
  FrameworkSchema,
  ImportBody,
  IngestSchema,
  ItemParams,
  KeySet,
  PackList,
  PackListQuery,
  PackParams,
  PackSchema,
  ProofQuery,
  ProofSchema,
  responses,
  ReviseEvidenceBody,
  SubmitPackBody,
  TenantBody,
  TenantQuery,
} from './compliance.schemas';
import { registerReportRoutes } from './report.routes';
import { registerRetentionRoutes } from './retention.routes';

const PREFIX = '/api/compliance';
const iso = (d: Date | null) => (d ? d.toISOString() : null);
const refJson = (r: ControlRef) => ({ framework: r.framework, control_id: r.controlId });
const date = (v: string | undefined) => (v === undefined ? undefined : new Date(v));

function frameworkJson(f: Framework) {
  return {
    framework: f.framework,
    kind: f.kind,
    oscal_uuid: f.oscalUuid,
    title: f.title,
    version: f.version,
    based_on: f.basedOn,
    sha256: f.sha256,
    control_count: f.controlCount,
    imported_by: f.importedBy,
    imported_at: f.importedAt.toISOString(),
  };
}

function freshnessJson(f: ControlFreshness) {
  return {
    status: f.status,
    expires_at: iso(f.expiresAt),
    last_collected_at: iso(f.lastCollectedAt),
    evidence_count: f.evidenceCount,
  };
}

function controlJson(c: Control, f: ControlFreshness) {
  return {
    framework: c.framework,
    control_id: c.controlId,
    title: c.title,
    statement: c.statement,
    parent_id: c.parentId,
    maps_to: c.mapsTo.map(refJson),
    freshness: freshnessJson(f),
  };
}

export function evidenceJson(e: EvidenceItem) {
  return {
    id: e.id,
    source: e.source,
    event_id: e.eventId,
    event_type: e.eventType,
    controls: e.controls.map(refJson),
    created_at: e.createdAt.toISOString(),
    revisions: e.revisions.map((r) => ({
      revision: r.revision,
      content: r.content,
      content_sha256: r.contentSha256,
      collected_at: r.collectedAt.toISOString(),
      expires_at: r.expiresAt.toISOString(),
      recorded_by: r.recordedBy,
      ledger_entry_id: r.ledgerEntryId,
      ledger_chain_hash: r.ledgerChainHash,
    })),
  };
}

function packJson(p: MappingPack) {
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

const frameworks = ['frameworks and controls'];
const evidenceTags = ['evidence'];
const packTags = ['mapping packs'];
const intakeTags = ['intake'];

export function registerComplianceRoutes(routes: FastifyInstance, compliance: ComplianceModule): void {
  const { catalog, packs, evidence } = compliance;
  registerRetentionRoutes(routes, compliance);
  // A document may be larger than the platform's default body limit; the domain checks its own limit too.
  const importLimit = LIMITS.documentBytes + 64 * 1024;

  for (const [path, kind, summary] of [
    ['catalogs', 'catalog', "Imports an OSCAL 1.0.0 catalog (validated against NIST's JSON Schema)"],
    ['profiles', 'profile', 'Imports an OSCAL 1.0.0 profile over catalogs imported before'],
    ['framework-mappings', 'mapping', 'Imports a framework mapping (e.g. SOC 2 criteria onto NIST SP 800-53)'],
  ] as const) {
    routes.post<{ Body: ImportBody }>(
      `${PREFIX}/${path}`,
      {
        bodyLimit: importLimit,
        schema: {
          tags: frameworks,
          summary,
          body: ImportBody,
          response: { ...responses(FrameworkSchema), 201: FrameworkSchema },
        },
      },
      async (request, reply) => {
        const input = {
          framework: request.body.framework,
          document: request.body.document,
          tenantId: request.body.tenant_id,
        };
        const caller = callerOf(request);
        const result =
          kind === 'catalog'
            ? await catalog.importCatalog(caller, input)
            : kind === 'profile'
              ? await catalog.importProfile(caller, input)
              : await catalog.importMapping(caller, input);
        return reply.code(result.created ? 201 : 200).send(frameworkJson(result.framework));
      },
    );
  }

  routes.get<{ Querystring: TenantQuery }>(
    `${PREFIX}/frameworks`,
    {
      schema: {
        tags: frameworks,
        summary: "The tenant's imported frameworks",
        querystring: TenantQuery,
        response: responses(FrameworkList),
      },
    },
    async (request) => ({
      frameworks: (await catalog.frameworks(callerOf(request), request.query.tenant_id)).map(frameworkJson),
    }),
  );

  routes.get<{ Params: FrameworkParams; Querystring: TenantQuery }>(
    `${PREFIX}/frameworks/:framework`,
    {
      schema: {
        tags: frameworks,
        summary: 'One framework',
        params: FrameworkParams,
        querystring: TenantQuery,
        response: responses(FrameworkSchema),
      },
    },
    async (request) =>
      frameworkJson(await catalog.framework(callerOf(request), request.params.framework, request.query.tenant_id)),
  );

  routes.get<{ Params: FrameworkParams; Querystring: TenantQuery }>(
    `${PREFIX}/frameworks/:framework/controls`,
    {
      schema: {
        tags: frameworks,
        summary: "A framework's controls with their evidence freshness (fresh, expiring, stale)",
        params: FrameworkParams,
        querystring: TenantQuery,
        response: responses(ControlList),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { framework } = request.params;
      const controls = await catalog.controls(caller, framework, request.query.tenant_id);
      const freshness = new Map(
        (await evidence.frameworkFreshness(caller, framework, request.query.tenant_id)).map((f) => [f.controlId, f]),
      );
      return { framework, controls: controls.map((c) => controlJson(c, freshness.get(c.controlId)!)) };
    },
  );

  routes.get<{ Params: ControlParams; Querystring: TenantQuery }>(
    `${PREFIX}/frameworks/:framework/controls/:control_id`,
    {
      schema: {
        tags: frameworks,
        summary: 'One control with its evidence freshness',
        params: ControlParams,
        querystring: TenantQuery,
        response: responses(ControlSchema),
      },
    },
    async (request) => {
      const caller = callerOf(request);
      const { framework, control_id: controlId } = request.params;
      const control = await catalog.control(caller, framework, controlId, request.query.tenant_id);
      const freshness = await evidence.controlFreshness(caller, framework, controlId, request.query.tenant_id);
      return controlJson(control, freshness);
    },
  );

  routes.post<{ Body: AddEvidenceBody }>(
    `${PREFIX}/evidence`,
    {
      schema: {
        tags: evidenceTags,
        summary: 'Records evidence for controls (hashed, appended to the ledger)',
        body: AddEvidenceBody,
        response: { ...responses(EvidenceSchema), 201: EvidenceSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const item = await evidence.addEvidence(callerOf(request), {
        controls: b.controls.map((c) => ({ framework: c.framework, controlId: c.control_id })),
        content: b.content,
        source: b.source,
        collectedAt: date(b.collected_at),
        expiresAt: date(b.expires_at),
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(evidenceJson(item));
    },
  );

  routes.get<{ Querystring: EvidenceQuery }>(
    `${PREFIX}/evidence`,
    {
      config: { inputNames: { after: 'cursor', first: 'limit', controlId: 'control_id' } },
      schema: {
        tags: evidenceTags,
        summary: 'Evidence by framework (and control) and period, oldest first',
        querystring: EvidenceQuery,
        response: responses(EvidencePage),
      },
    },
    async (request) => {
      const q = request.query;
      const page = await evidence.listEvidence(callerOf(request), {
        framework: q.framework,
        controlId: q.control_id,
        from: date(q.from),
        to: date(q.to),
        first: q.limit,
        after: q.cursor,
        tenantId: q.tenant_id,
      });
      return { items: page.items.map(evidenceJson), next_cursor: page.nextCursor };
    },
  );

  routes.get<{ Params: ItemParams; Querystring: TenantQuery }>(
    `${PREFIX}/evidence/:item_id`,
    {
      schema: {
        tags: evidenceTags,
        summary: 'An evidence item with all its revisions (newest first)',
        params: ItemParams,
        querystring: TenantQuery,
        response: responses(EvidenceSchema),
      },
    },
    async (request) =>
      evidenceJson(await evidence.evidence(callerOf(request), request.params.item_id, request.query.tenant_id)),
  );

  routes.post<{ Params: ItemParams; Body: ReviseEvidenceBody }>(
    `${PREFIX}/evidence/:item_id/revisions`,
    {
      schema: {
        tags: evidenceTags,
        summary: 'A new revision of an evidence item (the earlier ones are kept)',
        params: ItemParams,
        body: ReviseEvidenceBody,
        response: { ...responses(EvidenceSchema), 201: EvidenceSchema },
      },
    },
    async (request, reply) => {
      const b = request.body;
      const item = await evidence.reviseEvidence(callerOf(request), {
        itemId: request.params.item_id,
        content: b.content,
        collectedAt: date(b.collected_at),
        expiresAt: date(b.expires_at),
        tenantId: b.tenant_id,
      });
      return reply.code(201).send(evidenceJson(item));
    },
  );

  routes.get<{ Params: ItemParams; Querystring: ProofQuery }>(
    `${PREFIX}/evidence/:item_id/proof`,
    {
      config: { inputLocation: 'query' },
      schema: {
        tags: evidenceTags,
        summary: "A revision's inclusion proof from the ledger, against its latest signed checkpoint",
        params: ItemParams,
        querystring: ProofQuery,
        response: responses(ProofSchema),
      },
    },
    async (request) => {
      const p = await evidence.proof(callerOf(request), {
        itemId: request.params.item_id,
        revision: request.query.revision,
        tenantId: request.query.tenant_id,
      });
      return {
        item_id: p.itemId,
        revision: p.revision,
        content_sha256: p.contentSha256,
        ledger: p.ledger as unknown as Record<string, unknown>,
      };
    },
  );

  routes.post<{ Body: SubmitPackBody }>(
    `${PREFIX}/mapping-packs`,
    {
      schema: {
        tags: packTags,
        summary: 'Submits a mapping pack draft (event types and rule packs to controls)',
        body: SubmitPackBody,
        response: { ...responses(PackSchema), 201: PackSchema },
      },
    },
    async (request, reply) => {
      const { pack, created } = await packs.submit(callerOf(request), {
        pack: request.body.pack,
        tenantId: request.body.tenant_id,
      });
      return reply.code(created ? 201 : 200).send(packJson(pack));
    },
  );

  routes.get<{ Querystring: PackListQuery }>(
    `${PREFIX}/mapping-packs`,
    {
      schema: {
        tags: packTags,
        summary: "The tenant's mapping packs",
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
    `${PREFIX}/mapping-packs/:pack_id/versions/:version`,
    {
      schema: {
        tags: packTags,
        summary: 'One mapping pack version',
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
    `${PREFIX}/mapping-packs/:pack_id/versions/:version/certify`,
    {
      schema: {
        tags: packTags,
        summary: 'Certifies and signs a draft (an admin or reviewer of the tenant, not its author)',
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
    `${PREFIX}/mapping-pack-keys`,
    {
      config: { auth: 'public' },
      schema: {
        tags: packTags,
        summary: 'The public keys that sign certified mapping packs (JWK Set, Ed25519)',
        response: { 200: KeySet },
      },
    },
    () => packs.keySet(),
  );

  routes.post<{ Body: EventBody }>(
    `${PREFIX}/events`,
    {
      schema: {
        tags: intakeTags,
        summary: 'Takes a compliance event (idempotent by id): evidence for the controls certified mapping packs name',
        body: EventBody,
        response: { ...responses(IngestSchema), 201: IngestSchema },
      },
    },
    async (request, reply) => {
      const r = await evidence.submitEvent(callerOf(request), request.body);
      return reply
        .code(r.created ? 201 : 200)
        .send({ created: r.created, item_id: r.itemId, controls: r.controls.map(refJson) });
    },
  );

  registerReportRoutes(routes, compliance);
}
