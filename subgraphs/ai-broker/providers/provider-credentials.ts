// Vendor keys and base URLs, read from the environment on every call so they rotate without a
// restart: change ANTHROPIC_API_KEY in the process environment, or point ANTHROPIC_API_KEY_FILE
// at a file (a mounted secret) and replace the file; the next call uses the new value. The SDK
// client is rebuilt only when the key or URL it was built with changes.
import fs from 'node:fs';
import type { Env } from '../../../platform/service';

export interface Credentials {
  apiKey?: string;
  baseUrl?: string;
}

interface FileCache {
  path: string;
  mtimeMs: number;
  size: number;
  value: string | undefined;
}

export class CredentialSource {
  private file?: FileCache;

  constructor(
    private readonly env: Env,
    /** e.g. ANTHROPIC: reads ANTHROPIC_API_KEY, ANTHROPIC_API_KEY_FILE, ANTHROPIC_BASE_URL. */
    private readonly prefix: string,
    private readonly baseUrlVariable = `${prefix}_BASE_URL`,
  ) {}

  current(): Credentials {
    const direct = this.env[`${this.prefix}_API_KEY`];
    const apiKey =
      direct !== undefined && direct !== '' ? direct : this.fromFile(this.env[`${this.prefix}_API_KEY_FILE`]);
    const baseUrl = this.env[this.baseUrlVariable];
    return { apiKey: apiKey || undefined, baseUrl: baseUrl || undefined };
  }

  private fromFile(path: string | undefined): string | undefined {
    if (!path) return undefined;
    try {
      const stat = fs.statSync(path);
      if (this.file && this.file.path === path && this.file.mtimeMs === stat.mtimeMs && this.file.size === stat.size)
        return this.file.value;
      const value = fs.readFileSync(path, 'utf8').trim() || undefined;
      this.file = { path, mtimeMs: stat.mtimeMs, size: stat.size, value };
      return value;
    } catch {
      return undefined;
    }
  }
}

/** Keeps one SDK client per (key, base URL), rebuilt when either changes. */
export class ClientCache<T> {
  private built?: { key: string; client: T };
  constructor(private readonly create: (credentials: Credentials) => T) {}

  get(credentials: Credentials): T {
    const key = `${credentials.apiKey ?? ''}\u0000${credentials.baseUrl ?? ''}`;
    if (this.built?.key !== key) this.built = { key, client: this.create(credentials) };
    return this.built.client;
  }
}
