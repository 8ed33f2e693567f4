// A topic's payload schema: compiled once per topic version with Ajv (the JSON Schema validator the
// platform already uses), and a payload's first problem reported with its JSON pointer (RFC 6901),
// so a publisher learns exactly which part of its data broke the topic's contract.
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import type { Topic } from '../../platform/events/backbone/backbone.types';

const ajv = new Ajv({ strict: false, allErrors: false, validateSchema: true });
addFormats(ajv);
// The formats platform/contracts/contract.types.ts registers with TypeBox, so the seeded schemas mean the same here.
ajv.addFormat('semver', /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/);
ajv.addFormat('timestamp', { validate: (value: string) => !Number.isNaN(Date.parse(value)) });

const compiled = new Map<string, ValidateFunction>();

/** A schema as stored: plain JSON (TypeBox's symbol keys dropped) without its `$id`, which Ajv would register globally. */
export function storableSchema(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

/** An InputError naming `field` when `schema` is not a JSON Schema Ajv can compile. */
export function assertValidSchema(schema: unknown, field: string): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw InputError.of([field], 'Input should be a JSON Schema object', 'dict_type');
  }
  try {
    ajv.compile(storableSchema(schema));
  } catch (err) {
    throw InputError.of([field], `Not a valid JSON Schema: ${(err as Error).message}`, 'value_error');
  }
}

function validatorOf(topic: Topic): ValidateFunction {
  const key = `${topic.owner}\u0000${topic.name}\u0000${topic.version}\u0000${JSON.stringify(topic.schema)}`;
  let v = compiled.get(key);
  if (!v) compiled.set(key, (v = ajv.compile(topic.schema)));
  return v;
}

/** The JSON pointer of an Ajv error: a missing property points at the property itself. */
export function pointerOf(e: ErrorObject): string {
  const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
  const escaped = missing?.replace(/~/g, '~0').replace(/\//g, '~1');
  return `${e.instancePath}${escaped !== undefined ? `/${escaped}` : ''}` || '/';
}

/**
 * Refuses a payload that breaks its topic's schema with an InputError located at the pointer:
 * REST reports `loc: ["body", "data", ...segments]`, GraphQL the issue in `extensions.issues`;
 * both carry the pointer itself as pydantic carries an error's context, `ctx: {pointer}`.
 */
export function assertPayload(topic: Topic, data: unknown): void {
  const validate = validatorOf(topic);
  if (validate(data)) return;
  const first = validate.errors?.[0];
  const pointer = first ? pointerOf(first) : '/';
  const segments = pointer === '/' ? [] : pointer.slice(1).split('/').map(unescape);
  const issue: InputIssue & { ctx: { pointer: string } } = {
    loc: ['data', ...segments],
    msg: `${pointer}: ${first?.message ?? 'does not match the schema'} (topic ${topic.name})`,
    type: 'json_schema',
    ctx: { pointer },
  };
  throw new InputError([issue]);
}

function unescape(segment: string): string | number {
  const s = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  return /^(0|[1-9]\d*)$/.test(s) ? Number(s) : s;
}
