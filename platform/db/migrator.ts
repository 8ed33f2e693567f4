// Applies prisma/migrations/*/migration.sql at start, on PGlite and PostgreSQL alike, keeping
// Prisma's `_prisma_migrations` bookkeeping so `prisma migrate status/deploy` agree wherever the
// native schema engine exists. Safe with several processes starting at once: each migration runs
// in a transaction holding an advisory lock, and re-checks whether another process applied it.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root';
import type { SqlExecutor } from './sql';

export const MIGRATIONS_DIR = path.join(PROJECT_ROOT, 'prisma/migrations');
const LOCK_ID = 72707369; // the advisory lock id Prisma's migrate uses

const BOOKKEEPING_DDL = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return fs
    .readdirSync(dir)
    .filter((name) => fs.existsSync(path.join(dir, name, 'migration.sql')))
    .sort()
    .map((name) => {
      const sql = fs.readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Returns the names of the migrations this call applied. */
export async function migrate(sql: SqlExecutor, migrations = readMigrations()): Promise<string[]> {
  await sql.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
    await tx.exec(BOOKKEEPING_DDL);
  });
  const applied: string[] = [];
  for (const migration of migrations) {
    const done = await sql.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_ID]);
      const existing = await tx.query<{ checksum: string }>(
        'SELECT checksum FROM "_prisma_migrations" WHERE migration_name = $1 AND finished_at IS NOT NULL AND rolled_back_at IS NULL',
        [migration.name],
      );
      const row = existing.rows[0];
      if (row) {
        if (row.checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.name} was changed after it was applied (checksum differs)`);
        }
        return false;
      }
      await tx.exec(migration.sql);
      await tx.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count)
         VALUES ($1, $2, now(), $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      return true;
    });
    if (done) applied.push(migration.name);
  }
  return applied;
}
