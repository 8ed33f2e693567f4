// Secrets in a pipeline definition are references, resolved only when a connector needs them:
// `secret://env/NAME` (an environment variable) and `secret://file/PATH` (a file under one of the
// allowed roots, INGESTION_SECRET_ROOTS; a path that leaves them, by `..` or a symbolic link, is
// refused). The definition, its versions and the API never carry the value.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../platform/errors/domain-errors';
import type { Env } from '../../platform/service';

export const SECRET_REF = /^secret:\/\/(env|file)\/(.+)$/;

export function resolveSecret(ref: string, env: Env, allowedRoots: readonly string[], field: string): string {
  const m = SECRET_REF.exec(ref);
  if (!m) throw InputError.of(['source', field], 'a secret is a reference: secret://env/NAME or secret://file/PATH');
  const [, kind, name] = m;
  if (kind === 'env') {
    const value = env[name!];
    if (value === undefined || value === '') throw InputError.of(['source', field], `the environment has no ${name}`);
    return value;
  }
  const real = (() => {
    try {
      return fs.realpathSync(path.resolve('/', name!));
    } catch {
      throw InputError.of(['source', field], 'the secret file does not exist');
    }
  })();
  const inside = allowedRoots.some((root) => {
    const r = fs.existsSync(root) ? fs.realpathSync(root) : path.resolve(root);
    return real === r || real.startsWith(r + path.sep);
  });
  if (!inside) throw InputError.of(['source', field], 'the secret file is outside the allowed roots');
  return fs.readFileSync(real, 'utf8').trim();
}
