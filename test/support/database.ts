// A fresh, migrated database per test file: in-memory PGlite by default, or a new throwaway
// PostgreSQL database when DATABASE_URL is set (CI), dropped again afterwards. Both are copies of
// the migrated template (test/support/database-template.ts); `migrate: false` gives an empty one.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../platform/db/database';
import { pgliteTemplateBlob, postgresTemplate } from './database-template';

export interface TestDatabase extends Database {
  /** Configuration to hand to services that open their own connection (same database). */
  config: { url?: string; pgliteDir: string; poolSize: number };
  drop(): Promise<void>;
}

async function admin(baseUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: baseUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** `CREATE DATABASE name` as a copy of the template (or empty), rebuilding a template dropped meanwhile once. */
async function createPostgresDatabase(baseUrl: string, name: string, fromTemplate: boolean): Promise<void> {
  if (!fromTemplate) return admin(baseUrl, `CREATE DATABASE "${name}"`);
  try {
    await admin(baseUrl, `CREATE DATABASE "${name}" TEMPLATE "${await postgresTemplate(baseUrl)}"`);
  } catch (err) {
    // 3D000: the template was dropped by hand after this run looked for it.
    if ((err as { code?: string }).code !== '3D000') throw err;
    await admin(baseUrl, `CREATE DATABASE "${name}" TEMPLATE "${await postgresTemplate(baseUrl)}"`);
  }
}

export async function createTestDatabase(options: { migrate?: boolean } = {}): Promise<TestDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  const fromTemplate = options.migrate !== false;
  if (!baseUrl) {
    const config = { pgliteDir: 'memory://', poolSize: 5 };
    const db = await openDatabase(config, {
      ...options,
      ...(fromTemplate ? { pgliteTemplate: await pgliteTemplateBlob() } : {}),
    });
    return { ...db, config, drop: () => db.close() };
  }
  const name = `test_${randomBytes(6).toString('hex')}`;
  await createPostgresDatabase(baseUrl, name, fromTemplate);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const config = { url: url.toString(), pgliteDir: '', poolSize: 10 };
  const db = await openDatabase(config, options);
  return {
    ...db,
    config,
    async drop() {
      await db.close();
      await admin(baseUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
