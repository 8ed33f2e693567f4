// The files the GraphiQL page loads, all from this installation: GraphiQL, React and graphql-ws
// as their packages ship them (UMD builds, found by resolving each package from here, so the
// page works offline and air-gapped), plus the page's own bootstrap script and stylesheet
// (router/ide/static, read from the project root as the SDL files are). Each is read once at
// start and served under a name carrying its content hash, so browsers may cache it for good.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PROJECT_ROOT } from '../../platform/project-root';

export type AssetName = 'react' | 'react-dom' | 'graphql-ws' | 'graphiql-js' | 'graphiql-css' | 'ide-js' | 'ide-css';

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

interface AssetSource {
  name: AssetName;
  /** The npm package holding the file, or undefined for the page's own files. */
  pkg?: string;
  file: string;
  contentType: string;
}

// In load order: React before ReactDOM before GraphiQL (its UMD build reads both globals).
const SOURCES: readonly AssetSource[] = [
  { name: 'react', pkg: 'react', file: 'umd/react.production.min.js', contentType: JS },
  { name: 'react-dom', pkg: 'react-dom', file: 'umd/react-dom.production.min.js', contentType: JS },
  { name: 'graphql-ws', pkg: 'graphql-ws', file: 'umd/graphql-ws.min.js', contentType: JS },
  { name: 'graphiql-js', pkg: 'graphiql', file: 'graphiql.min.js', contentType: JS },
  { name: 'graphiql-css', pkg: 'graphiql', file: 'graphiql.min.css', contentType: CSS },
  { name: 'ide-js', file: 'router/ide/static/ide.js', contentType: JS },
  { name: 'ide-css', file: 'router/ide/static/ide.css', contentType: CSS },
];

export interface Asset {
  name: AssetName;
  /** The URL path segment it is served under: `<hash>/<file name>`. */
  path: string;
  contentType: string;
  body: Buffer;
  etag: string;
}

export type IdeAssets =
  | { available: true; byName: Record<AssetName, Asset>; byPath: Map<string, Asset> }
  | { available: false; missing: string[] };

/** Where a package is installed; throws when it is not (e.g. `npm ci --omit=dev`). */
export type PackageLocator = (pkg: string) => string;

const requireHere = createRequire(__filename);
export const locateInstalledPackage: PackageLocator = (pkg) => path.dirname(requireHere.resolve(`${pkg}/package.json`));

export function loadIdeAssets(locate: PackageLocator = locateInstalledPackage): IdeAssets {
  const missing: string[] = [];
  const loaded: Asset[] = [];
  for (const source of SOURCES) {
    let file: string;
    try {
      file = source.pkg ? path.join(locate(source.pkg), source.file) : path.join(PROJECT_ROOT, source.file);
    } catch {
      if (source.pkg && !missing.includes(source.pkg)) missing.push(source.pkg);
      continue;
    }
    let body: Buffer;
    try {
      body = fs.readFileSync(file);
    } catch {
      missing.push(source.pkg ? `${source.pkg}/${source.file}` : source.file);
      continue;
    }
    const hash = createHash('sha256').update(body).digest('base64url').slice(0, 16);
    loaded.push({
      name: source.name,
      path: `${hash}/${path.basename(source.file)}`,
      contentType: source.contentType,
      body,
      etag: `"${hash}"`,
    });
  }
  if (missing.length > 0) return { available: false, missing };
  return {
    available: true,
    byName: Object.fromEntries(loaded.map((a) => [a.name, a])) as Record<AssetName, Asset>,
    byPath: new Map(loaded.map((a) => [a.path, a])),
  };
}
