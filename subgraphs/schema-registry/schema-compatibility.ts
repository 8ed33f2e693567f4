// Compatibility of two JSON Schema (draft-07) versions, as Confluent's schema registry defines the
// modes for JSON Schema:
//   BACKWARD  data valid under the previous version stays valid under the new one
//             (the new schema is the reader, the previous one the writer);
//   FORWARD   data valid under the new version is valid under the previous one (roles swapped);
//   FULL      both; NONE no check.
// Pure and synchronous: no I/O, no clock. Hand-written structural rules (no library for this is
// installed), sound rather than complete: whenever a rule cannot decide that the reader accepts
// everything the writer accepts, it reports a reason, so an unknown or unanalysed change is
// treated as incompatible (docs/schema-registry.md lists the keywords).
//
// Every reason names the JSON pointer (as a URI fragment, `#/properties/age`) in the new
// version where the difference is, or where it would be for a removed property.
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import canonicalize from 'canonicalize';

export type CompatibilityMode = 'BACKWARD' | 'FORWARD' | 'FULL' | 'NONE';
export const COMPATIBILITY_MODES: readonly CompatibilityMode[] = ['BACKWARD', 'FORWARD', 'FULL', 'NONE'];

export interface CompatibilityResult {
  compatible: boolean;
  reasons: string[];
}

type Json = unknown;
type SchemaObject = Record<string, unknown>;

const PREVIOUS = 'the previous version';
const NEW = 'the new version';

/** Checks `next` against `previous` under `mode`. Both are draft-07 schemas (objects or booleans). */
export function checkCompatibility(mode: CompatibilityMode, previous: Json, next: Json): CompatibilityResult {
  const reasons: string[] = [];
  if (mode === 'BACKWARD' || mode === 'FULL')
    reasons.push(...readerAccepts(previous, next, { writer: PREVIOUS, reader: NEW, reportOn: 'reader' }));
  if (mode === 'FORWARD' || mode === 'FULL')
    reasons.push(...readerAccepts(next, previous, { writer: NEW, reader: PREVIOUS, reportOn: 'writer' }));
  const unique = [...new Set(reasons)];
  return { compatible: unique.length === 0, reasons: unique };
}

// ------------------------------------------------------------------------------------------------
// The core: where the reader schema rejects something the writer schema accepts.

interface Roles {
  writer: string;
  reader: string;
  /** Which side is the new version (whose pointers the reasons name). */
  reportOn: 'writer' | 'reader';
}

/** A schema as reached during the walk. */
interface Side {
  root: Json;
  schema: Json;
  /** Its real location in `root` (a JSON pointer), or null for an implied `true`. */
  at: string | null;
  /** The pointer reasons name: `at`, or where an absent property would be. */
  path: string;
}

interface Walk {
  roles: Roles;
  /** Pairs of locations being compared: a recursive $ref meets itself and is assumed to hold. */
  inProgress: Set<string>;
  depth: number;
  /** One Ajv per compared document, and its compiled subschemas by location. */
  validators: Map<Json, { ajv: Ajv; compiled: Map<string, ValidateFunction> }>;
}

/** Deeper walks are refused (conservatively) rather than risking the stack. */
const MAX_WALK_DEPTH = 256;
const MAX_REF_HOPS = 32;

function readerAccepts(writerRoot: Json, readerRoot: Json, roles: Roles): string[] {
  if (sameJson(writerRoot, readerRoot)) return [];
  const walk: Walk = { roles, inProgress: new Set(), depth: 0, validators: new Map() };
  return compare(
    walk,
    { root: writerRoot, schema: writerRoot, at: '', path: '' },
    { root: readerRoot, schema: readerRoot, at: '', path: '' },
  );
}

/** Keywords that only annotate (draft-07 validates none of them). */
const ANNOTATIONS = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'definitions',
  'contentMediaType',
  'contentEncoding',
  'deprecated',
]);

/** Keywords the rules below analyse; any other keyword the reader sets is compared as text. */
const ANALYSED = new Set([
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'items',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
  'properties',
  'patternProperties',
  'additionalProperties',
  'required',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependencies',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  '$ref',
]);

const ALL_TYPES = ['null', 'boolean', 'object', 'array', 'number', 'integer', 'string'] as const;

