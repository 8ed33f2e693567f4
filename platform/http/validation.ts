// Route schema validation with FastAPI's 422 body. Bodies are validated strictly (a number is not
// a string, as pydantic's str fields refuse ints); query strings and path params are coerced, as
// FastAPI does for `limit=10`.
// Unknown members of a body are dropped before the handler sees them, as pydantic's default model
// config (extra='ignore') does: a FastAPI client that sends a member we do not know (a newer
// client, a field of the original service we never had) is served, and the member is neither
// stored nor echoed. A route whose body is an artifact someone signs or certifies marks its
// schema with strictMembers(): there an unknown member is a 422 extra_forbidden, because an author
// whose member was dropped in silence would believe the certified text says something it does
// not (docs/decisions.md, "Unknown members").
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { InputIssue } from '../errors/domain-errors';

/** The keyword strictMembers() sets on a body schema (an `x-` extension, so OpenAPI shows it too). */
export const STRICT_MEMBERS = 'x-strict-members';

/**
 * A body schema whose unknown members are refused (422 extra_forbidden) where the schema says
 * `additionalProperties: false`, instead of dropped. For signed or certified artifacts only.
 */
export function strictMembers<T extends object>(schema: T): T {
  return { ...schema, [STRICT_MEMBERS]: true };
}

// removeAdditional: true drops only what an `additionalProperties: false` object does not name;
// open objects (event_data, payload, variables...) keep every member.
function makeAjv(options: { coerceTypes: boolean; dropUnknown: boolean }): Ajv {
  const ajv = new Ajv({
    coerceTypes: options.coerceTypes,
    allErrors: true,
    useDefaults: true,
    removeAdditional: options.dropUnknown,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

const lenientBody = makeAjv({ coerceTypes: false, dropUnknown: true });
const strictBody = makeAjv({ coerceTypes: false, dropUnknown: false });
// Query strings too: FastAPI ignores a query parameter it does not declare. Never headers: Ajv
// would remove them from request.headers itself (Authorization included) under a header schema
// that said additionalProperties false; such a schema keeps refusing instead, as before.
const coercing = makeAjv({ coerceTypes: true, dropUnknown: true });
const coercingKeepAll = makeAjv({ coerceTypes: true, dropUnknown: false });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const strict = (schema as Record<string, unknown>)[STRICT_MEMBERS] === true;
  const ajv =
    httpPart === 'body' ? (strict ? strictBody : lenientBody) : httpPart === 'headers' ? coercingKeepAll : coercing;
  const validate: ValidateFunction = ajv.compile(schema as object);
  // `true` on success, not `{ value: data }`: Ajv coerces, fills defaults and drops members in
  // place, so the request already holds the validated value, and Fastify keeps it as it is
  // (no result object per part and request, two a GET with params and a query: issue 30).
  return (data: unknown) =>
    validate(data) ? true : { error: Object.assign(new Error('validation'), { validation: validate.errors ?? [] }) };
};

const LOC_PREFIX: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

const TYPE_MESSAGES: Record<string, [string, string]> = {
  string: ['Input should be a valid string', 'string_type'],
  integer: ['Input should be a valid integer', 'int_parsing'],
  number: ['Input should be a valid number', 'float_parsing'],
  boolean: ['Input should be a valid boolean', 'bool_parsing'],
  object: ['Input should be a valid dictionary', 'dict_type'],
  array: ['Input should be a valid list', 'list_type'],
};

function issueFor(err: ErrorObject, prefix: string): InputIssue {
  const path = err.instancePath
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~')));
  const loc = [prefix, ...path];
  const p = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return { loc: [...loc, String(p.missingProperty)], msg: 'Field required', type: 'missing' };
    case 'type': {
      const expected = String(Array.isArray(p.type) ? p.type[0] : p.type);
      const [msg, type] = TYPE_MESSAGES[expected] ?? [`Input should be of type ${expected}`, 'type_error'];
      return { loc, msg, type };
    }
    case 'maxLength':
      return { loc, msg: `String should have at most ${p.limit} characters`, type: 'string_too_long' };
    case 'minLength':
      return { loc, msg: `String should have at least ${p.limit} characters`, type: 'string_too_short' };
    case 'maximum':
      return { loc, msg: `Input should be less than or equal to ${p.limit}`, type: 'less_than_equal' };
    case 'minimum':
      return { loc, msg: `Input should be greater than or equal to ${p.limit}`, type: 'greater_than_equal' };
    case 'additionalProperties':
      return {
        loc: [...loc, String(p.additionalProperty)],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      };
    case 'enum':
      return {
        loc,
        msg: `Input should be ${(p.allowedValues as unknown[]).map((v) => `'${v}'`).join(' or ')}`,
        type: 'enum',
      };
    case 'const':
      return { loc, msg: `Input should be '${p.allowedValue}'`, type: 'literal_error' };
    case 'pattern':
      return { loc, msg: `String should match pattern '${p.pattern}'`, type: 'string_pattern_mismatch' };
    case 'format': {
      // pydantic's names for the formats FastAPI routes use most.
      const known: Record<string, [string, string]> = {
        'date-time': ['Input should be a valid datetime', 'datetime_parsing'],
        date: ['Input should be a valid date', 'date_parsing'],
        uuid: ['Input should be a valid UUID', 'uuid_parsing'],
        email: ['value is not a valid email address', 'value_error'],
      };
      const [msg, type] = known[String(p.format)] ?? [`Input should be a valid ${p.format}`, `${p.format}_parsing`];
      return { loc, msg, type };
    }
    case 'maxItems':
      return { loc, msg: `List should have at most ${p.limit} items`, type: 'too_long' };
    default:
      return { loc, msg: err.message ?? 'Invalid value', type: 'value_error' };
  }
}

export function issuesFromValidation(errors: ErrorObject[], context: string | undefined): InputIssue[] {
  const prefix = LOC_PREFIX[context ?? 'body'] ?? 'body';
  return errors.map((e) => issueFor(e, prefix));
}
