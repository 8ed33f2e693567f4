// A fresh, migrated database per test file: in-memory PGlite by default, or a new throwaway
// PostgreSQL database when DATABASE_URL is set (CI), dropped again afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../platform/db/database';

export interface TestDatabase extends Database {
  /** Configuration to hand to services that open their own connection (same database). */
  config: { url?: string; pgliteDir: string; poolSize: number };
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const config = { pgliteDir: 'memory://', poolSize: 5 };
    const db = await openDatabase(config, options);
    return { ...db, config, drop: () => db.close() };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const config = { url: url.toString(), pgliteDir: '', poolSize: 10 };
  const db = await openDatabase(config, options);
  return {
    ...db,
    config,
    async drop() {
      await db.close();
      const cleanup = new pg.Client({ connectionString: baseUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