function compare(walk: Walk, w0: Side, r0: Side): string[] {
  const reasons: string[] = [];
  const w = resolve(w0);
  const r = resolve(r0);
  const here = reportPath(walk, typeof w === 'string' ? w0 : w, typeof r === 'string' ? r0 : r);
  const say = (text: string, at?: string) => reasons.push(`${pointerText(at ?? here)}: ${text}`);
  const { writer: W, reader: R } = walk.roles;

  if (typeof w === 'string' || typeof r === 'string') {
    // An unresolvable $ref (another document): only the very same reference is known to agree.
    if (!(typeof w === 'string' && typeof r === 'string' && w === r))
      say(
        `$ref ${typeof r === 'string' ? r : typeof w === 'string' ? w : ''} cannot be resolved, so the change is treated as incompatible`,
      );
    return reasons;
  }
  if (acceptsAll(r.schema) || w.schema === false) return reasons;
  if (r.schema === false) {
    say(`${R} accepts no value here, ${W} does`);
    return reasons;
  }
  if (walk.depth >= MAX_WALK_DEPTH) {
    say('the schemas are nested too deeply to compare, so the change is treated as incompatible');
    return reasons;
  }
  const key = `${w.at}\u0000${r.at}`;
  if (w.at !== null && r.at !== null) {
    if (walk.inProgress.has(key)) return reasons;
    walk.inProgress.add(key);
  }
  walk.depth++;
  try {
    const ws: SchemaObject = isObject(w.schema) ? w.schema : {};
    const rs = r.schema as SchemaObject;

    const finite = enumerable(ws);
    if (finite) {
      // The writer accepts a listed set of values: each must be valid under the reader, which
      // Ajv decides exactly (whatever keywords the reader uses).
      for (const value of finite) {
        if (!readerValidates(walk, r, value)) say(`${JSON.stringify(value)} is accepted by ${W} but rejected by ${R}`);
      }
      return reasons;
    }

    const wTypes = typesOf(ws);
    const rTypes = typesOf(rs);
    if (rTypes) {
      const missing = (wTypes ? [...wTypes] : ALL_TYPES.filter((t) => t !== 'integer')).filter(
        (t) => !(rTypes.has(t) || (t === 'integer' && rTypes.has('number'))),
      );
      if (missing.length > 0)
        say(`type ${[...rTypes].join('/')} in ${R} rejects ${missing.join('/')} values that ${W} accepts`);
    }
    const rFinite = finiteValues(rs);
    if (rFinite)
      say(
        `${'const' in rs ? 'const' : 'enum'} in ${R} rejects values outside ${JSON.stringify(rFinite)} that ${W} accepts`,
      );

    const both = (t: 'number' | 'string' | 'array' | 'object') => admits(wTypes, t) && admits(rTypes, t);
    if (both('number')) compareNumbers(ws, rs, say, walk.roles);
    if (both('string')) compareStrings(ws, rs, say, walk.roles);
    if (both('array')) reasons.push(...compareArrays(walk, w, r, say));
    if (both('object')) reasons.push(...compareObjects(walk, w, r, say));
    reasons.push(...compareCompositions(walk, w, r, say));

    for (const keyword of Object.keys(rs)) {
      if (ANALYSED.has(keyword) || ANNOTATIONS.has(keyword)) continue;
      if (!sameJson(ws[keyword], rs[keyword]))
        say(`keyword '${keyword}' is not analysed and differs in ${R}, so the change is treated as incompatible`);
    }
    return reasons;
  } finally {
    walk.depth--;
    if (w.at !== null && r.at !== null) walk.inProgress.delete(key);
  }
}

type Say = (text: string, at?: string) => void;

function compareNumbers(ws: SchemaObject, rs: SchemaObject, say: Say, { writer: W, reader: R }: Roles): void {
  for (const side of ['lower', 'upper'] as const) {
    const rb = bound(rs, side);
    if (!rb) continue;
    const wb = bound(ws, side);
    const tighter =
      !wb ||
      (side === 'lower' ? rb.value > wb.value : rb.value < wb.value) ||
      (rb.value === wb.value && rb.exclusive && !wb.exclusive);
    if (tighter) {
      const name =
        side === 'lower'
          ? rb.exclusive
            ? 'exclusiveMinimum'
            : 'minimum'
          : rb.exclusive
            ? 'exclusiveMaximum'
            : 'maximum';
      say(
        `${name} ${rb.value} in ${R} rejects numbers that ${W} accepts (${W}: ${wb ? `${wb.exclusive ? 'exclusive ' : ''}${wb.value}` : 'no bound'})`,
      );
    }
  }
  const rm = numberOf(rs.multipleOf);
  if (rm !== undefined) {
    const wm = numberOf(ws.multipleOf);
    if (wm === undefined || !isMultiple(wm, rm))
      say(`multipleOf ${rm} in ${R} rejects numbers that ${W} accepts (${W}: ${wm ?? 'any number'})`);
  }
}

