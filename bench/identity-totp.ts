// TOTP verifications per second on one core (the calling thread): what answering a sign-in
// challenge costs identity besides the database. Three figures over one random factor:
//   - a right code (the current step, one HMAC),
//   - a wrong code (every step of the window tried: three HMACs, the worst case),
//   - the sign-in's full per-factor work: open the sealed secret (AES-256-GCM), prepare the
//     verifier, check a right code.
// Numbers only: nothing here passes or fails on time.
import { randomBytes } from 'node:crypto';
import { ownerOf, SecretBox } from '../subgraphs/identity/secret.box';
import { newTotpSecret, TotpVerifier } from '../subgraphs/identity/totp';

export interface TotpFigures {
  rightPerSecond: number;
  wrongPerSecond: number;
  signInPerSecond: number;
}

/** Runs `fn` for about `ms` milliseconds (after a short warm-up); calls per second. */
function rate(ms: number, fn: (i: number) => unknown): number {
  for (let i = 0; i < 20_000; i++) fn(i);
  let calls = 0;
  const start = process.hrtime.bigint();
  const until = start + BigInt(ms) * 1_000_000n;
  let now = start;
  while (now < until) {
    for (let i = 0; i < 1000; i++) fn(calls + i);
    calls += 1000;
    now = process.hrtime.bigint();
  }
  return calls / (Number(now - start) / 1e9);
}

export function measureTotp(seconds = 3): TotpFigures {
  const secret = newTotpSecret();
  const totp = new TotpVerifier(secret);
  const at = Date.now();
  const right = totp.generate(at);
  // A wrong code that matches no step of the window.
  let wrong = '000000';
  while ([-30_000, 0, 30_000].some((d) => totp.generate(at + d) === wrong))
    wrong = String(Number(wrong) + 1).padStart(6, '0');
  const box = new SecretBox(randomBytes(32));
  const owner = ownerOf('default', '11111111-1111-4111-8111-111111111111');
  const sealed = box.seal(secret, owner);
  const ms = seconds * 1000;
  let sink = 0;
  const figures = {
    rightPerSecond: rate(ms, () => (sink += totp.match(right, at) ?? 0)),
    wrongPerSecond: rate(ms, () => (sink += totp.match(wrong, at) ?? 0)),
    signInPerSecond: rate(ms, () => (sink += new TotpVerifier(box.open(sealed, owner)).match(right, at) ?? 0)),
  };
  if (sink === 42) console.log(''); // keeps the work observable
  return figures;
}

export function printTotp(f: TotpFigures): void {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  console.log(
    `TOTP verification, one core (otpauth, SHA-1, 6 digits, window ±1): right code ${fmt(f.rightPerSecond)}/s, ` +
      `wrong code (3 HMACs) ${fmt(f.wrongPerSecond)}/s, sign-in per factor (unseal + verify) ${fmt(f.signInPerSecond)}/s`,
  );
}
