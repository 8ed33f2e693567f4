// Recovery codes: ten single-use codes shown once at enrolment (or regeneration), for when the
// authenticator is lost. Ten characters of a 31-character alphabet without look-alikes (about 49 bits
// each), written as two groups of five: `k7q2m-x9trw`.
import { randomInt } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789'; // no i, l, o, 0, 1
const LENGTH = 10;
export const RECOVERY_CODE = /^[a-z2-9]{5}-?[a-z2-9]{5}$/i;

export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) {
    let code = '';
    for (let i = 0; i < LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    codes.add(`${code.slice(0, 5)}-${code.slice(5)}`);
  }
  return [...codes];
}
