// The only code that talks to the registry's tables (schema_subjects, schema_versions). Reads of
// a tenant's data take the tenant id: a tenant sees the platform's built-in schemas and its own,
// and a built-in name always means the built-in (a tenant's schema of the same name, registered
// before the built-in existed, is shadowed). Writes run in one transaction with the outbox.
import type { Prisma, PrismaClient } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import { outboxWriter, type OutboxWriter } from '../../platform/outbox/outbox.writer';
import {
  PLATFORM_OWNER,
  type CompatibilityMode,
  type SchemaKind,
  type SchemaSubject,
  type SchemaVersionRecord,
} from './schema-registry.types';

export interface SubjectFilter {
  kind?: SchemaKind;
  /** Only names after this one (page cursor). */
  afterName?: string;
  limit: number;
}

export interface SchemaStore {
  /** The subjects a tenant sees, ordered by name. */
  listVisible(tenantId: string, filter: SubjectFilter): Promise<SchemaSubject[]>;
  /** The subject a tenant reads under `name`: the built-in one if any, else the tenant's own. */
  findVisible(tenantId: string, name: string): Promise<SchemaSubject | undefined>;
  listVersions(owner: string, name: string): Promise<SchemaVersionRecord[]>;
  getVersion(owner: string, name: string, version: string): Promise<SchemaVersionRecord | undefined>;
  /** findVisible for several names in one statement: name -> subject, for the names that have one. */
  findVisibleMany(tenantId: string, names: readonly string[]): Promise<Map<string, SchemaSubject>>;
  /** The versions among `refs` that exist (any order): one statement. */
  getVersions(refs: readonly { owner: string; name: string; version: string }[]): Promise<SchemaVersionRecord[]>;
  /** The latest version of each subject, in one query (a listing's page). */
  latestVersions(subjects: SchemaSubject[]): Promise<SchemaVersionRecord[]>;
  transaction<T>(work: (tx: SchemaWriteTx) => Promise<T>): Promise<T>;
}

export interface NewSubject {
  owner: string;
  name: string;
  kind: SchemaKind;
  compatibility: CompatibilityMode;
}

/** The statements of one registry write, in one database transaction. */
export interface SchemaWriteTx {
  /** The subject row, locked until the transaction ends (concurrent writers of one subject queue). */
  lockSubject(owner: string, name: string): Promise<SchemaSubject | undefined>;
  /** Creates the subject unless it exists (a concurrent creator wins), then locks and returns it. */
  createSubject(subject: NewSubject): Promise<SchemaSubject>;
  getVersion(owner: string, name: string, version: string): Promise<SchemaVersionRecord | undefined>;
  /** Appends a version and makes it the subject's latest. */
  appendVersion(
    subject: SchemaSubject,
    version: { version: string; definition: Record<string, unknown>; fingerprint: string; createdBy: string | null },
  ): Promise<{ subject: SchemaSubject; version: SchemaVersionRecord }>;
  setCompatibility(owner: string, name: string, compatibility: CompatibilityMode): Promise<SchemaSubject>;
  outbox: OutboxWriter;
}

type SubjectRow = Awaited<ReturnType<PrismaClient['schemaSubject']['findUniqueOrThrow']>>;
type VersionRow = Awaited<ReturnType<PrismaClient['schemaVersion']['findUniqueOrThrow']>>;

