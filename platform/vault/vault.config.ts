// The subject vault's master key: SUBJECT_VAULT_KEY (any text, hashed to 32 bytes), else derived
// from the JWT secret, so every service of a deployment computes the same subject references and
// unwraps the same keys. Set it explicitly in production: a JWT secret rotated without it would
// make every sealed value unreadable.
import { createHash } from 'node:crypto';
import { readOptional } from '../config/env';
import type { Env } from '../service';

export function subjectVaultKey(env: Env, jwtSecret: string): Buffer {
  return createHash('sha256')
    .update(readOptional(env, 'SUBJECT_VAULT_KEY') ?? `subject-vault:${jwtSecret}`)
    .digest();
}
