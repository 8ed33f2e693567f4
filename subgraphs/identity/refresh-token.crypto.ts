// Refresh tokens are opaque: 256 random bits, base64url. Only their SHA-256 is stored; a fast
// hash is right here because the token has full entropy (unlike a password).
import { createHash, randomBytes } from 'node:crypto';

export function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
