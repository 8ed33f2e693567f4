// `npm run compose`: supergraph.yaml -> supergraph.graphql at the repository root.
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../platform/project-root';
import { composeFromConfig, CompositionError } from './compose';

const configPath = path.join(PROJECT_ROOT, 'supergraph.yaml');
const outPath = path.join(PROJECT_ROOT, 'supergraph.graphql');

try {
  const sdl = composeFromConfig(configPath);
  // Write beside and rename, so a watching router never reads a half-written file.
  fs.writeFileSync(`${outPath}.tmp`, sdl);
  fs.renameSync(`${outPath}.tmp`, outPath);
  console.log(`wrote ${path.relative(process.cwd(), outPath) || outPath}`);
} catch (err) {
  console.error(err instanceof CompositionError ? err.message : err);
  process.exit(1);
}
