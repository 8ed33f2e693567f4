// Opens the platform's database: PostgreSQL when a URL is configured, else embedded PGlite.
// Both give a Prisma client (driver adapter, no native engine) and a raw SQL executor, and both
// are migrated before use.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from '../../generated/prisma/client';
import type { DatabaseConfig } from '../config/platform.config';
import { migrate } from './migrator';
import { openPGlite } from './pglite';
import { openPostgres } from './postgres';
import type { SqlExecutor } from './sql';

export { PrismaClient };

export interface Database {
  /** `none`: the process runs only services that need no database (platform/db/no-database.ts). */
  kind: 'pglite' | 'postgres' | 'none';
  prisma: PrismaClient;
  sql: SqlExecutor;
  /** Where the data lives, for the start banner (never includes a password). */
  description: string;
  /** The connection pool's sizes (PostgreSQL; PGlite has one connection and none), for /metrics. */
  pool?: { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number };
  close(): Promise<void>;
}

export interface OpenOptions {
  /** false: leave the database as found (the migrator's own tests). */
  migrate?: boolean;
  /** PGlite only: start from this dumped data directory (the tests' migrated template). */
  pgliteTemplate?: Blob;
}

export async function openDatabase(config: DatabaseConfig, options: OpenOptions = {}): Promise<Database> {
  let db: Database;
  if (config.url) {
    const { pool, sql } = openPostgres(config.url, config.poolSize);
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    const url = new URL(config.url);
    db = {
      kind: 'postgres',
      prisma,
      sql,
      description: `PostgreSQL ${url.host}${url.pathname}`,
      pool,
      async close() {
        await prisma.$disconnect();
        await pool.end();
      },
    };
  } else {
    const { pglite, sql, release } = await openPGlite(config.pgliteDir, { loadDataDir: options.pgliteTemplate });
    const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
    db = {
      kind: 'pglite',
      prisma,
      sql,
      description: config.pgliteDir.startsWith('memory://') ? 'PGlite (in memory)' : `PGlite ${config.pgliteDir}`,
      async close() {
        await prisma.$disconnect();
        await pglite.close();
        release();
      },
    };
  }
  if (db.kind === 'postgres') {
    // pgvector backs retrieval; create it where the server has it installed (the CI scripts in
    // ../shared/ci install it). Tables that need it require it in their own migration.
    await db.sql.exec('CREATE EXTENSION IF NOT EXISTS vector').catch(() => {});
  }
  if (options.migrate !== false) await migrate(db.sql);
  return db;
}

/** Readiness probe: true when the database answers a trivial query. */
export async function databaseIsReady(db: Database): Promise<boolean> {
  try {
    await db.sql.query('SELECT 1');
    return true;
  } catch {
    return false;
  }
}
