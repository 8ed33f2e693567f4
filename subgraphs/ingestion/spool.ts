// A source's bytes are spooled to a private temporary file as they arrive: hashed (the batch is
// named by its SHA-256, so the same content sent again resumes or is recognised instead of
// landing twice), counted against the size limit (a larger body is refused before it fills the
// disk), and read again from the file as many times as the readers need. Memory stays flat.
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadTooLargeError } from '../../platform/errors/domain-errors';

export interface Spooled {
  path: string;
  sha256: string;
  bytes: number;
  open(): Readable;
  release(): Promise<void>;
}

export async function spool(input: Readable, maxBytes: number, dir = os.tmpdir()): Promise<Spooled> {
  const file = path.join(dir, `ingestion-${randomUUID()}.spool`);
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(new PayloadTooLargeError(`the source is larger than ${maxBytes} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await pipeline(input, meter, fs.createWriteStream(file, { mode: 0o600 }));
  } catch (err) {
    await fs.promises.rm(file, { force: true });
    throw err;
  }
  return fromFile(file, hash.digest('hex'), bytes, true);
}

/** A file already on disk (a file drop, a downloaded SFTP file): hashed in one streamed pass. */
export async function spoolFile(file: string, maxBytes: number): Promise<Spooled> {
  const stat = await fs.promises.stat(file);
  if (stat.size > maxBytes) throw new PayloadTooLargeError(`the source is larger than ${maxBytes} bytes`);
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return fromFile(file, hash.digest('hex'), stat.size, false);
}

function fromFile(file: string, sha256: string, bytes: number, owned: boolean): Spooled {
  return {
    path: file,
    sha256,
    bytes,
    open: () => fs.createReadStream(file, { highWaterMark: 256 * 1024 }),
    release: async () => {
      if (owned) await fs.promises.rm(file, { force: true });
    },
  };
}