function compareStrings(ws: SchemaObject, rs: SchemaObject, say: Say, { writer: W, reader: R }: Roles): void {
  tighterLimit(ws, rs, 'minLength', 'min', say, `shorter strings`, W, R);
  tighterLimit(ws, rs, 'maxLength', 'max', say, `longer strings`, W, R);
  if (typeof rs.pattern === 'string' && rs.pattern !== ws.pattern) {
    say(
      `pattern ${JSON.stringify(rs.pattern)} in ${R} differs from ${W}'s (${ws.pattern === undefined ? 'none' : JSON.stringify(ws.pattern)}); patterns are compared as text, so the change is treated as incompatible`,
    );
  }
  if (typeof rs.format === 'string' && rs.format !== ws.format) {
    say(
      `format ${rs.format} in ${R} rejects strings that ${W} accepts (${W}: ${typeof ws.format === 'string' ? ws.format : 'no format'})`,
    );
  }
}

function compareArrays(walk: Walk, w: Side, r: Side, say: Say): string[] {
  const ws = (isObject(w.schema) ? w.schema : {}) as SchemaObject;
  const rs = r.schema as SchemaObject;
  const { writer: W, reader: R } = walk.roles;
  const reasons: string[] = [];
  tighterLimit(ws, rs, 'minItems', 'min', say, 'shorter arrays', W, R);
  tighterLimit(ws, rs, 'maxItems', 'max', say, 'longer arrays', W, R);
  if (rs.uniqueItems === true && ws.uniqueItems !== true)
    say(`uniqueItems in ${R} rejects arrays with duplicates that ${W} accepts`);
  if (rs.contains !== undefined && !sameJson(rs.contains, ws.contains))
    say(`contains in ${R} differs from ${W}'s and is not analysed, so the change is treated as incompatible`);

  // Positions: a tuple (`items` as an array) gives each index its schema, `additionalItems` the
  // rest; a single `items` schema applies everywhere.
  const wTuple = Array.isArray(ws.items) ? ws.items.length : 0;
  const rTuple = Array.isArray(rs.items) ? rs.items.length : 0;
  for (let i = 0; i < Math.max(wTuple, rTuple); i++) {
    reasons.push(...compare(walk, itemAt(w, i), itemAt(r, i)));
  }
  reasons.push(...compare(walk, restItems(w), restItems(r)));
  return reasons;
}

