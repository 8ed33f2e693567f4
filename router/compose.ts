// Supergraph composition from Rover's config format (supergraph.yaml) with @apollo/composition,
// the library Rover itself runs: Rover's CLI needs a plugin download that cannot happen here.
import fs from 'node:fs';
import path from 'node:path';
import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import YAML from 'yaml';

export interface SupergraphConfigEntry {
  name: string;
  routingUrl: string;
  schemaFile: string;
}

export class CompositionError extends Error {}

/** Reads supergraph.yaml (Rover's format: subgraphs.<name>.routing_url and schema.file). */
export function readSupergraphConfig(configPath: string): SupergraphConfigEntry[] {
  const raw = YAML.parse(fs.readFileSync(configPath, 'utf8')) as {
    subgraphs?: Record<string, { routing_url?: string; schema?: { file?: string } }>;
  };
  const subgraphs = raw?.subgraphs ?? {};
  const base = path.dirname(configPath);
  return Object.entries(subgraphs).map(([name, entry]) => {
    if (!entry?.routing_url || !entry.schema?.file) {
      throw new CompositionError(`${configPath}: subgraph "${name}" needs routing_url and schema.file`);
    }
    return { name, routingUrl: entry.routing_url, schemaFile: path.resolve(base, entry.schema.file) };
  });
}

export interface SubgraphSource {
  name: string;
  url: string;
  sdl: string;
}

/** Composes subgraph SDLs into a supergraph SDL; throws CompositionError listing every problem. */
export function composeSupergraph(sources: SubgraphSource[]): string {
  const result = composeServices(sources.map((s) => ({ name: s.name, url: s.url, typeDefs: parse(s.sdl) })));
  if (result.errors) {
    throw new CompositionError(`composition failed:\n${result.errors.map((e) => `  - ${e.message}`).join('\n')}`);
  }
  return result.supergraphSdl;
}

/** Composes what supergraph.yaml lists, reading each schema file. */
export function composeFromConfig(configPath: string): string {
  const entries = readSupergraphConfig(configPath);
  const sources = entries.map((e) => {
    if (!fs.existsSync(e.schemaFile))
      throw new CompositionError(`subgraph "${e.name}": schema file ${e.schemaFile} does not exist`);
    return { name: e.name, url: e.routingUrl, sdl: fs.readFileSync(e.schemaFile, 'utf8') };
  });
  return composeSupergraph(sources);
}

/** Composes the subgraphs of a set of service manifests (a registry), each at its documented port. */
export function composeRegistry(
  services: readonly { name: string; port: number; subgraph?: string }[],
  root: string,
): string {
  return composeSupergraph(
    services
      .filter((s) => s.subgraph)
      .map((s) => ({
        name: s.name,
        url: `http://127.0.0.1:${s.port}/graphql`,
        sdl: fs.readFileSync(path.resolve(root, s.subgraph!), 'utf8'),
      })),
  );
}
