// Password hashing with scrypt (node:crypto). A stored hash is self-describing, in the PHC string
// style `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64 without padding), so the cost can be raised
// later while old hashes still verify with the parameters they were made with.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

function optionsFor(logN: number, r: number, p: number): ScryptOptions {
  const N = 2 ** logN;
  // scrypt needs 128*N*r bytes; Node's default maxmem (32 MiB) is exactly too small for ln=15.
  return { N, r, p, maxmem: 128 * N * r * p + 8 * 1024 * 1024 };
}

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Burns the same time as a real verification, for logins whose user does not exist. */
  verifyDummy(password: string): Promise<void>;
}

const FORMAT = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

export class ScryptPasswordHasher implements PasswordHasher {
  private dummy?: Promise<string>;

  constructor(private readonly logN: number) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LENGTH);
    const key = await scrypt(password, salt, KEY_LENGTH, optionsFor(this.logN, BLOCK_SIZE, PARALLELISM));
    return `$scrypt$ln=${this.logN},r=${BLOCK_SIZE},p=${PARALLELISM}$${b64(salt)}$${b64(key)}`;
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const match = FORMAT.exec(stored);
    if (!match) return false;
    const [, ln, r, p, salt, hash] = match;
    const expected = Buffer.from(hash!, 'base64');
    const logN = Number(ln);
    if (logN < 1 || logN > 22 || expected.length < 16) return false;
    const actual = await scrypt(
      password,
      Buffer.from(salt!, 'base64'),
      expected.length,
      optionsFor(logN, Number(r), Number(p)),
    );
    return timingSafeEqual(actual, expected);
  }

  async verifyDummy(password: string): Promise<void> {
    // Made once, lazily, with the current cost, so it costs what a real user's check costs.
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    await this.verify(password, await this.dummy);
  }
}

function b64(buffer: Buffer): string {
  return buffer.toString('base64').replace(/=+$/, '');
}
