import { createTestDatabase } from '../support/database';
it('copy', async () => {
  const c = process.cpuUsage();
  const db = await createTestDatabase();
  const d = process.cpuUsage(c);
  console.log('cpu', (d.user + d.system) / 1000);
  const r = await db.sql.query<{ shared_buffers: string }>('SHOW shared_buffers');
  const m = await db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM "_prisma_migrations"');
  console.log(r.rows, m.rows);
  await db.drop();
});
