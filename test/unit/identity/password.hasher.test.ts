import { ScryptPasswordHasher } from '../../../subgraphs/identity/password.hasher';

/** Flips a character in the middle of the hash part (the last base64 character holds padding bits). */
function tamper(stored: string): string {
  const i = stored.length - 10;
  return stored.slice(0, i) + (stored[i] === 'A' ? 'B' : 'A') + stored.slice(i + 1);
}

describe('ScryptPasswordHasher', () => {
  const hasher = new ScryptPasswordHasher(10);

  it('stores a self-describing scrypt string, never the password or a bare SHA-256', async () => {
    const stored = await hasher.hash('s3cret-password');
    expect(stored).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(stored).not.toContain('s3cret-password');
    expect(stored.length).toBeLessThanOrEqual(255);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('s3cret-password');
    await expect(hasher.verify('s3cret-password', stored)).resolves.toBe(true);
    await expect(hasher.verify('s3cret-passworD', stored)).resolves.toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    const [a, b] = await Promise.all([hasher.hash('same'), hasher.hash('same')]);
    expect(a).not.toBe(b);
  });

  it('verifies with the parameters stored in the hash, so raising the cost keeps old hashes valid', async () => {
    const old = await new ScryptPasswordHasher(11).hash('pw-123456');
    await expect(hasher.verify('pw-123456', old)).resolves.toBe(true);
  });

  it('refuses malformed or tampered hashes without throwing', async () => {
    const stored = await hasher.hash('pw-123456');
    await expect(
      hasher.verify('pw-123456', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'),
    ).resolves.toBe(false);
    await expect(hasher.verify('pw-123456', tamper(stored))).resolves.toBe(false);
    await expect(hasher.verify('pw-123456', '')).resolves.toBe(false);
  });

  it('has a dummy verification for unknown users that completes', async () => {
    await expect(hasher.verifyDummy('whatever')).resolves.toBeUndefined();
  });
});
