// Secret references (docs/config.md, "Secret references"): a configuration value
// `secret://env/NAME` or `secret://file/PATH` names a secret without holding it. Bundles store the
// reference; it is resolved only when a service with the `config:secrets` scope reads the
// effective configuration, and the resolved value is never stored, logged or returned to anyone
// else. Other schemes (Vault, cloud secret managers) plug in as another `SecretBackend`.
import fs from 'node:fs/promises';
import path from 'node:path';
import { InputError } from '../../platform/errors/domain-errors';
import { pointerToken } from './merge.rules';

export const SECRET_PREFIX = 'secret://';
const ENV_NAME = /^[A-Z][A-Z0-9_]{0,127}$/;

export interface SecretRules {
  /** Environment variables a reference may name: only names starting with one of these. */
  envPrefixes: readonly string[];
  /** Absolute directories a file reference must stay inside (after resolving links). */
  fileRoots: readonly string[];
}

export type SecretReference = { kind: 'env'; name: string } | { kind: 'file'; path: string };

/** A backend resolves one kind of reference; Vault or a cloud manager would be another entry. */
export type SecretBackend = (ref: SecretReference) => Promise<string>;

function inside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

/** Parses and checks a reference against the rules; the message never repeats a value. */
export function parseReference(value: string, rules: SecretRules): SecretReference | string {
  const rest = value.slice(SECRET_PREFIX.length);
  if (rest.startsWith('env/')) {
    const name = rest.slice(4);
    if (!ENV_NAME.test(name)) return 'secret://env/ needs an upper-case variable name';
    if (!rules.envPrefixes.some((p) => name.startsWith(p)))
      return `secret://env/ may only name variables starting with ${rules.envPrefixes.join(', ') || '(none allowed)'}`;
    return { kind: 'env', name };
  }
  if (rest.startsWith('file/')) {
    // The path is absolute (`secret://file/run/secrets/db` is /run/secrets/db, like file:///).
    const raw = `/${rest.slice(5).replace(/^\/+/, '')}`;
    // Refused before any normalisation: `.` and `..` segments, percent-encoded ones, NUL.
    if (raw.split('/').some((s) => s === '..' || s === '.') || /%2e|%2f|\0/i.test(raw))
      return 'secret://file/ needs a path without . or .. segments';
    const normal = path.normalize(raw);
    if (!rules.fileRoots.some((root) => inside(root, normal)))
      return 'secret://file/ path is outside the allowed roots';
    return { kind: 'file', path: normal };
  }
  return 'unknown secret reference scheme (secret://env/NAME or secret://file/PATH)';
}

/** Every string value of `content` that is a reference, with its pointer; bad ones are a 422 naming the pointer. */
export function checkReferences(content: unknown, rules: SecretRules, field: (string | number)[]): void {
  const walk = (v: unknown, at: string): void => {
    if (typeof v === 'string' && v.startsWith(SECRET_PREFIX)) {
      const ref = parseReference(v, rules);
      if (typeof ref === 'string') throw InputError.of([...field, at], ref, 'value_error.secret_reference');
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) walk(child, `${at}/${pointerToken(k)}`);
    }
  };
  walk(content, '');
}

/** The built-in backends: the process environment and files under the allowed roots (links resolved and checked again). */
export function builtInBackend(rules: SecretRules, env: NodeJS.ProcessEnv = process.env): SecretBackend {
  return async (ref) => {
    if (ref.kind === 'env') {
      const value = env[ref.name];
      if (value === undefined) throw new Error(`secret variable ${ref.name} is not set`);
      return value;
    }
    const real = await fs.realpath(ref.path);
    const roots = await Promise.all(rules.fileRoots.map((r) => fs.realpath(r).catch(() => r)));
    if (!roots.some((root) => inside(root, real))) throw new Error('secret file resolves outside the allowed roots');
    return (await fs.readFile(real, 'utf8')).replace(/\n$/, '');
  };
}

/** A copy of `value` with every reference resolved (references that fail stay unresolved, marked by null). */
export async function resolveReferences(value: unknown, rules: SecretRules, backend: SecretBackend): Promise<unknown> {
  if (typeof value === 'string' && value.startsWith(SECRET_PREFIX)) {
    const ref = parseReference(value, rules);
    if (typeof ref === 'string') return null;
    return backend(ref).catch(() => null);
  }
  if (Array.isArray(value)) return Promise.all(value.map((v) => resolveReferences(v, rules, backend)));
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = await resolveReferences(v, rules, backend);
    return out;
  }
  return value;
}
