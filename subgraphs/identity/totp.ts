// TOTP (RFC 6238) with otpauth: SHA-1, 6 digits, 30-second steps, the parameters every
// authenticator app reads from an otpauth:// URI. A code is accepted one step either side of now
// (clock drift); the step it matched is returned so the caller can refuse it the second time.
import { Secret, TOTP } from 'otpauth';

export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps accepted either side of the current one. */
export const TOTP_WINDOW = 1;
/** 160 bits, the HMAC-SHA1 block RFC 4226 recommends. */
const SECRET_BYTES = 20;

export interface TotpParameters {
  algorithm?: 'SHA1' | 'SHA256' | 'SHA512';
  digits?: number;
  period?: number;
}

/** A fresh random secret, base32 (what authenticator apps take). */
export function newTotpSecret(): string {
  return new Secret({ size: SECRET_BYTES }).base32;
}

/** The otpauth:// URI an authenticator app scans as a QR code. */
export function totpUri(secretBase32: string, issuer: string, account: string): string {
  return new TOTP({
    issuer,
    label: account,
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  }).toString();
}

const CODE = /^\d+$/;

/**
 * Verifies one TOTP factor's secret, prepared once (the HMAC key decoded) for many codes. `match`
 * answers the time step the code belongs to, or null when it matches no step in the window.
 */
export class TotpVerifier {
  private readonly totp: TOTP;

  constructor(secret: string | Uint8Array, parameters: TotpParameters = {}) {
    this.totp = new TOTP({
      secret: typeof secret === 'string' ? Secret.fromBase32(secret) : new Secret({ buffer: copyBuffer(secret) }),
      algorithm: parameters.algorithm ?? 'SHA1',
      digits: parameters.digits ?? TOTP_DIGITS,
      period: parameters.period ?? TOTP_PERIOD_SECONDS,
    });
  }

  match(code: string, atMs: number, window = TOTP_WINDOW): number | null {
    const token = code.trim().replace(/\s+/g, '');
    if (token.length !== this.totp.digits || !CODE.test(token)) return null;
    const delta = this.totp.validate({ token, timestamp: atMs, window });
    return delta === null ? null : this.totp.counter({ timestamp: atMs }) + delta;
  }

  generate(atMs: number): string {
    return this.totp.generate({ timestamp: atMs });
  }
}

function copyBuffer(bytes: Uint8Array): ArrayBuffer {
  const out = new ArrayBuffer(bytes.byteLength);
  new Uint8Array(out).set(bytes);
  return out;
}
