// PGlite is one process only: two processes on one data directory silently lose writes. A pid
// file in the directory turns that mistake into a clear error at start.
import fs from 'node:fs';
import path from 'node:path';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the directory for this process; returns a function that releases it. */
export function lockPGliteDir(dataDir: string): () => void {
  const file = path.join(dataDir, 'platform.pid');
  try {
    const holder = Number(fs.readFileSync(file, 'utf8').trim());
    if (holder && holder !== process.pid && isAlive(holder)) {
      throw new Error(`the embedded database in ${dataDir} is in use by process ${holder}; PGlite serves one process only (set DATABASE_URL to share PostgreSQL between processes)`);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  fs.writeFileSync(file, String(process.pid));
  return () => {
    try {
      if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
}
