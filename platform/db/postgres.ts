// PostgreSQL through node-postgres: one pool shared by Prisma's adapter and the raw SQL paths.
import pg from 'pg';
import type { SqlExecutor, SqlQuery, SqlResult } from './sql';

function wrap(conn: pg.Pool | pg.PoolClient): SqlQuery {
  return {
    async query<Row>(text: string, params: unknown[] = []): Promise<SqlResult<Row>> {
      const res = await conn.query(text, params);
      return { rows: res.rows as Row[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(text: string) {
      await conn.query(text);
    },
  };
}

export function openPostgres(url: string, poolSize: number): { pool: pg.Pool; sql: SqlExecutor } {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle client losing its server must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  const sql: SqlExecutor = {
    ...wrap(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
  };
  return { pool, sql };
}
