// Embedded PostgreSQL (PGlite, WebAssembly) with pgvector: the zero-setup default database.
// One process only: two processes on one data directory silently lose writes.
import fs from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { lockPGliteDir } from './pglite-lock';
import type { SqlExecutor, SqlQuery, SqlResult } from './sql';

function wrap(conn: PGlite | Transaction): SqlQuery {
  return {
    async query<Row>(text: string, params: unknown[] = []): Promise<SqlResult<Row>> {
      const res = await conn.query<Row>(text, params);
      return { rows: res.rows, rowCount: res.affectedRows ?? res.rows.length };
    },
    async exec(text: string) {
      await conn.exec(text);
    },
  };
}

/**
 * `dataDir` is a folder, or `memory://` for a throwaway in-memory database (tests). `loadDataDir`
 * starts it from a data directory dumped earlier (`dumpDataDir`): the tests' migrated template,
 * which skips initdb and the migrations (test/support/database.ts).
 */
export async function openPGlite(
  dataDir: string,
  { loadDataDir }: { loadDataDir?: Blob } = {},
): Promise<{ pglite: PGlite; sql: SqlExecutor; release: () => void }> {
  let release = () => {};
  if (!dataDir.startsWith('memory://')) {
    fs.mkdirSync(dataDir, { recursive: true });
    release = lockPGliteDir(dataDir);
  }
  const pglite = await PGlite.create(dataDir, { extensions: { vector }, ...(loadDataDir ? { loadDataDir } : {}) });
  // An acknowledged commit must be in the WAL file before the answer goes out: that is what
  // makes it survive kill -9 (docs/decisions.md, "PGlite durability"). PGlite's default already
  // does this; set it here so a postgresql.conf in the data directory cannot turn it off
  // (with `off`, a kill -9 lost every acknowledged append in test/e2e/platform/pglite-durability).
  await pglite.exec('SET synchronous_commit = on');
  await pglite.exec('CREATE EXTENSION IF NOT EXISTS vector');
  const sql: SqlExecutor = {
    ...wrap(pglite),
    transaction: (work) => pglite.transaction((tx) => work(wrap(tx))),
  };
  return { pglite, sql, release };
}
