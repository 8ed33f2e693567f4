// Reads a repository the operator allows from the local disk: the root must lie inside one of
// SCANNER_ALLOWED_ROOTS (after resolving symlinks), every file is opened only after its real path
// is checked to be inside the root (a symlink pointing out is skipped and reported, never read),
// and files over the size limit, or past the file-count limit, are reported instead of read. The
// walk is breadth-first and sorted, so two scans of one tree see the same files in the same order.
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { ForbiddenError, InputError } from '../../platform/errors/domain-errors';

export interface RepositoryLimits {
  maxFileBytes: number;
  maxFiles: number;
}

export interface RepositoryFile {
  /** Relative to the root, with forward slashes. */
  path: string;
  text: string;
}

export interface SkippedFile {
  path: string;
  reason: 'symlink_escape' | 'too_large' | 'too_many_files' | 'binary' | 'unreadable';
}

export interface RepositoryRead {
  files: RepositoryFile[];
  skipped: SkippedFile[];
}

const IGNORED_DIRS = new Set(['.git', 'node_modules', '.data', 'dist', 'coverage']);

const inside = (root: string, candidate: string) =>
  candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);

/** The real path of a target's root, refused unless inside an allowed root. */
export async function allowedRoot(requested: string, allowedRoots: readonly string[]): Promise<string> {
  if (allowedRoots.length === 0)
    throw new ForbiddenError('No repository root is allowed on this scanner (SCANNER_ALLOWED_ROOTS is empty)');
  if (!path.isAbsolute(requested)) throw InputError.of(['repositoryPath'], 'The path must be absolute');
  let real: string;
  try {
    real = await fs.realpath(requested);
  } catch {
    throw InputError.of(['repositoryPath'], 'The path does not exist or cannot be read');
  }
  const roots = await Promise.all(allowedRoots.map((r) => fs.realpath(r).catch(() => null)));
  if (!roots.some((r) => r !== null && inside(r, real)))
    throw new ForbiddenError(`The path is outside the roots this scanner may read (SCANNER_ALLOWED_ROOTS)`);
  const stat = await fs.stat(real);
  if (!stat.isDirectory()) throw InputError.of(['repositoryPath'], 'The path is not a directory');
  return real;
}

/** The files under `root` matching any of `globs`, within the limits. */
export async function readRepository(
  root: string,
  globs: readonly string[],
  limits: RepositoryLimits,
): Promise<RepositoryRead> {
  const wanted = picomatch([...globs], { dot: true });
  const files: RepositoryFile[] = [];
  const skipped: SkippedFile[] = [];
  let queue = [''];
  while (queue.length > 0) {
    const next: string[] = [];
    for (const dir of queue) {
      const entries = await fs.readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        const rel = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!IGNORED_DIRS.has(entry.name)) next.push(rel);
          continue;
        }
        if (!entry.isFile() && !entry.isSymbolicLink()) continue;
        if (!wanted(rel)) continue;
        const absolute = path.join(root, rel);
        if (entry.isSymbolicLink()) {
          const real = await fs.realpath(absolute).catch(() => null);
          // Symlinks are never followed, inside or out: a link out is reported as an escape.
          if (real === null || !inside(root, real)) skipped.push({ path: rel, reason: 'symlink_escape' });
          continue;
        }
        if (files.length >= limits.maxFiles) {
          skipped.push({ path: rel, reason: 'too_many_files' });
          continue;
        }
        const read = await readBounded(absolute, limits.maxFileBytes);
        if (typeof read === 'string') files.push({ path: rel, text: read });
        else skipped.push({ path: rel, reason: read.reason });
      }
    }
    queue = next;
  }
  return { files, skipped };
}

async function readBounded(file: string, maxBytes: number): Promise<string | { reason: SkippedFile['reason'] }> {
  try {
    // O_NOFOLLOW: a file swapped for a symlink after the listing is refused; the size is read from
    // the open handle, so a file that grew since is measured before a byte of it is read.
    const handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const { size } = await handle.stat();
      if (size > maxBytes) return { reason: 'too_large' };
      const buffer = Buffer.alloc(size);
      const { bytesRead } = await handle.read(buffer, 0, size, 0);
      const bytes = buffer.subarray(0, bytesRead);
      if (bytes.includes(0)) return { reason: 'binary' };
      return bytes.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return { reason: 'unreadable' };
  }
}

/**
 * The repository's root package-lock.json (the SBOM's source), read with the same care as any
 * file (never through a symlink, measured before it is read) but under its own, larger limit:
 * a lockfile is routinely bigger than a source file. Null when there is none or it is refused.
 */
export async function readLockfile(root: string, maxBytes: number): Promise<string | null> {
  const text = await readBounded(path.join(root, 'package-lock.json'), maxBytes);
  return typeof text === 'string' ? text : null;
}
