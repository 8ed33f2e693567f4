// The only code that reads and writes `pack_entries`. Every read takes the Viewer whose view it
// returns (a tenant sees its own drafts and every published version; operators see all), so a
// draft can never leave its tenant by a forgotten filter.
import { randomUUID } from 'node:crypto';
import type { Prisma, PrismaClient, PackEntry as PackRow } from '../../generated/prisma/client';
import { isUniqueViolation, type PrismaLike } from '../../platform/db/prisma-like';
import { ConflictError } from '../../platform/errors/domain-errors';
import { outboxWriter, type OutboxWriter } from '../../platform/outbox/outbox.writer';
import {
  PUBLISHED_STATUSES,
  type ArtifactFormat,
  type ArtifactPointer,
  type PackDependencies,
  type PackEntry,
  type PackFilter,
  type PackKind,
  type PackRef,
  type PackStatus,
  type Viewer,
} from './pack.types';

export interface NewPackEntry {
  packId: string;
  version: string;
  kind: PackKind;
  status: PackStatus;
  ownerTenant: string;
  author: string | null;
  submittedAt: Date;
  certifiedAt?: Date | null;
  artifactFormat: ArtifactFormat;
  artifactSource: string | null;
  artifactContent: Record<string, unknown> | null;
  artifactSha256: string | null;
  artifactPointer: ArtifactPointer;
  dependencies: PackDependencies;
}

export interface StatusChange {
  status: PackStatus;
  reviewers?: string[];
  certifiedAt?: Date;
  deprecatedAt?: Date;
  replacement?: PackRef | null;
}

/** A page position: the (pack_id, version) of the last row returned. */
export interface PackPosition {
  packId: string;
  version: string;
}

export interface PackStore {
  find(viewer: Viewer, packId: string, version: string): Promise<PackEntry | undefined>;
  /** The visible entries among `refs` (any order): one statement. */
  findMany(viewer: Viewer, refs: readonly { packId: string; version: string }[]): Promise<PackEntry[]>;
  /** Every visible version of a pack (unordered: callers sort by semver). */
  versions(viewer: Viewer, packId: string): Promise<PackEntry[]>;
  /** Visible entries ordered by (pack_id, version), after `after`, at most `limit`. */
  list(viewer: Viewer, filter: PackFilter, limit: number, after: PackPosition | undefined): Promise<PackEntry[]>;
  /** Who owns a pack id and what kind it is, whatever its status (submission's ownership check; never shown). */
  ownerOf(packId: string): Promise<{ ownerTenant: string; kind: PackKind } | undefined>;
  /** The row, whatever its status, for the transaction that changes it (locks it on PostgreSQL). */
  lockForUpdate(packId: string, version: string): Promise<PackEntry | undefined>;
  insert(entry: NewPackEntry): Promise<PackEntry>;
  update(packId: string, version: string, change: StatusChange): Promise<PackEntry>;
}

export interface PacksUnitOfWork extends PackStore {
  outbox: OutboxWriter;
  transaction<T>(work: (stores: { packs: PackStore; outbox: OutboxWriter }) => Promise<T>): Promise<T>;
}

function visibleTo(viewer: Viewer): Prisma.PackEntryWhereInput {
  if (viewer === 'all') return {};
  return { OR: [{ ownerTenant: viewer.tenantId }, { status: { in: [...PUBLISHED_STATUSES] } }] };
}

export function toEntry(row: PackRow): PackEntry {
  return {
    packId: row.packId,
    version: row.version,
    kind: row.kind as PackKind,
    status: row.status as PackStatus,
    ownerTenant: row.ownerTenant,
    author: row.author,
    reviewers: row.reviewers ?? [],
    submittedAt: row.submittedAt,
    certifiedAt: row.certifiedAt,
    deprecatedAt: row.deprecatedAt,
    replacement:
      row.replacementPackId && row.replacementVersion
        ? { pack_id: row.replacementPackId, version: row.replacementVersion }
        : null,
    artifactFormat: row.artifactFormat as ArtifactFormat,
    artifactSource: row.artifactSource,
    artifactContent: (row.artifactContent as Record<string, unknown> | null) ?? null,
    artifactSha256: row.artifactSha256,
    artifactPointer: row.artifactPointer as unknown as ArtifactPointer,
    dependencies: row.dependencies as unknown as PackDependencies,
  };
}

