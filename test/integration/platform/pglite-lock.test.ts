// The embedded database's one-process lock: a live holder keeps the directory, a dead one (even
// killed with -9 a moment ago, even not yet reaped by its parent) never blocks a restart, and a
// recycled pid does not pass for the old holder.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { currentHolder, lockPGliteDir } from '../../../platform/db/pglite-lock';
import { until } from '../../support/waiting';

const RUN_TS = path.join(__dirname, '../../support/run-ts.js');
const HOLDER = path.join(__dirname, '../../support/fixtures/hold-pglite-lock.ts');
const hasProc = fs.existsSync('/proc/self/stat');
const children: ChildProcess[] = [];

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pglite-lock-'));
}

/** Resolves with the pid that printed `locked <pid>` on the child's stdout. */
function lockedBy(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const match = /locked (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`lock holder exited (${code}): ${err}`)));
  });
}

function startHolder(dir: string): { child: ChildProcess; locked: Promise<number> } {
  const child = spawn(process.execPath, [RUN_TS, HOLDER, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return { child, locked: lockedBy(child) };
}

function procState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

it('refuses the directory while a live process holds it', async () => {
  const dir = tempDir();
  const holder = startHolder(dir);
  const pid = await holder.locked;
  expect(() => lockPGliteDir(dir)).toThrow(new RegExp(`in use by process ${pid}`));
  holder.child.kill('SIGKILL');
});

it('takes over at once from a holder killed with -9', async () => {
  const dir = tempDir();
  const holder = startHolder(dir);
  await holder.locked;
  const exited = new Promise((resolve) => holder.child.once('exit', resolve));
  holder.child.kill('SIGKILL');
  await exited;
  const release = lockPGliteDir(dir); // no waiting, no retry
  expect(JSON.parse(fs.readFileSync(path.join(dir, 'platform.pid'), 'utf8')).pid).toBe(process.pid);
  release();
  expect(fs.existsSync(path.join(dir, 'platform.pid'))).toBe(false);
});

(hasProc ? it : it.skip)(
  'takes over from a holder killed with -9 that its parent has not reaped yet (a zombie)',
  async () => {
    const dir = tempDir();
    // The shell starts the holder, then becomes `sleep`, which never waits for its children.
    const parent = spawn('sh', ['-c', `"${process.execPath}" "${RUN_TS}" "${HOLDER}" "${dir}" & exec sleep 120`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(parent);
    const pid = await lockedBy(parent);
    process.kill(pid, 'SIGKILL');
    await until(async () => procState(pid) === 'Z', 'the killed holder to become a zombie');
    expect(() => process.kill(pid, 0)).not.toThrow(); // what fooled the old check
    const release = lockPGliteDir(dir);
    release();
    parent.kill('SIGKILL');
  },
);

(hasProc ? it : it.skip)('does not mistake a recycled pid for the holder', async () => {
  const dir = tempDir();
  // A live process with the recorded pid but another start time: the pid was reused.
  const other = spawn('sleep', ['120']);
  children.push(other);
  fs.writeFileSync(path.join(dir, 'platform.pid'), JSON.stringify({ ...currentHolder(), pid: other.pid, start: '1' }));
  lockPGliteDir(dir)();
  // Same pid, same start time: that process really holds it.
  const realStart = fs.readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19];
  fs.writeFileSync(
    path.join(dir, 'platform.pid'),
    JSON.stringify({ ...currentHolder(), pid: other.pid, start: realStart }),
  );
  expect(() => lockPGliteDir(dir)).toThrow(/in use by process/);
  other.kill('SIGKILL');
});

it('treats a lock written before a reboot, or unreadable, as stale', () => {
  const dir = tempDir();
  const file = path.join(dir, 'platform.pid');
  fs.writeFileSync(file, JSON.stringify({ ...currentHolder(), pid: process.ppid, boot: 'another-boot' }));
  if (currentHolder().boot) lockPGliteDir(dir)();
  fs.writeFileSync(file, '{"pid":');
  lockPGliteDir(dir)();
});

it('keeps refusing for a lock in the old format (a bare pid) whose process lives', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'platform.pid'), String(process.ppid));
  expect(() => lockPGliteDir(dir)).toThrow(new RegExp(`in use by process ${process.ppid}`));
});
