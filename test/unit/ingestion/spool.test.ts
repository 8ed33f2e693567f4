// A pushed body spooled to disk (spool.ts) and read while it is still arriving (spoolFollowed's
// follower, what the early whole-batch COPY reads): the follower gives every byte once, in order,
// waiting for the ones not yet written, and ends with the body; a body that fails or outgrows the
// limit fails its followers too and leaves no file behind.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { PayloadTooLargeError } from '../../../platform/errors/domain-errors';
import { spool, spoolFollowed } from '../../../subgraphs/ingestion/spool';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spool-test-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `parts` one at a time, a few event-loop turns apart (a body arriving over a network), then `fail` if given. */
function slowly(parts: Buffer[], fail?: Error): Readable {
  return Readable.from(
    (async function* () {
      for (const part of parts) {
        for (let i = 0; i < 3; i++) await turn();
        yield part;
      }
      if (fail) throw fail;
    })(),
  );
}

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

const parts = Array.from({ length: 40 }, (_, i) => Buffer.alloc(10_000 + i * 997, String.fromCharCode(65 + (i % 26))));
const body = Buffer.concat(parts);

it('a follower begun before the first byte reads the whole body, in order, once it has ended', async () => {
  const spooling = spoolFollowed(slowly(parts), 10 * 1024 * 1024, dir);
  const [early, late] = [spooling.follow(), spooling.follow()];
  const read = readAll(early);
  const spooled = await spooling.done;
  expect((await read).equals(body)).toBe(true);
  expect((await readAll(late)).equals(body)).toBe(true);
  expect(spooled.bytes).toBe(body.length);
  expect(spooled.sha256).toBe(createHash('sha256').update(body).digest('hex'));
  expect((await readAll(spooled.open())).equals(body)).toBe(true);
  expect((fs.statSync(spooled.path).mode & 0o777).toString(8)).toBe('600');
  await spooled.release();
  expect(fs.readdirSync(dir)).toEqual([]);
});

it('a body over the limit fails the spool and its followers, and leaves no file', async () => {
  const spooling = spoolFollowed(slowly(parts), 100_000, dir);
  // (Its failure taken as a value: it may come before the spool's.)
  const read = readAll(spooling.follow()).catch((err: unknown) => err);
  await expect(spooling.done).rejects.toBeInstanceOf(PayloadTooLargeError);
  expect(await read).toBeInstanceOf(PayloadTooLargeError);
  expect(fs.readdirSync(dir)).toEqual([]);
});

it('a body that breaks off fails its followers with its error', async () => {
  const spooling = spoolFollowed(slowly(parts.slice(0, 5), new Error('connection reset')), 10 * 1024 * 1024, dir);
  const read = readAll(spooling.follow()).catch((err: unknown) => err);
  await expect(spooling.done).rejects.toThrow('connection reset');
  expect(await read).toMatchObject({ message: 'connection reset' });
  expect(fs.readdirSync(dir)).toEqual([]);
});

it('spool() answers as before: an empty body, and one over the limit', async () => {
  const empty = await spool(Readable.from([]), 10, dir);
  expect([empty.bytes, empty.sha256]).toEqual([0, createHash('sha256').digest('hex')]);
  expect((await readAll(empty.open())).length).toBe(0);
  await empty.release();
  await expect(spool(Readable.from([Buffer.alloc(11)]), 10, dir)).rejects.toBeInstanceOf(PayloadTooLargeError);
  expect(fs.readdirSync(dir)).toEqual([]);
});
