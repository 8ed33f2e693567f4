// Reading environment variables with the spec's names and defaults. A bad value stops the
// process at start with a message that names the variable, instead of failing later.

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

export function readString(env: Env, name: string, fallback?: string): string {
  const raw = env[name];
  if (raw === undefined || raw === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required but not set`);
    return fallback;
  }
  return raw;
}

export function readOptional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

export function readInt(env: Env, name: string, fallback: number, range: { min?: number; max?: number } = {}): number {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (range.min !== undefined && value < range.min)
    throw new ConfigError(`${name} must be >= ${range.min}, got ${value}`);
  if (range.max !== undefined && value > range.max)
    throw new ConfigError(`${name} must be <= ${range.max}, got ${value}`);
  return value;
}

export function readPort(env: Env, name: string, fallback: number): number {
  return readInt(env, name, fallback, { min: 0, max: 65535 });
}

export function readBool(env: Env, name: string, fallback: boolean): boolean {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  const lowered = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(lowered)) return true;
  if (['0', 'false', 'no', 'off'].includes(lowered)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

export function readEnum<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = readOptional(env, name);
  if (raw === undefined) return fallback;
  const match = allowed.find((a) => a.toLowerCase() === raw.trim().toLowerCase());
  if (!match) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return match;
}

export function readUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = readOptional(env, name);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got a value that does not parse`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${url.protocol}`);
  }
  return raw;
}
