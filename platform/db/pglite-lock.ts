// PGlite is one process only: two processes on one data directory silently lose writes. A lock
// file in the directory turns that mistake into a clear error at start, and must never turn a
// crash into a refused restart. It records who holds the directory: pid, the process's start
// time and the machine's boot id (Linux /proc). A holder counts as alive only when that pid
// still runs, is not a zombie (a process killed with -9 whose parent has not reaped it yet), and
// started at the recorded time in the same boot; otherwise the pid was reused (in a fresh
// container the same small pids come round again) and the lock is stale and taken over at once.
// Without /proc (macOS) only `kill(pid, 0)` is available.
import fs from 'node:fs';
import path from 'node:path';

interface Holder {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks after boot), when /proc exists. */
  start?: string;
  boot?: string;
}

function readProcStat(pid: number): { state: string; start: string } | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0]!, start: fields[19]! };
  } catch {
    return undefined;
  }
}

function bootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return undefined;
  }
}

function signalable(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Who this process is, in the lock file's terms. */
export function currentHolder(): Holder {
  return { pid: process.pid, start: readProcStat(process.pid)?.start, boot: bootId() };
}

/** True when the process that wrote `holder` is still running. */
export function holderIsAlive(holder: Holder): boolean {
  if (!Number.isInteger(holder.pid) || holder.pid <= 0) return false;
  if (holder.boot && bootId() && holder.boot !== bootId()) return false; // written before a reboot
  if (!signalable(holder.pid)) return false;
  const stat = readProcStat(holder.pid);
  if (!stat) return true; // no /proc (or not ours to read): kill(pid, 0) is all we know
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return holder.start === undefined || holder.start === stat.start;
}

function parseHolder(text: string): Holder | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return { pid: Number(trimmed) }; // written by an older version
  try {
    const value = JSON.parse(trimmed) as Holder;
    return Number.isInteger(value.pid) ? value : undefined;
  } catch {
    return undefined; // torn or foreign content: nobody holds it
  }
}

const isSelf = (h: Holder, me: Holder) => h.pid === me.pid && (h.start === undefined || h.start === me.start);

/** Takes the directory for this process; returns a function that releases it. */
export function lockPGliteDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'platform.pid');
  const me = currentHolder();
  const content = JSON.stringify(me);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, content, { flag: 'wx' }); // O_EXCL: one winner if two start together
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (attempt >= 2)
        throw new Error(
          `could not take the lock on the embedded database in ${dataDir}: another process keeps taking it`,
          { cause: err },
        );
    }
    let holder: Holder | undefined;
    try {
      holder = parseHolder(fs.readFileSync(file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // released meanwhile
      throw err;
    }
    if (holder && !isSelf(holder, me) && holderIsAlive(holder)) {
      throw new Error(
        `the embedded database in ${dataDir} is in use by process ${holder.pid}; PGlite serves one process only (set DATABASE_URL to share PostgreSQL between processes)`,
      );
    }
    fs.rmSync(file, { force: true }); // stale: its process is gone (crash, kill -9, reboot)
  }
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8') === content) fs.unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
}
