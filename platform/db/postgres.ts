// PostgreSQL through node-postgres: one pool shared by Prisma's adapter and the raw SQL paths.
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { QueryOptions, SqlExecutor, SqlQuery, SqlResult } from './sql';

function wrap(conn: pg.Pool | pg.PoolClient): SqlQuery {
  return {
    async query<Row>(text: string, params: unknown[] = [], options?: QueryOptions): Promise<SqlResult<Row>> {
      const res = options?.prepareAs
        ? await conn.query({ name: options.prepareAs, text, values: params })
        : await conn.query(text, params);
      return { rows: res.rows as Row[], rowCount: res.rowCount ?? res.rows.length };
    },
    async exec(text: string) {
      await conn.query(text);
    },
    async copyFrom(text: string, data: string | AsyncIterable<string | Buffer>) {
      // A pool has no connection of its own: COPY needs one for its whole exchange.
      const client = conn instanceof pg.Pool ? await conn.connect() : conn;
      try {
        const stream = client.query(copyFromStdin(text));
        await pipeline(Readable.from(typeof data === 'string' ? [data] : data), stream);
        return stream.rowCount ?? 0;
      } finally {
        if (conn instanceof pg.Pool) (client as pg.PoolClient).release();
      }
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
