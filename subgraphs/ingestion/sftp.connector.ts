// The SFTP connector (ssh2-sftp-client): connects with a password or a private key (both
// secret references), only to a server whose host key matches the pinned
// `source.host_key_sha256` (OpenSSH's `SHA256:<base64>` or hex: no pin, no connection), lists
// `source.path` and spools each regular file in it, one batch per file. A file's content hash
// names its batch, so a file pulled again lands nothing twice; files are left where they are
// (a source account is often read-only). Path traversal is refused both ways: a source path with
// `..` or a relative one, and a name from the server that is not a plain file name.
import { createHash } from 'node:crypto';
import path from 'node:path';
import SftpClient from 'ssh2-sftp-client';
import { InputError, PayloadTooLargeError } from '../../platform/errors/domain-errors';
import type { PipelineDefinition } from './pipeline.types';
import { SourceFormatError } from './record-reader';
import { spool, type Spooled } from './spool';

export interface SftpOptions {
  maxBytes: number;
  spoolDir?: string;
  password?: string;
  privateKey?: string;
  readyTimeoutMs?: number;
  /** At most this many files per pull (1,000). */
  maxFiles?: number;
}

/** A source directory: absolute, without `..` or NUL. */
export function checkSftpPath(raw: string | undefined): string {
  const p = raw ?? '/';
  if (!p.startsWith('/') || p.includes('\0') || p.split('/').includes('..')) {
    throw InputError.of(
      ['definition', 'source', 'path'],
      'an SFTP path is absolute and has no .. segment',
      'value_error.path',
    );
  }
  return path.posix.normalize(p);
}

/** A name the server listed: a plain file name, nothing that climbs or names another directory. */
export function safeRemoteName(name: string): boolean {
  return name !== '.' && name !== '..' && !/[/\\\0]/.test(name) && name.length <= 255;
}

/** True when the server's key matches the pin (`SHA256:base64`, base64 or hex of its SHA-256). */
export function hostKeyMatches(key: Buffer, pin: string): boolean {
  const digest = createHash('sha256').update(key).digest();
  const p = pin.trim().replace(/^SHA256:/i, '');
  if (/^[0-9a-f]{64}$/i.test(p)) return digest.toString('hex') === p.toLowerCase();
  return digest.toString('base64').replace(/=+$/, '') === p.replace(/=+$/, '');
}

export async function pullSftp(
  definition: PipelineDefinition,
  options: SftpOptions,
  each: (fileName: string, spooled: Spooled) => Promise<void>,
): Promise<void> {
  const source = definition.source;
  if (!source.host) throw InputError.of(['definition', 'source', 'host'], 'an sftp source needs a host');
  if (!source.host_key_sha256) {
    throw InputError.of(['definition', 'source', 'host_key_sha256'], "an sftp source pins its server's host key");
  }
  if (options.password === undefined && options.privateKey === undefined) {
    throw InputError.of(
      ['definition', 'source', 'password'],
      'an sftp source needs a password or private_key reference',
    );
  }
  const dir = checkSftpPath(source.path);
  const pin = source.host_key_sha256;
  const client = new SftpClient('ingestion');
  try {
    await client.connect({
      host: source.host,
      port: source.port ?? 22,
      username: source.username,
      password: options.password,
      privateKey: options.privateKey,
      readyTimeout: options.readyTimeoutMs ?? 20_000,
      hostVerifier: (key: Buffer) => hostKeyMatches(key, pin),
    });
    const listing = await client.list(dir);
    const files = listing
      .filter((f) => f.type === '-' && safeRemoteName(f.name))
      .sort((a, b) => a.name.localeCompare(b.name))
      .slice(0, options.maxFiles ?? 1000);
    const refused = listing.find((f) => !safeRemoteName(f.name));
    if (refused) throw new SourceFormatError(`the server listed a name that is not a plain file name`);
    for (const f of files) {
      if (f.size > options.maxBytes)
        throw new PayloadTooLargeError(`${f.name} is larger than ${options.maxBytes} bytes`);
      const spooled = await spool(
        client.createReadStream(path.posix.join(dir, f.name)),
        options.maxBytes,
        options.spoolDir,
      );
      try {
        await each(f.name, spooled);
      } finally {
        await spooled.release();
      }
    }
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e instanceof InputError || e instanceof PayloadTooLargeError) throw e;
    throw InputError.of(['source'], `SFTP: ${e.message}`, 'value_error.sftp');
  } finally {
    await client.end().catch(() => undefined);
  }
}
