// The built platform as a child process: `npm run build` once, then a command from dist/ (as the
// README runs it) in its own process group, so stop() ends it and anything it started (SIGTERM,
// then SIGKILL after a grace) even when a test failed half-way. Its output is kept for the error
// of a failed test.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { until } from '../support/waiting';

// The file the build writes last (scripts/dist-check.cjs, which `npm run service` runs too).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BUILD_MARK } = require('../../scripts/dist-check.cjs') as { BUILD_MARK: string };

export const ROOT = path.join(__dirname, '../..');

/** The newest modification time among what the build reads: every folder and `.ts` file it compiles, its tsconfigs and the lockfile (the compiler's version). */
function newestInput(): number {
  const build = JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  let newest = 0;
  const visit = (file: string): void => {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    // A folder's own time changes when a file in it is added, removed or renamed.
    newest = Math.max(newest, stat.mtimeMs);
    if (!stat.isDirectory()) return;
    for (const entry of fs.readdirSync(file, { withFileTypes: true })) {
      const full = path.join(file, entry.name);
      if (entry.isDirectory() ? entry.name !== 'node_modules' : entry.name.endsWith('.ts')) visit(full);
    }
  };
  for (const dir of build.include) visit(path.join(ROOT, dir));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json']) visit(path.join(ROOT, file));
  return newest;
}

/**
 * `npm run build` (tsc -p tsconfig.build.json): the dist/ every later step runs. Skipped when dist/
 * is newer than everything the build reads (CI's second pass, a re-run): the same sources give the
 * same output, and a build costs a minute of both cores. DIST_REBUILD=1 builds regardless.
 */
export async function buildDist(): Promise<void> {
  const mark = fs.statSync(path.join(ROOT, BUILD_MARK), { throwIfNoEntry: false });
  if (process.env.DIST_REBUILD !== '1' && mark && mark.mtimeMs > newestInput()) return;
  const started = new Date();
  try {
    await promisify(execFile)('npm', ['run', 'build'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    throw new Error(`npm run build failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
  }
  // The mark carries the build's start: a source saved while tsc ran is then newer, and rebuilt next time.
  fs.utimesSync(path.join(ROOT, BUILD_MARK), started, started);
}

/** A fresh PostgreSQL database when DATABASE_URL is set (the CI's second pass), else undefined (PGlite). */
export async function createDistDatabase(): Promise<{ url: string; drop(): Promise<void> } | undefined> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) return undefined;
  const name = `dist_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
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

export interface DistProcess {
  child: ChildProcess;
  /** The environment it was started with (the settings the test chose, on top of the parent's). */
  env: NodeJS.ProcessEnv;
  stdout(): string;
  stderr(): string;
  /** Polls `check`; fails at once, with the output, if the process exits meanwhile. */
  waitFor(check: () => Promise<boolean>, what: string): Promise<void>;
  /** The error of a failed step, with the process's stderr and the end of its stdout appended. */
  explain(err: unknown): Error;
  /** SIGTERM to the process group, SIGKILL if it is still there after the grace; resolves to how it ended. */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Runs `argv` (`node ...` is this Node) in ROOT with the parent's environment plus `env`. */
export function startDist(argv: string[], env: NodeJS.ProcessEnv): DistProcess {
  const fullEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'development', ...env };
  // The jest worker's own settings must not reach the platform (it is not under test).
  for (const name of ['NODE_OPTIONS', 'JEST_WORKER_ID']) delete fullEnv[name];
  if (!env.DATABASE_URL) delete fullEnv.DATABASE_URL;
  const [program, ...args] = argv;
  const child = spawn(program === 'node' ? process.execPath : program!, args, { cwd: ROOT, env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (err += d));
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const gone = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    exited = { code, signal };
    resolve();
  }));
  const tail = (text: string, lines: number) => text.split('\n').slice(-lines).join('\n');
  const report = () => `\n--- ${argv.join(' ')} ${exited ? `exited (${exited.code ?? exited.signal})` : 'running'}; stderr:\n${err || '(empty)'}\n--- stdout (last 40 lines):\n${tail(out, 40)}`;
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch { /* already gone */ }
  };
  return {
    child,
    env: fullEnv,
    stdout: () => out,
    stderr: () => err,
    async waitFor(check, what) {
      await until(async () => {
        if (exited) throw new Error(`the process exited while waiting for ${what}${report()}`);
        return check();
      }, what, { tries: 1800, everyMs: 100 }).catch((e: unknown) => {
        throw e instanceof Error && e.message.includes('--- ') ? e : new Error(`${(e as Error).message}${report()}`);
      });
    },
    explain(e) {
      const error = e instanceof Error ? e : new Error(String(e));
      error.message += report();
      return error;
    },
    // The grace outlasts the platform's own SHUTDOWN_GRACE_MS (10 s), after which it closes
    // whatever connections are left and exits.
    async stop(graceMs = 30_000) {
      if (!exited) {
        signal('SIGTERM');
        const timer = setTimeout(() => signal('SIGKILL'), graceMs);
        await gone;
        clearTimeout(timer);
      }
      // Anything the process group left behind (an OCR decoder child, npm's node) goes too.
      signal('SIGKILL');
      return exited!;
    },
  };
}
