// A CycloneDX 1.5 SBOM of an npm project from its package-lock.json (lockfile v2 or v3: the
// `packages` map npm writes, which carries each package's version, integrity and licence). Pure:
// the scan reads the file (bounded, never through a symlink) and hands its text here. Dependencies
// of the root are `required`, dev-only ones `optional`, as CycloneDX's npm tooling marks them.
import { createHash } from 'node:crypto';

export class LockfileError extends Error {}

interface LockPackage {
  name?: string;
  version?: string;
  license?: unknown;
  integrity?: string;
  resolved?: string;
  dev?: boolean;
  optional?: boolean;
  link?: boolean;
}

const MAX_COMPONENTS = 50_000;

/** `pkg:npm/%40scope/name@1.0.0`, as the purl spec encodes npm scopes. */
export function npmPurl(name: string, version?: string): string {
  const encoded = name.startsWith('@') ? `%40${name.slice(1)}` : name;
  return `pkg:npm/${encoded}${version ? `@${encodeURIComponent(version)}` : ''}`;
}

/** A lockfile key `node_modules/a/node_modules/@s/b` names the package `@s/b`. */
function nameOf(key: string): string {
  const at = key.lastIndexOf('node_modules/');
  return at < 0 ? key : key.slice(at + 'node_modules/'.length);
}

/** A single SPDX id as `license.id`, anything else (an expression, a custom text) as `expression` or `name`. */
function licences(license: unknown): Record<string, unknown>[] | undefined {
  if (typeof license !== 'string' || license.trim() === '') return undefined;
  const l = license.trim();
  if (/^[A-Za-z0-9.+-]+$/.test(l)) return [{ license: { id: l } }];
  if (/\b(AND|OR|WITH)\b/.test(l)) return [{ expression: l.replace(/^\(|\)$/g, '') }];
  return [{ license: { name: l.slice(0, 200) } }];
}

/** npm's `integrity` (SRI, base64) as CycloneDX hashes (hex). */
function hashes(integrity: string | undefined): Record<string, string>[] | undefined {
  if (!integrity) return undefined;
  const out: Record<string, string>[] = [];
  for (const sri of integrity.split(/\s+/)) {
    const m = /^(sha512|sha384|sha256|sha1)-(.+)$/.exec(sri);
    if (!m) continue;
    const alg = { sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256', sha1: 'SHA-1' }[m[1] as 'sha512'];
    out.push({ alg, content: Buffer.from(m[2]!, 'base64').toString('hex') });
  }
  return out.length > 0 ? out : undefined;
}

export function cycloneDxFromLockfile(
  text: string,
  meta: { tool: { name: string; version: string }; now: Date },
): Record<string, unknown> {
  let lock: { name?: string; version?: string; lockfileVersion?: number; packages?: Record<string, LockPackage> };
  try {
    lock = JSON.parse(text) as typeof lock;
  } catch (err) {
    throw new LockfileError(`package-lock.json does not parse: ${(err as Error).message.split('\n')[0]}`);
  }
  if (typeof lock !== 'object' || lock === null || typeof lock.packages !== 'object' || lock.packages === null)
    throw new LockfileError('package-lock.json has no "packages" map (lockfile version 2 or 3 is needed)');
  const root = lock.packages[''] ?? {};
  const rootName = root.name ?? lock.name ?? 'project';
  const rootVersion = root.version ?? lock.version;
  const components: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const [key, p] of Object.entries(lock.packages)) {
    if (key === '' || p.link || !p.version || !key.includes('node_modules/')) continue;
    const name = p.name ?? nameOf(key);
    const purl = npmPurl(name, p.version);
    if (seen.has(purl)) continue;
    seen.add(purl);
    const slash = name.startsWith('@') ? name.indexOf('/') : -1;
    components.push({
      type: 'library',
      'bom-ref': purl,
      ...(slash > 0 ? { group: name.slice(0, slash), name: name.slice(slash + 1) } : { name }),
      version: p.version,
      purl,
      scope: p.dev ? 'optional' : 'required',
      ...(licences(p.license) ? { licenses: licences(p.license) } : {}),
      ...(hashes(p.integrity) ? { hashes: hashes(p.integrity) } : {}),
    });
    if (components.length >= MAX_COMPONENTS) break;
  }
  components.sort((a, b) => String(a['bom-ref']).localeCompare(String(b['bom-ref'])));
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    // The same lockfile gives the same serial number: a rescan of an unchanged tree is the same BOM.
    serialNumber: `urn:uuid:${uuidFrom(text)}`,
    version: 1,
    metadata: {
      timestamp: meta.now.toISOString(),
      tools: { components: [{ type: 'application', name: meta.tool.name, version: meta.tool.version }] },
      component: {
        type: 'application',
        'bom-ref': npmPurl(rootName, rootVersion),
        name: rootName,
        ...(rootVersion ? { version: rootVersion } : {}),
        purl: npmPurl(rootName, rootVersion),
        ...(licences(root.license) ? { licenses: licences(root.license) } : {}),
      },
    },
    components,
  };
}

/** A version-4-shaped UUID derived from the content (stable across scans). */
function uuidFrom(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x40;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`;
}
