import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { migrate, MigrationError, readMigrations } from '../../../platform/db/migrator';
import { createTestDatabase, type TestDatabase } from '../../support/database';

describe('migrator', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.drop());

  it('records every migration the way Prisma does', async () => {
    const rows = await db.sql.query<{ migration_name: string; checksum: string; steps: number }>(
      'SELECT migration_name, checksum, applied_steps_count AS steps FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(rows.rows.map((r) => r.migration_name)).toEqual(readMigrations().map((m) => m.name));
    expect(rows.rows.every((r) => /^[0-9a-f]{64}$/.test(r.checksum) && r.steps === 1)).toBe(true);
  });

  it('is idempotent: a second run applies nothing', async () => {
    expect(await migrate(db.sql)).toEqual([]);
  });

  it('refuses a migration that was edited after it was applied', async () => {
    const [first] = readMigrations();
    await expect(migrate(db.sql, [{ ...first!, checksum: 'f'.repeat(64) }])).rejects.toThrow(MigrationError);
  });

  it('leaves pgvector usable', async () => {
    const res = await db.sql.query<{ d: number }>("SELECT ('[1,2,3]'::vector <-> '[1,2,4]'::vector) AS d");
    expect(res.rows[0]!.d).toBeCloseTo(1);
  });
});

describe('Prisma schema and migration SQL', () => {
  it('agree (the schema engine finds nothing to migrate)', () => {
    const out = execFileSync(
      process.execPath,
      [path.resolve(__dirname, '../../../scripts/prisma-migrations.mjs'), 'check'],
      {
        encoding: 'utf8',
      },
    );
    expect(out).toContain('agree');
  });
});
