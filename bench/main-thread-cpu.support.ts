// CPU seconds of this process's main thread (the service's event loop) from /proc, without the
// load generator's worker thread: steadier than requests/s on a shared machine. null off Linux.
import fs from 'node:fs';

export function mainThreadCpuSeconds(): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: utime and stime are the 12th and 13th (ticks of 10 ms).
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return null;
  }
}

/** Microseconds of main-thread CPU per request between two samples, as text ('n/a' off Linux). */
export function cpuPerRequest(before: number | null, after: number | null, requests: number): string {
  if (before === null || after === null || requests === 0) return 'n/a';
  return `${Math.round(((after - before) * 1e6) / requests)} us`;
}