function compareObjects(walk: Walk, w: Side, r: Side, say: Say): string[] {
  const ws = (isObject(w.schema) ? w.schema : {}) as SchemaObject;
  const rs = r.schema as SchemaObject;
  const { writer: W, reader: R } = walk.roles;
  const reasons: string[] = [];
  tighterLimit(ws, rs, 'minProperties', 'min', say, 'objects with fewer properties', W, R);
  tighterLimit(ws, rs, 'maxProperties', 'max', say, 'objects with more properties', W, R);

  const wRequired = new Set(stringsOf(ws.required));
  const rProps = objectOf(rs.properties);
  for (const name of stringsOf(rs.required)) {
    if (wRequired.has(name)) continue;
    // Confluent's rule: a required property with a default can be filled in by the reader.
    const prop = rProps[name];
    if (isObject(prop) && 'default' in prop) continue;
    say(
      `required property '${name}' in ${R} has no default, and ${W} does not require it`,
      childPath(walk, w, r, 'properties', name),
    );
  }

  // Every named property: the schema each side applies to it (its own, or additionalProperties).
  const names = new Set([...Object.keys(objectOf(ws.properties)), ...Object.keys(rProps)]);
  for (const name of names) {
    const wp = propertyAt(w, name);
    const rp = propertyAt(r, name);
    if (rp.schema === false && wp.schema !== false) {
      const how = wRequired.has(name) ? 'required' : 'accepted';
      say(`property '${name}' is ${how} by ${W} but not allowed by ${R}`, childPath(walk, w, r, 'properties', name));
      continue;
    }
    reasons.push(...compare(walk, wp, rp));
  }

  // patternProperties: the same pattern is compared schema to schema; a pattern only the reader
  // has is a new constraint; a pattern only the writer has falls under the reader's
  // additionalProperties. (Names matched by a pattern are otherwise treated as additional.)
  const wPatterns = objectOf(ws.patternProperties);
  const rPatterns = objectOf(rs.patternProperties);
  for (const pattern of new Set([...Object.keys(wPatterns), ...Object.keys(rPatterns)])) {
    const wAt = w.at === null ? null : `${w.at}/patternProperties/${escapePointer(pattern)}`;
    const rAt = r.at === null ? null : `${r.at}/patternProperties/${escapePointer(pattern)}`;
    if (!(pattern in rPatterns)) {
      reasons.push(
        ...compare(walk, { root: w.root, schema: wPatterns[pattern], at: wAt, path: wAt ?? w.path }, additional(r)),
      );
    } else if (!(pattern in wPatterns)) {
      if (!acceptsAll(rPatterns[pattern]))
        say(
          `patternProperties ${JSON.stringify(pattern)} in ${R} constrains properties ${W} accepts with any value allowed by its additionalProperties, so the change is treated as incompatible`,
          rAt ?? r.path,
        );
    } else {
      reasons.push(
        ...compare(
          walk,
          { root: w.root, schema: wPatterns[pattern], at: wAt, path: wAt ?? w.path },
          { root: r.root, schema: rPatterns[pattern], at: rAt, path: rAt ?? r.path },
        ),
      );
    }
  }

  const wAdd = additional(w);
  const rAdd = additional(r);
  if (rAdd.schema === false && wAdd.schema !== false) {
    say(
      `additionalProperties false in ${R} rejects properties that ${W} accepts`,
      childPath(walk, w, r, 'additionalProperties'),
    );
  } else {
    reasons.push(...compare(walk, wAdd, rAdd));
  }

  if (rs.propertyNames !== undefined && !sameJson(rs.propertyNames, ws.propertyNames)) {
    say(`propertyNames in ${R} differs from ${W}'s and is not analysed, so the change is treated as incompatible`);
  }
  const rDeps = objectOf(rs.dependencies);
  const wDeps = objectOf(ws.dependencies);
  for (const dep of Object.keys(rDeps)) {
    if (!sameJson(rDeps[dep], wDeps[dep]))
      say(
        `dependencies of '${dep}' in ${R} differ from ${W}'s and are not analysed, so the change is treated as incompatible`,
      );
  }
  return reasons;
}

function compareCompositions(walk: Walk, w: Side, r: Side, say: Say): string[] {
  const ws = (isObject(w.schema) ? w.schema : {}) as SchemaObject;
  const rs = r.schema as SchemaObject;
  const { writer: W, reader: R } = walk.roles;
  const reasons: string[] = [];

  // anyOf / oneOf on the reader: every writer alternative must fit some reader branch. oneOf is
  // treated as anyOf, as Confluent does (adding an alternative is compatible).
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const rBranches = rs[keyword];
    if (!Array.isArray(rBranches)) continue;
    if (sameJson(rBranches, ws[keyword])) continue;
    const wKeyword = Array.isArray(ws.anyOf) ? 'anyOf' : Array.isArray(ws.oneOf) ? 'oneOf' : null;
    const wAlternatives: Side[] = wKeyword
      ? (ws[wKeyword] as Json[]).map((_, i) => child(w, wKeyword, i))
      : [{ ...w, schema: withoutCompositions(ws) }];
    wAlternatives.forEach((alt, i) => {
      const fits = rBranches.some((_, j) => compare(walk, alt, child(r, keyword, j)).length === 0);
      if (!fits) {
        say(
          wKeyword
            ? `${W}'s ${wKeyword} alternative ${i} fits no ${keyword} branch of ${R}`
            : `${keyword} in ${R}: ${W}'s values fit none of its branches`,
          childPath(walk, w, r, keyword),
        );
      }
    });
  }

  // allOf on the reader: the writer must fit each branch.
  if (Array.isArray(rs.allOf) && !sameJson(rs.allOf, ws.allOf)) {
    rs.allOf.forEach((_, j) =>
      reasons.push(...compare(walk, { ...w, schema: withoutCompositions(ws) }, child(r, 'allOf', j))),
    );
  }
  if (rs.not !== undefined && !sameJson(rs.not, ws.not))
    say(`not in ${R} differs from ${W}'s and is not analysed, so the change is treated as incompatible`);
  const conditional = (s: SchemaObject) => [s.if, s.then, s.else];
  if (rs.if !== undefined && !sameJson(conditional(rs), conditional(ws))) {
    say(`if/then/else in ${R} differs from ${W}'s and is not analysed, so the change is treated as incompatible`);
  }
  return reasons;
}

