// A service's SDL lives in subgraphs/<service>/schema.graphql (the file supergraph.yaml composes).
import fs from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../project-root';

export function readSubgraphSchema(service: string): string {
  return fs.readFileSync(path.join(PROJECT_ROOT, 'subgraphs', service, 'schema.graphql'), 'utf8');
}
