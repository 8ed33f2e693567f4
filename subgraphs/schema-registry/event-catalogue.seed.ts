// The event catalogue in the registry: every topic of platform/contracts/events.catalogue.ts is a
// built-in schema (owner `platform`, kind `data`) named `events.<topic>`, version `<n>.0.0` for the
// contract's payload version n, with the contract's compatibility mode (BACKWARD unless it says
// otherwise). The `events.` prefix keeps payload schemas apart from the data schemas the contract
// files and tenants name, so a topic never shadows a tenant's schema of the same name by accident.
// Seeded with the contract files, by the same idempotent path (ensurePlatformSchema).
import type { EventContract } from '../../platform/contracts/event-contract';
import type { PlatformSchemaInput } from './schema-registry.service';

export const EVENT_SUBJECT_PREFIX = 'events.';

/** The registry subject of a topic's payload schema. */
export const eventSubjectOf = (topic: string): string => `${EVENT_SUBJECT_PREFIX}${topic}`;

/**
 * A TypeBox schema as plain JSON Schema: serialising drops TypeBox's symbol keys; `$id` goes too,
 * as the events service stores it, so the registry and the topic table hold the same document.
 */
export function plainSchema(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

export function catalogueSchemas(catalogue: readonly EventContract[]): PlatformSchemaInput[] {
  return catalogue.map((c) => ({
    name: eventSubjectOf(c.topic),
    kind: 'data',
    version: `${c.version}.0.0`,
    definition: plainSchema(c.schema),
    compatibility: c.compatibility ?? 'BACKWARD',
  }));
}
