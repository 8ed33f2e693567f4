// The only code that reads and writes rulepacks, rulepack_versions and rulepack_decisions. Every
// read takes the viewer: published versions (certified, deprecated) are every tenant's, drafts
// and reviews only their owner tenant's.
import type { Prisma, RulePackVersion } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import {
  ALL_TENANTS,
  PUBLISHED_STATUSES,
  type DecisionKind,
  type DecisionRecord,
  type PackRef,
  type RulePackStatus,
  type RulePackStore,
  type RulePackVersionRecord,
  type ViewerScope,
} from './rulepack-registry.types';

function toVersion(row: RulePackVersion): RulePackVersionRecord {
  return {
    packId: row.packId,
    version: row.version,
    status: row.status as RulePackStatus,
    // The driver may hand `json` columns back as text.
    pack: (typeof row.pack === 'string' ? JSON.parse(row.pack) : row.pack) as Record<string, unknown>,
    sha256: row.sha256,
    ownerTenant: row.ownerTenant,
    author: row.author,
    reviewers: row.reviewers ?? [],
    submittedAt: row.submittedAt,
    certifiedAt: row.certifiedAt,
    signature: row.signature,
    keyId: row.keyId,
    deprecatedAt: row.deprecatedAt,
    replacement:
      row.replacementPackId && row.replacementVersion
        ? { packId: row.replacementPackId, version: row.replacementVersion }
        : null,
  };
}

/** What a viewer may see: published versions, plus its own tenant's (everything for ALL_TENANTS). */
function visibleTo(viewer: ViewerScope): Prisma.RulePackVersionWhereInput {
  if (viewer === ALL_TENANTS) return {};
  return { OR: [{ status: { in: [...PUBLISHED_STATUSES] } }, { ownerTenant: viewer }] };
}

export function prismaRulePackStore(db: PrismaLike): RulePackStore {
  return {
    async findVersion(viewer, ref) {
      const row = await db.rulePackVersion.findFirst({
        where: { packId: ref.packId, version: ref.version, ...visibleTo(viewer) },
      });
      return row ? toVersion(row) : null;
    },

    async findVersions(viewer, refs) {
      if (refs.length === 0) return [];
      const rows = await db.rulePackVersion.findMany({
        where: { AND: [visibleTo(viewer), { OR: refs.map((r) => ({ packId: r.packId, version: r.version })) }] },
      });
      return rows.map(toVersion);
    },

    async listVersions(viewer, packId) {
      const rows = await db.rulePackVersion.findMany({
        where: { packId, ...visibleTo(viewer) },
        orderBy: { version: 'asc' },
      });
      return rows.map(toVersion);
    },

    async list(q) {
      const where: Prisma.RulePackVersionWhereInput[] = [visibleTo(q.viewer)];
      if (q.status) where.push({ status: q.status });
      if (q.after)
        where.push({
          OR: [{ packId: { gt: q.after.packId } }, { packId: q.after.packId, version: { gt: q.after.version } }],
        });
      const rows = await db.rulePackVersion.findMany({
        where: { AND: where },
        orderBy: [{ packId: 'asc' }, { version: 'asc' }],
        take: q.limit,
      });
      return rows.map(toVersion);
    },

    async ownerOf(packId) {
      return (await db.rulePack.findUnique({ where: { packId } }))?.ownerTenant ?? null;
    },

    async claimPack(packId, ownerTenant) {
      // ON CONFLICT DO NOTHING: of two tenants claiming one id at once, the first to commit owns it.
      await db.rulePack.createMany({ data: [{ packId, ownerTenant }], skipDuplicates: true });
      return (await db.rulePack.findUniqueOrThrow({ where: { packId } })).ownerTenant;
    },

    async insertVersion(v) {
      const { count } = await db.rulePackVersion.createMany({
        data: [
          {
            packId: v.packId,
            version: v.version,
            status: 'draft',
            pack: v.pack as Prisma.InputJsonObject,
            sha256: v.sha256,
            ownerTenant: v.ownerTenant,
            author: v.author,
          },
        ],
        skipDuplicates: true,
      });
      return count === 1;
    },

    async transition(ref, t) {
      const current = await db.rulePackVersion.findUnique({ where: { packId_version: ref } });
      if (!current || current.status !== t.from) return null;
      const data: Prisma.RulePackVersionUpdateManyMutationInput = { status: t.to };
      if (t.reviewer && !current.reviewers.includes(t.reviewer)) data.reviewers = [...current.reviewers, t.reviewer];
      if (t.certifiedAt) data.certifiedAt = t.certifiedAt;
      if (t.signature !== undefined) data.signature = t.signature;
      if (t.keyId !== undefined) data.keyId = t.keyId;
      if (t.deprecatedAt) data.deprecatedAt = t.deprecatedAt;
      if (t.replacement !== undefined) {
        data.replacementPackId = t.replacement?.packId ?? null;
        data.replacementVersion = t.replacement?.version ?? null;
      }
      // Compare and set on the status: of two concurrent moves from one state, one wins.
      const { count } = await db.rulePackVersion.updateMany({
        where: { packId: ref.packId, version: ref.version, status: t.from },
        data,
      });
      if (count === 0) return null;
      return toVersion(await db.rulePackVersion.findUniqueOrThrow({ where: { packId_version: ref } }));
    },

    async recordDecision(ref, d) {
      await db.rulePackDecision.create({
        data: {
          packId: ref.packId,
          version: ref.version,
          decision: d.decision,
          actor: d.actor,
          fromState: d.fromState,
          toState: d.toState,
          notes: d.notes,
        },
      });
    },

    async decisions(ref: PackRef): Promise<DecisionRecord[]> {
      const rows = await db.rulePackDecision.findMany({
        where: { packId: ref.packId, version: ref.version },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      });
      return rows.map((r) => ({
        decision: r.decision as DecisionKind,
        actor: r.actor,
        fromState: r.fromState as RulePackStatus | null,
        toState: r.toState as RulePackStatus,
        notes: r.notes,
        createdAt: r.createdAt,
      }));
    },
  };
}
