// The compliance subgraph's resolvers: thin adapters over the domain (the same calls as REST).
// Enum values are the domain's lower-case words inside, GraphQL's upper case outside.
import { InputError } from '../../platform/errors/domain-errors';
import { JSONScalar } from '../../platform/graphql/json-scalar';
import { opt, orNull } from '../../platform/graphql/resolver-args';
import type { Control, ControlFreshness, ControlRef, Framework } from './compliance.types';
import { callerOf, type ComplianceGraphQLContext } from './graphql.context';
import { reportResolvers } from './report.resolvers';
import type { Resolvers } from './resolvers.generated';

/** A control as its resolvers receive it: with its tenant, and its freshness when the parent read it already. */
export type ControlNode = Control & { tenantId: string; freshness?: ControlFreshness };

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function date(value: string | null | undefined, field: string): Date | undefined {
  if (value == null) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw InputError.of([field], 'Input should be a valid datetime', 'datetime_parsing');
  return d;
}

const refIn = (r: { framework: string; controlId: string }): ControlRef => ({
  framework: r.framework,
  controlId: r.controlId,
});

async function frameworkControls(parent: Framework, ctx: ComplianceGraphQLContext): Promise<ControlNode[]> {
  const caller = callerOf(ctx);
  const tenantId = parent.tenantId;
  const [controls, freshness] = await Promise.all([
    ctx.compliance.catalog.controls(caller, parent.framework, tenantId),
    ctx.compliance.evidence.frameworkFreshness(caller, parent.framework, tenantId),
  ]);
  const byId = new Map(freshness.map((f) => [f.controlId, f]));
  return controls.map((c) => ({ ...c, tenantId, freshness: byId.get(c.controlId) }));
}