function toSubject(r: SubjectRow): SchemaSubject {
  return {
    owner: r.owner,
    name: r.name,
    kind: r.kind as SchemaKind,
    compatibility: r.compatibility as CompatibilityMode,
    latestVersion: r.latestVersion,
    versionCount: r.versionCount,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

function toVersion(r: VersionRow): SchemaVersionRecord {
  return {
    owner: r.owner,
    name: r.name,
    version: r.version,
    seq: r.seq,
    definition: r.definition as Record<string, unknown>,
    fingerprint: r.fingerprint,
    createdAt: r.createdAt,
    createdBy: r.createdBy,
  };
}

async function platformNames(db: PrismaLike): Promise<string[]> {
  const rows = await db.schemaSubject.findMany({ where: { owner: PLATFORM_OWNER }, select: { name: true } });
  return rows.map((r) => r.name);
}

async function getVersion(
  db: PrismaLike,
  owner: string,
  name: string,
  version: string,
): Promise<SchemaVersionRecord | undefined> {
  const row = await db.schemaVersion.findUnique({ where: { owner_name_version: { owner, name, version } } });
  return row ? toVersion(row) : undefined;
}

function writeTx(tx: Prisma.TransactionClient): SchemaWriteTx {
  const lock = async (owner: string, name: string) => {
    // Prisma has no FOR UPDATE: the lock is taken with SQL, the row read with Prisma.
    const locked = await tx.$queryRaw<
      { name: string }[]
    >`SELECT name FROM schema_subjects WHERE owner = ${owner} AND name = ${name} FOR UPDATE`;
    if (locked.length === 0) return undefined;
    return toSubject(await tx.schemaSubject.findUniqueOrThrow({ where: { owner_name: { owner, name } } }));
  };
  return {
    lockSubject: lock,
    async createSubject(s) {
      // ON CONFLICT DO NOTHING: a second process seeding or registering the same name at once
      // waits for the first and then finds its row, instead of failing.
      await tx.schemaSubject.createMany({
        data: [
          {
            owner: s.owner,
            name: s.name,
            kind: s.kind,
            compatibility: s.compatibility,
            latestVersion: '',
            versionCount: 0,
          },
        ],
        skipDuplicates: true,
      });
      const subject = await lock(s.owner, s.name);
      if (!subject) throw new Error(`schema subject ${s.owner}/${s.name} vanished after its creation`);
      return subject;
    },
    getVersion: (owner, name, version) => getVersion(tx, owner, name, version),
    async appendVersion(subject, v) {
      const row = await tx.schemaVersion.create({
        data: {
          owner: subject.owner,
          name: subject.name,
          version: v.version,
          seq: subject.versionCount + 1,
          definition: v.definition as Prisma.InputJsonObject,
          fingerprint: v.fingerprint,
          createdBy: v.createdBy,
        },
      });
      const updated = await tx.schemaSubject.update({
        where: { owner_name: { owner: subject.owner, name: subject.name } },
        data: { latestVersion: v.version, versionCount: subject.versionCount + 1, updatedAt: new Date() },
      });
      return { subject: toSubject(updated), version: toVersion(row) };
    },
    async setCompatibility(owner, name, compatibility) {
      const updated = await tx.schemaSubject.update({
        where: { owner_name: { owner, name } },
        data: { compatibility, updatedAt: new Date() },
      });
      return toSubject(updated);
    },
    outbox: outboxWriter(tx, 'schema-registry'),
  };
}

export function prismaSchemaStore(prisma: PrismaClient): SchemaStore {
  return {
    async listVisible(tenantId, filter) {
      const builtIn = await platformNames(prisma);
      const rows = await prisma.schemaSubject.findMany({
        where: {
          // A subject without versions is one a failed first registration left behind (never
          // committed in practice: creation and first version share a transaction).
          versionCount: { gt: 0 },
          ...(filter.kind ? { kind: filter.kind } : {}),
          ...(filter.afterName !== undefined ? { name: { gt: filter.afterName } } : {}),
          OR: [{ owner: PLATFORM_OWNER }, { owner: tenantId, name: { notIn: builtIn } }],
        },
        orderBy: { name: 'asc' },
        take: filter.limit,
      });
      return rows.map(toSubject);
    },

    async findVisible(tenantId, name) {
      const builtIn = await prisma.schemaSubject.findUnique({ where: { owner_name: { owner: PLATFORM_OWNER, name } } });
      const row =
        builtIn ?? (await prisma.schemaSubject.findUnique({ where: { owner_name: { owner: tenantId, name } } }));
      return row && row.versionCount > 0 ? toSubject(row) : undefined;
    },

    async findVisibleMany(tenantId, names) {
      const found = new Map<string, SchemaSubject>();
      if (names.length === 0) return found;
      const rows = await prisma.schemaSubject.findMany({
        where: { owner: { in: [PLATFORM_OWNER, tenantId] }, name: { in: [...names] } },
      });
      // As findVisible: the built-in subject wins over a tenant's own of the same name.
      const chosen = new Map<string, SubjectRow>();
      for (const row of rows) if (row.owner === PLATFORM_OWNER || !chosen.has(row.name)) chosen.set(row.name, row);
      for (const [name, row] of chosen) if (row.versionCount > 0) found.set(name, toSubject(row));
      return found;
    },

    async getVersions(refs) {
      if (refs.length === 0) return [];
      const rows = await prisma.schemaVersion.findMany({
        where: { OR: refs.map((r) => ({ owner: r.owner, name: r.name, version: r.version })) },
      });
      return rows.map(toVersion);
    },

    async listVersions(owner, name) {
      const rows = await prisma.schemaVersion.findMany({ where: { owner, name }, orderBy: { seq: 'asc' } });
      return rows.map(toVersion);
    },

    getVersion: (owner, name, version) => getVersion(prisma, owner, name, version),

    async latestVersions(subjects) {
      if (subjects.length === 0) return [];
      const rows = await prisma.schemaVersion.findMany({
        where: { OR: subjects.map((s) => ({ owner: s.owner, name: s.name, version: s.latestVersion })) },
      });
      return rows.map(toVersion);
    },

    transaction: (work) => prisma.$transaction((tx) => work(writeTx(tx)), { timeout: 15_000, maxWait: 10_000 }),
  };
}
