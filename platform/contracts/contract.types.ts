// Building blocks the event and client contracts share: the ids and versions every service names
// the same way. Formats used by a schema are registered here, before any schema is compiled.
import { FormatRegistry, Type } from '@sinclair/typebox';
import semver from 'semver';

/** Exactly a semantic version (no leading `v`, no range), as both pack registries store them. */
if (!FormatRegistry.Has('semver'))
  FormatRegistry.Set('semver', (value) => value.length <= 64 && semver.valid(value) === value);
/** An ISO 8601 timestamp as `Date.toISOString()` and PostgreSQL write them. */
if (!FormatRegistry.Has('timestamp')) FormatRegistry.Set('timestamp', (value) => !Number.isNaN(Date.parse(value)));

/** A pack id as the rule-pack schema (rule-pack.schema.json) and the packs registry define it. */
export const PackId = Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$' });
export const SemVer = Type.String({ minLength: 1, maxLength: 64, format: 'semver' });
export const TenantId = Type.String({ minLength: 1, maxLength: 255 });
export const Timestamp = Type.String({ format: 'timestamp' });
export const PackRef = Type.Object({ pack_id: PackId, version: SemVer });
