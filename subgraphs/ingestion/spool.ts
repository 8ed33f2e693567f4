// A source's bytes are spooled to a private temporary file as they arrive: hashed (the batch is
// named by its SHA-256, so the same content sent again resumes or is recognised instead of
// landing twice), counted against the size limit (a larger body is refused before it fills the
// disk), and read again from the file as many times as the readers need. Memory stays flat.
// A pushed body may also be read while it is still arriving (`follow`): the whole-batch COPY
// starts before the hash names the batch, instead of after the last byte (issue 32).
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PayloadTooLargeError } from '../../platform/errors/domain-errors';

export interface Spooled {
  path: string;
  sha256: string;
  bytes: number;
  open(): Readable;
  release(): Promise<void>;
}

/** A spool being written: its bytes readable as they land, the whole once the body has ended. */
export interface Spooling {
  /** The spool once the body has ended (hashed, counted); rejects as spool() does, the file removed. */
  done: Promise<Spooled>;
  /**
   * The bytes from the first, as they are written: a read waits for more until the body ends, and
   * fails when the spool fails. Memory holds one read (the file is the buffer between the two).
   */
  follow(): Readable;
}

const READ_BYTES = 256 * 1024;

export async function spool(input: Readable, maxBytes: number, dir = os.tmpdir()): Promise<Spooled> {
  return spoolFollowed(input, maxBytes, dir).done;
}

/** spool(), with its file also readable while it is being written. */
export function spoolFollowed(input: Readable, maxBytes: number, dir = os.tmpdir()): Spooling {
  const file = path.join(dir, `ingestion-${randomUUID()}.spool`);
  const hash = createHash('sha256');
  let bytes = 0;
  /** Bytes on disk (a follower reads up to here). */
  let written = 0;
  let ended = false;
  let failed: unknown = null;
  let waiting: (() => void)[] = [];
  const wake = () => {
    const w = waiting;
    waiting = [];
    for (const resolve of w) resolve();
  };
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) return done(new PayloadTooLargeError(`the source is larger than ${maxBytes} bytes`));
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const opened = fs.promises.open(file, 'w', 0o600);
  // Awaited by done (and by followers); marked handled so a follower-less failure warns of nothing.
  opened.catch(() => {});
  const writeAll = async (buf: Buffer) => {
    const handle = await opened;
    for (let off = 0; off < buf.length;) {
      const { bytesWritten } = await handle.write(buf, off, buf.length - off, written + off);
      off += bytesWritten;
    }
    written += buf.length;
    wake();
  };
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      writeAll(chunk).then(() => done(), done);
    },
    writev(chunks, done) {
      writeAll(Buffer.concat(chunks.map((c) => c.chunk as Buffer))).then(() => done(), done);
    },
  });
  const done = (async () => {
    try {
      await pipeline(input, meter, sink);
      await (await opened).close();
    } catch (err) {
      failed = err;
      wake();
      await opened.then((h) => h.close()).catch(() => {});
      await fs.promises.rm(file, { force: true });
      throw err;
    }
    ended = true;
    wake();
    return fromFile(file, hash.digest('hex'), bytes, true);
  })();
  done.catch(() => {});
  const follow = () =>
    Readable.from(
      (async function* () {
        await opened;
        const handle = await fs.promises.open(file, 'r');
        try {
          for (let pos = 0; ;) {
            if (failed) throw failed;
            if (pos < written) {
              const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, written - pos));
              const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
              if (bytesRead === 0) throw new Error('the spool file was cut short');
              pos += bytesRead;
              yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
            } else if (ended) return;
            else await new Promise<void>((resolve) => waiting.push(resolve));
          }
        } finally {
          await handle.close();
        }
      })(),
    );
  return { done, follow };
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
    open: () => fs.createReadStream(file, { highWaterMark: READ_BYTES }),
    release: async () => {
      if (owned) await fs.promises.rm(file, { force: true });
    },
  };
}
