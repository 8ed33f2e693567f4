// The built-in schemas: every `platform/contracts/*.schema.json` file, registered at start under
// the owner `platform` (readable by every tenant). Name: the file name before `.schema.json`;
// kind: `rule-pack` / `workflow-pack` by that name, else `data`; version: the last path segment of
// the file's `$id` when it is a semantic version, else 1.0.0. A new contract file is picked up by
// being there. Idempotent (see SchemaRegistryService.ensurePlatformSchema), so restarts and
// several processes starting at once neither fail nor duplicate.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import type { Logger } from '../../platform/logging/logger';
import { PROJECT_ROOT } from '../../platform/project-root';
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
): Promise<Record<string, SeedOutcome>> {
  const outcomes: Record<string, SeedOutcome> = {};
  const correlationId = randomUUID();
  for (const contract of readContracts(dir)) {
    try {
      outcomes[contract.name] = await service.ensurePlatformSchema(contract, correlationId);
    } catch (err) {
      throw new Error(`platform contract ${contract.name}${SUFFIX} cannot be registered: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (outcomes[contract.name] === 'conflict') {
      logger.warn(
        { schema: contract.name, version: contract.version },
        'platform contract changed without a new version in its $id: the registered version is kept; bump the version to publish the change',
      );
    }
  }
  return outcomes;
}
