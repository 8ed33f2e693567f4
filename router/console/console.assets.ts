// The built console read once at start: index.html and every file under assets/ (content-hashed
// names from Vite, so they can be cached for good), each with its gzip form made on first use.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface ConsoleAsset {
  body: Buffer;
  contentType: string;
  etag: string;
  gzipped?: Buffer;
}

export interface ConsoleAssets {
  index: ConsoleAsset | undefined;
  /** By file name inside assets/. */
  files: Map<string, ConsoleAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

function assetOf(file: string): ConsoleAsset {
  const body = readFileSync(file);
  return {
    body,
    contentType: TYPES[path.extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

export function loadConsoleAssets(dir: string): ConsoleAssets {
  const indexFile = path.join(dir, 'index.html');
  const files = new Map<string, ConsoleAsset>();
  const assetsDir = path.join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) files.set(name, assetOf(path.join(assetsDir, name)));
  }
  return { index: existsSync(indexFile) ? assetOf(indexFile) : undefined, files };
}
