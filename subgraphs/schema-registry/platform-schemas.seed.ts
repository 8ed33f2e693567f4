// The built-in schemas: every `platform/contracts/*.schema.json` file, registered at start under
// the owner `platform` (readable by every tenant). Name: the file name before `.schema.json`;
// kind: `rule-pack` / `workflow-pack` by that name, else `data`; version: the last path segment of
// the file's `$id` when it is a semantic version, else 1.0.0. A new contract file is picked up by
// being there. Idempotent (see SchemaRegistryService.ensurePlatformSchema), so restarts and
// several processes starting at once neither fail nor duplicate. The event catalogue's topics are
// seeded the same way, as `events.<topic>` (event-catalogue.seed.ts).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import type { Logger } from '../../platform/logging/logger';
import { EVENT_CATALOGUE } from '../../platform/contracts/events.catalogue';
import type { EventContract } from '../../platform/contracts/event-contract';
import { PROJECT_ROOT } from '../../platform/project-root';
import { catalogueSchemas } from './event-catalogue.seed';
import type { PlatformSchemaInput, SchemaRegistryService, SeedOutcome } from './schema-registry.service';
import type { SchemaKind } from './schema-registry.types';

export const CONTRACTS_DIR = path.join(PROJECT_ROOT, 'platform', 'contracts');
const SUFFIX = '.schema.json';

export function kindOfContract(name: string): SchemaKind {
  return name === 'rule-pack' || name === 'workflow-pack' ? name : 'data';
}

export function versionOfContract(definition: Record<string, unknown>): string {
  const id = typeof definition.$id === 'string' ? definition.$id : '';
  const last =
    id
      .replace(/[#/]+$/, '')
      .split('/')
      .pop() ?? '';
  return semver.valid(last) === last && !last.includes('+') ? last : '1.0.0';
}

/** Reads the contract files (sorted by name). A file that is not a JSON object stops the start. */
export function readContracts(dir: string = CONTRACTS_DIR): PlatformSchemaInput[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(SUFFIX))
    .sort()
    .map((file) => {
      const name = file.slice(0, -SUFFIX.length);
      let definition: unknown;
      try {
        definition = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
      } catch (err) {
        throw new Error(`platform contract ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
      }
      if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
        throw new Error(`platform contract ${file} is not a JSON Schema object`);
      }
      const schema = definition as Record<string, unknown>;
      return { name, kind: kindOfContract(name), version: versionOfContract(schema), definition: schema };
    });
}

export async function seedPlatformSchemas(
  service: SchemaRegistryService,
  logger: Logger,
  dir: string = CONTRACTS_DIR,
  catalogue: readonly EventContract[] = EVENT_CATALOGUE,
): Promise<Record<string, SeedOutcome>> {
  const outcomes: Record<string, SeedOutcome> = {};
  const correlationId = randomUUID();
  const sources: [PlatformSchemaInput, string][] = [
    ...readContracts(dir).map((c): [PlatformSchemaInput, string] => [c, `platform contract ${c.name}${SUFFIX}`]),
    ...catalogueSchemas(catalogue).map((c): [PlatformSchemaInput, string] => [
      c,
      `event contract ${c.name} (platform/contracts/events.catalogue.ts)`,
    ]),
  ];
  for (const [contract, source] of sources) {
    try {
      outcomes[contract.name] = await service.ensurePlatformSchema(contract, correlationId);
    } catch (err) {
      throw new Error(`${source} cannot be registered: ${(err as Error).message}`, { cause: err });
    }
    if (outcomes[contract.name] === 'conflict') {
      logger.warn(
        { schema: contract.name, version: contract.version },
        "platform contract changed without a new version: the registered version is kept; bump the version ($id, or the event contract's version) to publish the change",
      );
    }
  }
  return outcomes;
}
