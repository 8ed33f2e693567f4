// The only code that reads and writes ai_prompt_templates. Every read takes the tenant id.
import { randomUUID } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';
import type { PrismaLike } from '../../platform/db/prisma-like';
import type { PromptTemplate, TemplateVariable } from './ai-broker.types';

type Row = Awaited<ReturnType<PrismaLike['aiPromptTemplate']['findFirstOrThrow']>>;

function toTemplate(row: Row, versions?: number[]): PromptTemplate {
  return {
    templateId: row.templateId,
    version: row.version,
    name: row.name,
    description: row.description,
    template: row.template,
    variables: row.variables as unknown as TemplateVariable[],
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    versions: versions ?? [row.version],
  };
}

export interface PromptTemplateStore {
  /** The newest version of each of the tenant's templates, by template id. */
  list(tenantId: string): Promise<PromptTemplate[]>;
  /** One version (the newest when absent), with every version number; null when not the tenant's. */
  get(tenantId: string, templateId: string, version?: number): Promise<PromptTemplate | null>;
  /** Appends the next version (1 for a new template id). */
  append(tenantId: string, input: Omit<PromptTemplate, 'version' | 'createdAt' | 'versions'>): Promise<PromptTemplate>;
}

export function prismaPromptTemplateStore(db: PrismaLike): PromptTemplateStore {
  return {
    async list(tenantId) {
      const rows = await db.aiPromptTemplate.findMany({
        where: { tenantId },
        orderBy: [{ templateId: 'asc' }, { version: 'desc' }],
        take: 10_000,
      });
      const newest = new Map<string, { row: Row; versions: number[] }>();
      for (const row of rows) {
        const seen = newest.get(row.templateId);
        if (seen) seen.versions.unshift(row.version);
        else newest.set(row.templateId, { row, versions: [row.version] });
      }
      return [...newest.values()].map((n) => toTemplate(n.row, n.versions));
    },
    async get(tenantId, templateId, version) {
      const rows = await db.aiPromptTemplate.findMany({
        where: { tenantId, templateId },
        select: { version: true },
        orderBy: { version: 'asc' },
      });
      if (rows.length === 0) return null;
      const versions = rows.map((r) => r.version);
      const wanted = version ?? versions.at(-1)!;
      const row = await db.aiPromptTemplate.findUnique({
        where: { tenantId_templateId_version: { tenantId, templateId, version: wanted } },
      });
      return row ? toTemplate(row, versions) : null;
    },
    async append(tenantId, input) {
      const last = await db.aiPromptTemplate.findFirst({
        where: { tenantId, templateId: input.templateId },
        orderBy: { version: 'desc' },
        select: { version: true },
      });
      const row = await db.aiPromptTemplate.create({
        data: {
          id: randomUUID(),
          tenantId,
          templateId: input.templateId,
          version: (last?.version ?? 0) + 1,
          name: input.name,
          description: input.description,
          template: input.template,
          variables: input.variables as unknown as Prisma.InputJsonArray,
          createdBy: input.createdBy,
        },
      });
      const versions = await db.aiPromptTemplate.findMany({
        where: { tenantId, templateId: input.templateId },
        select: { version: true },
        orderBy: { version: 'asc' },
      });
      return toTemplate(
        row,
        versions.map((v) => v.version),
      );
    },
  };
}