// ------------------------------------------------------------------------------------------------
// Helpers of the walk.

/** Follows local $refs ('#/definitions/x'); a string is an unresolvable reference. */
function resolve(side: Side): Side | string {
  let current = side;
  for (let hops = 0; hops < MAX_REF_HOPS; hops++) {
    if (!isObject(current.schema) || typeof current.schema.$ref !== 'string') return current;
    const ref = current.schema.$ref;
    if (!ref.startsWith('#')) return ref;
    const pointer = safeDecode(ref.slice(1));
    const target = pointer === undefined ? undefined : getPointer(current.root, pointer);
    if (target === undefined) return ref;
    current = { root: current.root, schema: target, at: pointer!, path: pointer! };
  }
  return `${side.path} (a $ref chain longer than ${MAX_REF_HOPS})`;
}

function reportPath(walk: Walk, w: Side, r: Side): string {
  return walk.roles.reportOn === 'reader' ? r.path : w.path;
}

function childPath(walk: Walk, w: Side, r: Side, ...segments: (string | number)[]): string {
  const base = reportPath(walk, w, r);
  return `${base}/${segments.map((s) => escapePointer(String(s))).join('/')}`;
}

function child(side: Side, ...segments: (string | number)[]): Side {
  let schema: Json = side.schema;
  for (const s of segments)
    schema = isObject(schema) || Array.isArray(schema) ? (schema as Record<string | number, Json>)[s] : undefined;
  const suffix = segments.map((s) => `/${escapePointer(String(s))}`).join('');
  return { root: side.root, schema, at: side.at === null ? null : side.at + suffix, path: side.path + suffix };
}

function additional(side: Side): Side {
  const s = isObject(side.schema) ? side.schema : {};
  if (s.additionalProperties === undefined)
    return { root: side.root, schema: true, at: null, path: `${side.path}/additionalProperties` };
  return child(side, 'additionalProperties');
}

function propertyAt(side: Side, name: string): Side {
  const props = objectOf(isObject(side.schema) ? side.schema.properties : undefined);
  if (Object.hasOwn(props, name)) return child(side, 'properties', name);
  // Absent: the property is governed by additionalProperties, reported where it would be.
  return { ...additional(side), path: `${side.path}/properties/${escapePointer(name)}` };
}

function itemAt(side: Side, index: number): Side {
  const s = isObject(side.schema) ? side.schema : {};
  if (Array.isArray(s.items)) return index < s.items.length ? child(side, 'items', index) : restItems(side);
  if (s.items === undefined) return { root: side.root, schema: true, at: null, path: `${side.path}/items` };
  return child(side, 'items');
}

function restItems(side: Side): Side {
  const s = isObject(side.schema) ? side.schema : {};
  if (Array.isArray(s.items)) {
    if (s.additionalItems === undefined)
      return { root: side.root, schema: true, at: null, path: `${side.path}/additionalItems` };
    return child(side, 'additionalItems');
  }
  if (s.items === undefined) return { root: side.root, schema: true, at: null, path: `${side.path}/items` };
  return child(side, 'items');
}

function withoutCompositions(s: SchemaObject): SchemaObject {
  const { anyOf: _a, oneOf: _o, allOf: _l, ...rest } = s;
  return rest;
}

/** Whether a schema accepts every value: `true`, or an object with no validation keyword. */
function acceptsAll(schema: Json): boolean {
  if (schema === true || schema === undefined) return true;
  if (!isObject(schema)) return false;
  return Object.keys(schema).every((k) => ANNOTATIONS.has(k));
}

/** The values a schema allows when it lists them (enum, const), else undefined. */
function finiteValues(s: SchemaObject): Json[] | undefined {
  if ('const' in s) return [s.const];
  return Array.isArray(s.enum) ? s.enum : undefined;
}

/** The writer's values when they are few enough to try one by one: listed, or only booleans/null. */
function enumerable(s: SchemaObject): Json[] | undefined {
  const listed = finiteValues(s);
  if (listed) return listed;
  const types = typesOf(s);
  if (!types || types.size === 0 || ![...types].every((t) => t === 'boolean' || t === 'null')) return undefined;
  return [...(types.has('boolean') ? [true, false] : []), ...(types.has('null') ? [null] : [])];
}