export function prismaPackStore(db: PrismaLike): PackStore {
  return {
    async find(viewer, packId, version) {
      const row = await db.packEntry.findFirst({ where: { packId, version, ...visibleTo(viewer) } });
      return row ? toEntry(row) : undefined;
    },
    async findMany(viewer, refs) {
      if (refs.length === 0) return [];
      const rows = await db.packEntry.findMany({
        where: { AND: [visibleTo(viewer), { OR: refs.map((r) => ({ packId: r.packId, version: r.version })) }] },
      });
      return rows.map(toEntry);
    },
    async versions(viewer, packId) {
      return (await db.packEntry.findMany({ where: { packId, ...visibleTo(viewer) } })).map(toEntry);
    },
    async list(viewer, filter, limit, after) {
      const where: Prisma.PackEntryWhereInput = { AND: [visibleTo(viewer)] };
      if (filter.kind) where.kind = filter.kind;
      if (filter.status) where.status = filter.status;
      if (after) {
        (where.AND as Prisma.PackEntryWhereInput[]).push({
          OR: [{ packId: { gt: after.packId } }, { packId: after.packId, version: { gt: after.version } }],
        });
      }
      const rows = await db.packEntry.findMany({
        where,
        orderBy: [{ packId: 'asc' }, { version: 'asc' }],
        take: limit,
      });
      return rows.map(toEntry);
    },
    async ownerOf(packId) {
      const row = await db.packEntry.findFirst({ where: { packId }, select: { ownerTenant: true, kind: true } });
      return row ? { ownerTenant: row.ownerTenant, kind: row.kind as PackKind } : undefined;
    },
    async lockForUpdate(packId, version) {
      // Prisma has no SELECT ... FOR UPDATE; a no-op update takes the row lock in PostgreSQL, so
      // two concurrent certifications of one version serialise and the second sees the first.
      const locked = await db.packEntry.updateMany({ where: { packId, version }, data: { packId } });
      if (locked.count === 0) return undefined;
      const row = await db.packEntry.findUnique({ where: { packId_version: { packId, version } } });
      return row ? toEntry(row) : undefined;
    },
    async insert(entry) {
      try {
        const row = await db.packEntry.create({
          data: {
            id: randomUUID(),
            packId: entry.packId,
            version: entry.version,
            kind: entry.kind,
            status: entry.status,
            ownerTenant: entry.ownerTenant,
            author: entry.author,
            reviewers: [],
            submittedAt: entry.submittedAt,
            certifiedAt: entry.certifiedAt ?? null,
            artifactFormat: entry.artifactFormat,
            artifactSource: entry.artifactSource,
            artifactContent: (entry.artifactContent ?? undefined) as Prisma.InputJsonObject | undefined,
            artifactSha256: entry.artifactSha256,
            artifactPointer: entry.artifactPointer as unknown as Prisma.InputJsonObject,
            dependencies: entry.dependencies as unknown as Prisma.InputJsonObject,
          },
        });
        return toEntry(row);
      } catch (err) {
        if (isUniqueViolation(err))
          throw new ConflictError(`Pack '${entry.packId}' version ${entry.version} already exists`);
        throw err;
      }
    },
    async update(packId, version, change) {
      const row = await db.packEntry.update({
        where: { packId_version: { packId, version } },
        data: {
          status: change.status,
          ...(change.reviewers ? { reviewers: change.reviewers } : {}),
          ...(change.certifiedAt ? { certifiedAt: change.certifiedAt } : {}),
          ...(change.deprecatedAt ? { deprecatedAt: change.deprecatedAt } : {}),
          ...(change.replacement !== undefined
            ? {
                replacementPackId: change.replacement?.pack_id ?? null,
                replacementVersion: change.replacement?.version ?? null,
              }
            : {}),
        },
      });
      return toEntry(row);
    },
  };
}

/** The store and the outbox over Prisma, and a transaction in which both commit together. */
export function prismaPacksUnitOfWork(prisma: PrismaClient): PacksUnitOfWork {
  return {
    ...prismaPackStore(prisma),
    outbox: outboxWriter(prisma, 'packs-registry'),
    transaction: (work) =>
      prisma.$transaction((tx) => work({ packs: prismaPackStore(tx), outbox: outboxWriter(tx, 'packs-registry') }), {
        timeout: 15_000,
        maxWait: 10_000,
      }),
  };
}