export const resolvers = {
  ...reportResolvers,
  JSON: JSONScalar,
  ComplianceFrameworkKind: { CATALOG: 'catalog', PROFILE: 'profile', MAPPING: 'mapping' },
  ComplianceFreshness: { FRESH: 'fresh', EXPIRING: 'expiring', STALE: 'stale' },
  ComplianceMappingPackStatus: { DRAFT: 'draft', CERTIFIED: 'certified' },
  ComplianceFramework: {
    key: (f) => f.framework,
    importedAt: (f) => f.importedAt.toISOString(),
    controls: (f, _, ctx) => frameworkControls(f, ctx),
  },
  ComplianceControl: {
    freshness: (c, _, ctx) => c.freshness ?? ctx.compliance.evidence.freshnessIn(c.tenantId, c.framework, c.controlId),
  },
  ComplianceControlFreshness: {
    expiresAt: (f) => iso(f.expiresAt),
    lastCollectedAt: (f) => iso(f.lastCollectedAt),
  },
  RetentionRule: {
    retainDays: (r) => r.policy?.retainDays ?? null,
    updatedBy: (r) => r.policy?.updatedBy ?? null,
    updatedAt: (r) => iso(r.policy?.updatedAt ?? null),
  },
  LegalHold: {
    active: (h) => h.releasedAt === null,
    placedAt: (h) => h.placedAt.toISOString(),
    releasedAt: (h) => iso(h.releasedAt),
  },
  ErasureRecord: {
    requestedAt: (e) => e.requestedAt.toISOString(),
  },
  ComplianceEvidence: {
    createdAt: (e) => e.createdAt.toISOString(),
  },
  ComplianceEvidenceRevision: {
    collectedAt: (r) => r.collectedAt.toISOString(),
    expiresAt: (r) => r.expiresAt.toISOString(),
  },
  ComplianceMappingPack: {
    submittedAt: (p) => p.submittedAt.toISOString(),
    certifiedAt: (p) => iso(p.certifiedAt),
  },
  Query: {
    ...reportResolvers.Query,
    retentionPolicies: (_, args, ctx) => ctx.compliance.retention.rules(callerOf(ctx), opt(args.tenantId)),
    legalHolds: (_, args, ctx) =>
      ctx.compliance.retention.holds(callerOf(ctx), { activeOnly: opt(args.active), tenantId: opt(args.tenantId) }),
    legalHold: (_, args, ctx) => orNull(ctx.compliance.retention.hold(callerOf(ctx), args.id, opt(args.tenantId))),
    erasureRequests: (_, args, ctx) => ctx.compliance.erasure.erasures(callerOf(ctx), opt(args.tenantId)),
    complianceFrameworks: (_, args, ctx) => ctx.compliance.catalog.frameworks(callerOf(ctx), opt(args.tenantId)),
    complianceFramework: (_, args, ctx) =>
      orNull(ctx.compliance.catalog.framework(callerOf(ctx), args.key, opt(args.tenantId))),
    complianceControl: async (_, args, ctx) => {
      const caller = callerOf(ctx);
      const control = await orNull(
        ctx.compliance.catalog.control(caller, args.framework, args.controlId, opt(args.tenantId)),
      );
      if (!control) return null;
      const freshness = await ctx.compliance.evidence.controlFreshness(
        caller,
        args.framework,
        args.controlId,
        opt(args.tenantId),
      );
      return { ...control, tenantId: '', freshness };
    },
    complianceEvidence: (_, args, ctx) =>
      ctx.compliance.evidence.listEvidence(callerOf(ctx), {
        framework: opt(args.framework),
        controlId: opt(args.controlId),
        from: date(args.from, 'from'),
        to: date(args.to, 'to'),
        first: opt(args.first),
        after: opt(args.after),
        tenantId: opt(args.tenantId),
      }),
    complianceEvidenceItem: (_, args, ctx) =>
      orNull(ctx.compliance.evidence.evidence(callerOf(ctx), args.id, opt(args.tenantId))),
    complianceEvidenceProof: (_, args, ctx) =>
      ctx.compliance.evidence.proof(callerOf(ctx), {
        itemId: args.id,
        revision: opt(args.revision),
        tenantId: opt(args.tenantId),
      }),
    complianceMappingPacks: (_, args, ctx) =>
      ctx.compliance.packs.list(callerOf(ctx), { status: opt(args.status), tenantId: opt(args.tenantId) }),
    complianceMappingPack: (_, args, ctx) =>
      orNull(
        ctx.compliance.packs.get(callerOf(ctx), {
          packId: args.packId,
          version: args.version,
          tenantId: opt(args.tenantId),
        }),
      ),
  },
  Mutation: {
    ...reportResolvers.Mutation,
    setRetentionPolicy: (_, args, ctx) =>
      ctx.compliance.retention.setPolicy(callerOf(ctx), {
        recordType: args.recordType,
        retainDays: args.retainDays,
        tenantId: opt(args.tenantId),
      }),
    removeRetentionPolicy: (_, args, ctx) =>
      ctx.compliance.retention.removePolicy(callerOf(ctx), {
        recordType: args.recordType,
        tenantId: opt(args.tenantId),
      }),
    placeLegalHold: (_, { input }, ctx) =>
      ctx.compliance.retention.placeHold(callerOf(ctx), {
        recordType: input.recordType,
        subjectId: input.subjectId,
        reason: input.reason,
        tenantId: opt(input.tenantId),
      }),
    releaseLegalHold: (_, args, ctx) =>
      ctx.compliance.retention.releaseHold(callerOf(ctx), args.id, opt(args.tenantId)),
    requestErasure: (_, args, ctx) =>
      ctx.compliance.erasure.erase(callerOf(ctx), {
        subjectId: args.subjectId,
        reason: opt(args.reason),
        tenantId: opt(args.tenantId),
      }),
    importOscalCatalog: (_, { input }, ctx) =>
      ctx.compliance.catalog.importCatalog(callerOf(ctx), {
        framework: input.framework,
        document: input.document,
        tenantId: opt(input.tenantId),
      }),
    importOscalProfile: (_, { input }, ctx) =>
      ctx.compliance.catalog.importProfile(callerOf(ctx), {
        framework: input.framework,
        document: input.document,
        tenantId: opt(input.tenantId),
      }),
    importFrameworkMapping: (_, { input }, ctx) =>
      ctx.compliance.catalog.importMapping(callerOf(ctx), {
        framework: input.framework,
        document: input.document,
        tenantId: opt(input.tenantId),
      }),
    submitMappingPack: async (_, args, ctx) =>
      (await ctx.compliance.packs.submit(callerOf(ctx), { pack: args.pack, tenantId: opt(args.tenantId) })).pack,
    certifyMappingPack: (_, args, ctx) =>
      ctx.compliance.packs.certify(callerOf(ctx), {
        packId: args.packId,
        version: args.version,
        tenantId: opt(args.tenantId),
      }),
    addComplianceEvidence: (_, { input }, ctx) =>
      ctx.compliance.evidence.addEvidence(callerOf(ctx), {
        controls: input.controls.map(refIn),
        content: input.content,
        source: opt(input.source),
        collectedAt: date(input.collectedAt, 'collectedAt'),
        expiresAt: date(input.expiresAt, 'expiresAt'),
        tenantId: opt(input.tenantId),
      }),
    reviseComplianceEvidence: (_, { input }, ctx) =>
      ctx.compliance.evidence.reviseEvidence(callerOf(ctx), {
        itemId: input.itemId,
        content: input.content,
        collectedAt: date(input.collectedAt, 'collectedAt'),
        expiresAt: date(input.expiresAt, 'expiresAt'),
        tenantId: opt(input.tenantId),
      }),
    submitComplianceEvent: (_, { input }, ctx) =>
      ctx.compliance.evidence.submitEvent(callerOf(ctx), { id: input.id, topic: input.topic, data: input.data }),
  },
} satisfies Resolvers;
