// Normalisation: a pipeline's mapping (target field -> JSONata expression over the source record)
// compiled once into one JSONata object expression, so each record costs one evaluation; the
// result is checked against the pipeline's target JSON Schema (Ajv). A mapping of plain renames
// and casts is evaluated as JavaScript (fast-mapping.ts), with JSONata for any record it declines. A record that fails either
// is not dropped: the caller quarantines it with the reason this answers.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import jsonata from 'jsonata';
import { InputError } from '../../platform/errors/domain-errors';
import { compileFastMapping, FALLBACK } from './fast-mapping';
import type { PipelineDefinition } from './pipeline.types';

export type Normalised =
  { ok: true; record: Record<string, unknown> } | { ok: false; reason: string; record: Record<string, unknown> | null };

export interface Normaliser {
  normalise(source: Record<string, unknown>): Promise<Normalised>;
  /** The same answer without an await when the plain-JavaScript mapping takes the record, else null. */
  normaliseNow(source: Record<string, unknown>): Normalised | null;
  /**
   * The mapping's parsed expressions when all of them are in the plain-JavaScript subset
   * (fast-mapping.ts), else null; row-writer.ts generates a CSV batch's function from them.
   */
  readonly plainMapping: [name: string, expression: jsonata.Expression][] | null;
  /** The target schema's check alone (Ajv: it does not change the record). */
  valid(record: Record<string, unknown>): boolean;
}

/** Compiles the mapping and the target schema; a definition whose expressions or schema do not compile is an InputError. */
export function compileNormaliser(definition: Pick<PipelineDefinition, 'mapping' | 'target'>): Normaliser {
  const fields = Object.entries(definition.mapping);
  // Field names are restricted by the pipeline schema to identifiers, so quoting them is safe.
  const text = `{ ${fields.map(([name, expr]) => `"${name}": (${expr})`).join(', ')} }`;
  let expression: jsonata.Expression;
  try {
    expression = jsonata(text);
  } catch (err) {
    const e = err as { message: string; position?: number };
    // Name the field whose expression failed to parse (JSONata reports a position in the whole text).
    for (const [name, expr] of fields) {
      try {
        jsonata(expr);
      } catch (inner) {
        throw InputError.of(['mapping', name], `JSONata: ${(inner as Error).message}`);
      }
    }
    throw InputError.of(['mapping'], `JSONata: ${e.message}`);
  }
  const parsed = parsedFields(fields);
  const fast = parsed && compileFastMapping(parsed);
  let validate: ValidateFunction;
  try {
    const ajv = new Ajv({ allErrors: false, strict: false });
    addFormats(ajv);
    const { $id: _id, $schema: _s, ...schema } = definition.target.schema;
    validate = ajv.compile(schema);
  } catch (err) {
    throw InputError.of(['target', 'schema'], `not a usable JSON Schema: ${(err as Error).message}`);
  }
  const check = (record: Record<string, unknown>): Normalised => {
    if (!validate(record)) {
      const e = validate.errors?.[0];
      const where = e?.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(record)';
      return { ok: false, reason: `target schema: ${where} ${e?.message ?? 'invalid'}`, record };
    }
    return { ok: true, record };
  };
  const normaliseNow = (source: Record<string, unknown>): Normalised | null => {
    const record = fast ? fast(source) : FALLBACK;
    return record === FALLBACK ? null : check(record);
  };
  return {
    plainMapping: fast ? parsed : null,
    valid: (record) => validate(record) as boolean,
    normaliseNow,
    async normalise(source) {
      const now = normaliseNow(source);
      if (now) return now;
      let record: Record<string, unknown>;
      try {
        record = plain(await expression.evaluate(source));
      } catch (err) {
        return { ok: false, reason: `mapping: ${(err as Error).message}`, record: null };
      }
      return check(record);
    },
  };
}

/** Each expression parsed alone, or null when one only parses within the whole (JSONata then evaluates every record). */
function parsedFields(fields: [string, string][]): [string, jsonata.Expression][] | null {
  try {
    return fields.map(([name, expr]) => [name, jsonata(expr)]);
  } catch {
    return null;
  }
}

/** JSONata answers its own sequence objects; staging keeps plain JSON (undefined members dropped). */
function plain(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || typeof value !== 'object') return {};
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}
