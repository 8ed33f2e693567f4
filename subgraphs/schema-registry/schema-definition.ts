// What makes a schema registrable: a JSON object that Ajv compiles as a JSON Schema draft-07
// (strict mode off, so unknown keywords are allowed, as draft-07 allows them), and its
// fingerprint, the SHA-256 of its RFC 8785 canonical JSON (so key order never makes two
// registrations of the same schema differ).
import { createHash } from 'node:crypto';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import canonicalize from 'canonicalize';
import { InputError } from '../../platform/errors/domain-errors';

/**
 * The formats the platform's own contracts use (platform/contracts/contract.types.ts registers
 * them with TypeBox): known here, so the seeded event schemas compile with their meaning instead
 * of Ajv warning about an unknown format at every start.
 */
const PLATFORM_FORMATS: Record<string, (value: string) => boolean> = {
  semver: (value) => /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(value),
  timestamp: (value) => !Number.isNaN(Date.parse(value)),
};

/** `$schema` values that name draft-07 (with or without the empty fragment, http or https). */
const DRAFT_07 = /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/;

/**
 * Compiles `definition` as draft-07 or throws an InputError naming `field`. A new Ajv per call:
 * Ajv caches every schema it compiled, and a registry must not grow with what clients send.
 */
export function assertDraft07(definition: unknown, field: string): asserts definition is Record<string, unknown> {
  if (typeof definition !== 'object' || definition === null || Array.isArray(definition)) {
    throw InputError.of([field], 'Input should be a JSON Schema object', 'dict_type');
  }
  const declared = (definition as Record<string, unknown>).$schema;
  if (declared !== undefined && (typeof declared !== 'string' || !DRAFT_07.test(declared))) {
    throw InputError.of(
      [field, '$schema'],
      'Only JSON Schema draft-07 is supported ($schema http://json-schema.org/draft-07/schema#)',
      'value_error',
    );
  }
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  for (const [name, validate] of Object.entries(PLATFORM_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  try {
    ajv.compile(definition);
  } catch (err) {
    throw InputError.of(
      [field],
      `Not a valid JSON Schema draft-07: ${(err as Error).message}`.slice(0, 500),
      'value_error',
    );
  }
}

export function fingerprintOf(definition: unknown): string {
  return createHash('sha256')
    .update(canonicalize(definition) ?? '')
    .digest('hex');
}
