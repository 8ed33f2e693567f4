// One thread's CPU time as Linux accounts it (/proc/<pid>/task/<tid>/stat, fields 14 and 15:
// utime and stime in clock ticks). On a shared machine a request rate says as much about the
// scheduler as about the code; the CPU a thread spent over a fixed number of requests does not,
// so the per-request benches report it beside their rates. A process's main thread has the
// process's id as its thread id. Linux only: elsewhere it answers undefined.
import fs from 'node:fs';

/** USER_HZ: 100 on every Linux the platform runs on (`getconf CLK_TCK`). */
const TICK_US = 10_000;

export interface ThreadCpu {
  /** Microseconds of user and system CPU. */
  user: number;
  system: number;
}

export function threadCpu(pid: number, tid: number = pid): ThreadCpu | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * TICK_US, system: Number(fields[12]) * TICK_US };
}

/** The main thread's CPU per request between two readings, as "user X µs + system Y µs". */
export function perRequest(before: ThreadCpu | undefined, after: ThreadCpu | undefined, requests: number) {
  if (!before || !after || requests <= 0) return undefined;
  return { user: (after.user - before.user) / requests, system: (after.system - before.system) / requests };
}

export function formatPerRequest(cpu: ThreadCpu | undefined): string {
  return cpu ? `user ${cpu.user.toFixed(1)} µs + system ${cpu.system.toFixed(1)} µs per request` : 'CPU n/a';
}
