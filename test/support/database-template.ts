// The migrated template every test database is cloned from (issue 24, "test time as a budget").
// Building a database from nothing costs initdb plus nineteen migrations: on PGlite that is two
// WebAssembly instances and ~6-9 s of CPU per test file, against ~2 s to load a dumped data
// directory. So the migrations run once (jest's globalSetup, test/support/global-setup.ts) into a
// template, and each test file starts from a copy of it:
//   PGlite      a dumped data directory (a .tgz) in node_modules/.cache/test-database/
//   PostgreSQL  a database `test_tmpl_<key>` that each test's `CREATE DATABASE ... TEMPLATE` copies
// The key hashes every migration (and, for PGlite, the PGlite and pgvector versions), so a new or
// changed migration makes a new template; a stale one can never be used. Both are built under a
// temporary name and renamed into place, so two jest processes (or workers) building at once each
// end with a whole template. Every clone is still handed to the migrator, which finds nothing to
// do (one query per migration) and would apply anything a template missed.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../platform/db/database';
import { migrate, readMigrations } from '../../platform/db/migrator';
import { openPGlite } from '../../platform/db/pglite';
import { PROJECT_ROOT } from '../../platform/project-root';

const CACHE_DIR = path.join(PROJECT_ROOT, 'node_modules/.cache/test-database');
/** Bumped when the way a template is built changes, so no template built the old way is used. */
const RECIPE = 2;

function versionOf(pkg: string): string {
  const file = path.join(PROJECT_ROOT, 'node_modules', pkg, 'package.json');
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Changes whenever a migration is added or edited (or, for PGlite, the engine is upgraded). */
function templateKey(engine: 'pglite' | 'postgres'): string {
  const hash = createHash('sha256').update(`recipe ${RECIPE}\n`);
  for (const m of readMigrations()) hash.update(`${m.name}:${m.checksum}\n`);
  if (engine === 'pglite')
    hash.update(`pglite ${versionOf('@electric-sql/pglite')} pgvector ${versionOf('@electric-sql/pglite-pgvector')}`);
  return hash.digest('hex').slice(0, 16);
}

/** The path of the migrated PGlite data directory (a .tgz), built first if it is not there. */
export async function pgliteTemplate(): Promise<string> {
  const file = path.join(CACHE_DIR, `pglite-${templateKey('pglite')}.tgz`);
  if (fs.existsSync(file)) return file;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  const { pglite, sql } = await openPGlite('memory://');
  let dump: Blob;
  try {
    await migrate(sql);
    // Test databases are small: 16 MB of shared buffers instead of 128 makes each copy start in
    // about half the CPU time (the server zeroes them at start). Read at the copy's start, from
    // the postgresql.auto.conf this writes into the data directory; the platform is not affected.
    await sql.exec(`ALTER SYSTEM SET shared_buffers = '16MB'`);
    // A clean checkpoint, so a copy starts without replaying WAL. Compressed: the data directory
    // is 42 MB (a 16 MB WAL segment, mostly zeros), 6 MB gzipped, and inflating costs less CPU
    // than reading and copying the whole of it in every test file.
    await sql.exec('CHECKPOINT');
    dump = await pglite.dumpDataDir('gzip');
  } finally {
    await pglite.close();
  }
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, file);
  // Templates of earlier migration sets: removed once a day old (not at once: a jest run on
  // another branch may still be reading its own).
  for (const name of fs.readdirSync(CACHE_DIR)) {
    const other = path.join(CACHE_DIR, name);
    if (other !== file && name.startsWith('pglite-') && Date.now() - fs.statSync(other).mtimeMs > 86_400_000)
      fs.rmSync(other, { force: true });
  }
  return file;
}

/** The PGlite template's contents, as `openDatabase` takes them. */
export async function pgliteTemplateBlob(): Promise<Blob> {
  return new Blob([fs.readFileSync(await pgliteTemplate())], { type: 'application/gzip' });
}

async function withClient<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The name of the migrated PostgreSQL template database on `baseUrl`'s server, built first if it is not there. */
export async function postgresTemplate(baseUrl: string): Promise<string> {
  const name = `test_tmpl_${templateKey('postgres')}`;
  const exists = await withClient(
    baseUrl,
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1,
  );
  if (exists) return name;
  const partial = `test_tmpl_partial_${randomBytes(6).toString('hex')}`;
  await withClient(baseUrl, (c) => c.query(`CREATE DATABASE "${partial}"`));
  try {
    // openDatabase also creates pgvector where the server has it, as for every database.
    const db = await openDatabase({ url: databaseUrl(baseUrl, partial), pgliteDir: '', poolSize: 1 });
    await db.close();
    await withClient(baseUrl, async (c) => {
      try {
        await c.query(`ALTER DATABASE "${partial}" RENAME TO "${name}"`);
      } catch (err) {
        // 42P04: another process renamed its own copy into place first; that one is used.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    });
  } finally {
    await withClient(baseUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${partial}" WITH (FORCE)`));
  }
  // Templates of earlier migration sets are left alone: another checkout's run on the same server
  // may be copying its own. They are small, and `DROP DATABASE` removes them.
  return name;
}
