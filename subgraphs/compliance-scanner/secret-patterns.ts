// The secrets detector: a documented set of patterns (docs/scanner.md, "Secrets"), the common
// formats secretlint's recommended preset and gitleaks also look for. @secretlint/core was not
// used: its rules are asynchronous per file and pull a large tree of packages; these patterns run
// in the same line loop as the packs' own rules. A finding never carries the secret: its text is
// the secret's SHA-256 (what the fingerprint hashes) and its location is the path and line.
import { createHash } from 'node:crypto';
import type { Located } from './file-inputs';

export interface SecretPattern {
  kind: string;
  pattern: RegExp;
}

export const SECRET_PATTERNS: readonly SecretPattern[] = [
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { kind: 'github_token', pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/ },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,72}\b/ },
  { kind: 'private_key', pattern: /-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY( BLOCK)?-----/ },
  { kind: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  { kind: 'openai_key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}\b/ },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { kind: 'stripe_key', pattern: /\b[rs]k_live_[0-9a-zA-Z]{24,}\b/ },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\b/ },
  { kind: 'basic_auth_url', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]{1,64}:[^\s:/@]{3,128}@[^\s/]+/ },
];

/** One finding per secret found; `text` is a digest of the secret, never the secret. */
export function findSecrets(fileLines: readonly Located[]): (Located & { kind: string })[] {
  const found: (Located & { kind: string })[] = [];
  for (const { line, text } of fileLines) {
    if (text.length > 4096) continue;
    for (const { kind, pattern } of SECRET_PATTERNS) {
      const m = pattern.exec(text);
      if (m) found.push({ line, kind, text: `${kind}:${createHash('sha256').update(m[0]).digest('hex')}` });
    }
  }
  return found;
}