function typesOf(s: SchemaObject): Set<string> | null {
  if (typeof s.type === 'string') return new Set([s.type]);
  if (Array.isArray(s.type)) return new Set(s.type.filter((t): t is string => typeof t === 'string'));
  return null;
}

function admits(types: Set<string> | null, t: 'number' | 'string' | 'array' | 'object'): boolean {
  if (types === null) return true;
  return types.has(t) || (t === 'number' && types.has('integer'));
}

function bound(s: SchemaObject, side: 'lower' | 'upper'): { value: number; exclusive: boolean } | undefined {
  const inclusive = numberOf(side === 'lower' ? s.minimum : s.maximum);
  const exclusiveRaw = side === 'lower' ? s.exclusiveMinimum : s.exclusiveMaximum;
  // Draft-04's boolean form makes the inclusive bound exclusive.
  if (exclusiveRaw === true && inclusive !== undefined) return { value: inclusive, exclusive: true };
  const exclusive = numberOf(exclusiveRaw);
  if (inclusive === undefined) return exclusive === undefined ? undefined : { value: exclusive, exclusive: true };
  if (exclusive === undefined) return { value: inclusive, exclusive: false };
  const exclusiveIsTighter = side === 'lower' ? exclusive >= inclusive : exclusive <= inclusive;
  return exclusiveIsTighter ? { value: exclusive, exclusive: true } : { value: inclusive, exclusive: false };
}

function tighterLimit(
  ws: SchemaObject,
  rs: SchemaObject,
  keyword: string,
  kind: 'min' | 'max',
  say: Say,
  what: string,
  W: string,
  R: string,
): void {
  const rv = numberOf(rs[keyword]);
  if (rv === undefined) return;
  const wv = numberOf(ws[keyword]);
  const tighter = wv === undefined ? kind === 'max' || rv > 0 : kind === 'min' ? rv > wv : rv < wv;
  if (tighter) say(`${keyword} ${rv} in ${R} rejects ${what} that ${W} accepts (${W}: ${wv ?? 'no limit'})`);
}

function isMultiple(value: number, divisor: number): boolean {
  const q = value / divisor;
  return Math.abs(q - Math.round(q)) < 1e-9;
}

function readerValidates(walk: Walk, r: Side, value: Json): boolean {
  try {
    if (r.at === null) return acceptsAll(r.schema) || (r.schema !== false && validatorFor(r.schema)(value));
    let doc = walk.validators.get(r.root);
    if (!doc) {
      const ajv = newAjv();
      ajv.addSchema({ ...(r.root as SchemaObject), $id: DOC_ID });
      doc = { ajv, compiled: new Map() };
      walk.validators.set(r.root, doc);
    }
    let validate = doc.compiled.get(r.at);
    if (!validate) {
      const fragment = r.at
        .split('/')
        .map((s) => encodeURIComponent(s))
        .join('/');
      validate = doc.ajv.compile({ $ref: `${DOC_ID}#${fragment}` });
      doc.compiled.set(r.at, validate);
    }
    return validate(value) as boolean;
  } catch {
    // A schema Ajv cannot compile here decides nothing: conservatively, not accepted.
    return false;
  }
}

const DOC_ID = 'urn:schema-registry:compared';

function validatorFor(schema: Json): ValidateFunction {
  return newAjv().compile(schema as SchemaObject | boolean);
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: false });
  addFormats(ajv);
  return ajv;
}

// ------------------------------------------------------------------------------------------------
// JSON helpers.

function isObject(v: Json): v is SchemaObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function objectOf(v: Json): Record<string, Json> {
  return isObject(v) ? v : {};
}

function stringsOf(v: Json): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function numberOf(v: Json): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function sameJson(a: Json, b: Json): boolean {
  if (a === undefined || b === undefined) return a === b;
  return canonicalize(a) === canonicalize(b);
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

function safeDecode(fragment: string): string | undefined {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
}

function getPointer(root: Json, pointer: string): Json {
  if (pointer === '') return root;
  if (!pointer.startsWith('/')) return undefined;
  let node: Json = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = unescapePointer(raw);
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      node = node[Number(key)];
    } else if (isObject(node) && Object.hasOwn(node, key)) {
      node = node[key];
    } else {
      return undefined;
    }
  }
  return node;
}

/** A pointer as reasons show it: a URI fragment, `#` for the root. */
function pointerText(pointer: string): string {
  return `#${pointer}`;
}
