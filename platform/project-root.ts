// The repository root, found the same way from the TypeScript sources (jest) and from the tsc
// build in dist/: the nearest folder above this file holding package.json. Non-code assets
// (SQL migrations, .graphql SDL, supergraph.graphql) are read from there, since tsc copies none.
import fs from 'node:fs';
import path from 'node:path';

function findRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'prisma'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`project root not found above ${start}`);
  }
}

export const PROJECT_ROOT = findRoot(__dirname);
