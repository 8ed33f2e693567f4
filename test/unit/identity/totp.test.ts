// TOTP against RFC 6238's test vectors (Appendix B), the one-step window and the step a code
// belongs to (what replay refusal records); the sealed-secret box and recovery codes.
import { SecretBox, ownerOf } from '../../../subgraphs/identity/secret.box';
import { newRecoveryCodes, RECOVERY_CODE } from '../../../subgraphs/identity/recovery-codes';
import { newTotpSecret, TotpVerifier, totpUri } from '../../../subgraphs/identity/totp';

const ascii = (s: string) => new Uint8Array(Buffer.from(s, 'ascii'));
const SEEDS = {
  SHA1: ascii('12345678901234567890'),
  SHA256: ascii('12345678901234567890123456789012'),
  SHA512: ascii('1234567890123456789012345678901234567890123456789012345678901234'),
} as const;

// RFC 6238 Appendix B: time (seconds) and the 8-digit TOTP per algorithm.
const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at %i s the codes are the RFC test vectors', (seconds, sha1, sha256, sha512) => {
    const at = seconds * 1000;
    const expected = { SHA1: sha1, SHA256: sha256, SHA512: sha512 };
    for (const algorithm of ['SHA1', 'SHA256', 'SHA512'] as const) {
      const totp = new TotpVerifier(SEEDS[algorithm], { algorithm, digits: 8 });
      expect(totp.generate(at)).toBe(expected[algorithm]);
      // And each verifies, matched to its own time step.
      expect(totp.match(expected[algorithm], at)).toBe(Math.floor(seconds / 30));
    }
  });

  it('accepts one step either side (clock drift) and no further', () => {
    const totp = new TotpVerifier(SEEDS.SHA1, { digits: 8 });
    const at = 1111111109 * 1000;
    const step = Math.floor(1111111109 / 30);
    expect(totp.match(totp.generate(at - 30_000), at)).toBe(step - 1);
    expect(totp.match(totp.generate(at + 30_000), at)).toBe(step + 1);
    expect(totp.match(totp.generate(at - 60_000), at)).toBeNull();
    expect(totp.match(totp.generate(at + 60_000), at)).toBeNull();
  });

  it('refuses malformed codes without an error', () => {
    const totp = new TotpVerifier(newTotpSecret());
    for (const bad of ['', '12345', '1234567', 'abcdef', '12 34 5x', '\u0000', '１２３４５６'])
      expect(totp.match(bad, Date.now())).toBeNull();
    // Spaces an app shows between groups are fine.
    const code = totp.generate(1_700_000_000_000);
    expect(totp.match(`${code.slice(0, 3)} ${code.slice(3)}`, 1_700_000_000_000)).not.toBeNull();
  });

  it('secrets are 160 random bits in base32; the URI is what authenticator apps scan', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = totpUri(secret, 'Regulated Platform', 'root');
    expect(uri).toMatch(/^otpauth:\/\/totp\/Regulated%20Platform:root\?/);
    const params = new URL(uri).searchParams;
    expect(Object.fromEntries(params)).toMatchObject({
      secret,
      issuer: 'Regulated Platform',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('SecretBox (AES-256-GCM, owner-bound)', () => {
  const box = new SecretBox(Buffer.alloc(32, 7));

  it('seals and opens for the same owner only, and under the same key only', () => {
    const sealed = box.seal('JBSWY3DPEHPK3PXP', ownerOf('default', 'u1'));
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP');
    expect(box.seal('JBSWY3DPEHPK3PXP', ownerOf('default', 'u1'))).not.toBe(sealed);
    expect(box.open(sealed, ownerOf('default', 'u1'))).toBe('JBSWY3DPEHPK3PXP');
    expect(() => box.open(sealed, ownerOf('acme', 'u1'))).toThrow();
    expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, ownerOf('default', 'u1'))).toThrow();
    const tampered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'B' : 'A') + sealed.slice(-1);
    expect(() => box.open(tampered, ownerOf('default', 'u1'))).toThrow();
  });

  it('hashes recovery codes with a key, per owner, ignoring case and dashes', () => {
    const owner = ownerOf('default', 'u1');
    expect(box.hashCode('abcde-fghjk', owner)).toBe(box.hashCode('ABCDEFGHJK', owner));
    expect(box.hashCode('abcde-fghjk', owner)).not.toBe(box.hashCode('abcde-fghjk', ownerOf('default', 'u2')));
    expect(box.hashCode('abcde-fghjk', owner)).not.toBe(
      new SecretBox(Buffer.alloc(32, 8)).hashCode('abcde-fghjk', owner),
    );
  });
});

describe('recovery codes', () => {
  it('are ten distinct codes of two groups of five, without look-alike characters', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) {
      expect(c).toMatch(/^[a-hjkmnp-z2-9]{5}-[a-hjkmnp-z2-9]{5}$/);
      expect(RECOVERY_CODE.test(c)).toBe(true);
    }
  });
});
