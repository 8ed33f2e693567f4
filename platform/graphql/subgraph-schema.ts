// A service's SDL file, as its manifest names it (relative to the repository root).
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root';

export function readSubgraphSchema(file: string): string {
  return fs.readFileSync(path.resolve(PROJECT_ROOT, file), 'utf8');
}
