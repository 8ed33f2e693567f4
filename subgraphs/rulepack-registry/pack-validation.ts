// Checks a submitted pack before anything is stored, in three steps, each reporting every problem
// it finds as an InputError naming where it is (`['pack', 'rules', 0, 'operator']`):
//   1. shape: an object, at most MAX_PACK_DEPTH deep, no text the database could not keep as sent;
//   2. the contract (platform/contracts/rule-pack.schema.json, Ajv) plus what the registry needs
//      beyond it: metadata.pack_id and metadata.version (a semantic version);
//   3. meaning: the engine compiles the pack (unknown operands, regexes that are invalid or could
//      backtrack catastrophically, ...), so a pack that is stored also runs.
// An artifact (YAML or JSON text) is parsed first; its problems name `artifact`.
import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import semver from 'semver';
import { parse as parseYaml } from 'yaml';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import { issuesFromValidation } from '../../platform/http/validation';
import { PROJECT_ROOT } from '../../platform/project-root';
import { unstorableText } from '../../platform/text';

export const ARTIFACT_FORMATS = ['yaml', 'json'] as const;
export type ArtifactFormat = (typeof ARTIFACT_FORMATS)[number];

/** Deeper packs are refused before any recursive code (Ajv, canonical JSON) sees them. */
export const MAX_PACK_DEPTH = 64;
/** A 422 lists at most this many problems: enough to fix a pack, bounded for a hostile one. */
export const MAX_ISSUES = 50;

export interface SubmittedPack {
  pack?: unknown;
  artifact?: string;
  format?: string;
}

/** The engine's check of a pack's meaning: throws an error carrying `issues` when it will not run. */
export type PackCompiler = (pack: Record<string, unknown>) => unknown;

interface EngineIssue {
  path: (string | number)[];
  message: string;
  type?: string;
}

export interface CheckedPack {
  pack: Record<string, unknown>;
  packId: string;
  version: string;
}

const schemaValidator: ValidateFunction = (() => {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const schema = JSON.parse(
    fs.readFileSync(path.join(PROJECT_ROOT, 'platform/contracts/rule-pack.schema.json'), 'utf8'),
  ) as object;
  return ajv.compile(schema);
})();

function fail(issues: InputIssue[]): never {
  throw new InputError(issues.slice(0, MAX_ISSUES));
}

/** The pack object a submission carries (parsing an artifact), with `root` naming its field. */
export function packOfSubmission(input: SubmittedPack): { pack: unknown; root: 'pack' | 'artifact' } {
  const hasPack = input.pack !== undefined && input.pack !== null;
  const hasArtifact = input.artifact !== undefined && input.artifact !== null;
  if (hasPack === hasArtifact) {
    fail([
      {
        loc: [hasPack ? 'artifact' : 'pack'],
        msg: hasPack
          ? 'Send either pack or artifact, not both'
          : 'Field required: pack (an object) or artifact (YAML or JSON text)',
        type: hasPack ? 'value_error' : 'missing',
      },
    ]);
  }
  if (hasPack) return { pack: input.pack, root: 'pack' };
  if (typeof input.artifact !== 'string')
    fail([{ loc: ['artifact'], msg: 'Input should be a valid string', type: 'string_type' }]);
  if (input.format === undefined || input.format === null)
    fail([{ loc: ['format'], msg: 'Field required', type: 'missing' }]);
  if (!(ARTIFACT_FORMATS as readonly unknown[]).includes(input.format))
    fail([{ loc: ['format'], msg: "Input should be 'yaml' or 'json'", type: 'enum' }]);
  return { pack: parseArtifact(input.artifact, input.format as ArtifactFormat), root: 'artifact' };
}

function parseArtifact(text: string, format: ArtifactFormat): unknown {
  try {
    // YAML: the core schema (no custom tags, so nothing in a pack becomes code), aliases bounded
    // (no billion laughs), duplicate keys refused.
    return format === 'json'
      ? JSON.parse(text)
      : parseYaml(text, { schema: 'core', maxAliasCount: 100, uniqueKeys: true });
  } catch (err) {
    // A parser's own message says where (line, column); a stack overflow on absurd nesting says little.
    const reason = err instanceof RangeError ? 'nested too deeply' : (err as Error).message.split('\n')[0];
    return fail([
      {
        loc: ['artifact'],
        msg: `Invalid ${format === 'json' ? 'JSON' : 'YAML'}: ${reason}`,
        type: format === 'json' ? 'json_invalid' : 'yaml_invalid',
      },
    ]);
  }
}

/** Iteratively (a hostile value may be very deep): depth bound and storable text only. */
function checkShape(value: unknown, root: string): void {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    fail([{ loc: [root], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
  const stack: [unknown, (string | number)[]][] = [[value, [root]]];
  while (stack.length > 0) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (unstorableText(v))
        fail([
          { loc: at, msg: 'String should not contain NUL characters or unpaired surrogates', type: 'value_error' },
        ]);
      continue;
    }
    if (typeof v === 'number' && !Number.isFinite(v))
      fail([{ loc: at, msg: 'Input should be a finite number', type: 'finite_number' }]);
    if (v === null || typeof v !== 'object') continue;
    if (at.length > MAX_PACK_DEPTH)
      fail([{ loc: [root], msg: `Input should be nested at most ${MAX_PACK_DEPTH} levels deep`, type: 'value_error' }]);
    for (const [key, child] of Object.entries(v)) {
      if (unstorableText(key))
        fail([{ loc: at, msg: 'Keys should not contain NUL characters or unpaired surrogates', type: 'value_error' }]);
      stack.push([child, [...at, Array.isArray(v) ? Number(key) : key]]);
    }
  }
}

/** The registry's own requirements beyond the schema: an id and a semantic version. */
function metadataIssues(pack: Record<string, unknown>, root: string): InputIssue[] {
  const metadata = pack.metadata;
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) return []; // the schema reports it
  const m = metadata as Record<string, unknown>;
  const issues: InputIssue[] = [];
  if (m.pack_id === undefined)
    issues.push({ loc: [root, 'metadata', 'pack_id'], msg: 'Field required', type: 'missing' });
  if (m.version === undefined)
    issues.push({ loc: [root, 'metadata', 'version'], msg: 'Field required', type: 'missing' });
  else if (typeof m.version === 'string' && semver.valid(m.version) !== m.version) {
    issues.push({
      loc: [root, 'metadata', 'version'],
      msg: 'Input should be a semantic version such as 1.2.0',
      type: 'semver',
    });
  }
  return issues;
}

function schemaIssues(pack: unknown, root: string): InputIssue[] {
  if (schemaValidator(pack)) return [];
  // The house's one translation of Ajv errors into pydantic's messages, re-rooted at the field.
  return issuesFromValidation(schemaValidator.errors ?? [], 'body').map((i) => ({
    ...i,
    loc: [root, ...i.loc.slice(1)],
  }));
}

function engineIssues(compile: PackCompiler, pack: Record<string, unknown>, root: string): InputIssue[] {
  try {
    compile(pack);
    return [];
  } catch (err) {
    const issues = (err as { issues?: unknown }).issues;
    if (!Array.isArray(issues)) throw err;
    return (issues as EngineIssue[]).map((i) => ({
      loc: [root, ...i.path],
      msg: i.message,
      type: i.type ?? 'value_error',
    }));
  }
}

/** Everything a submission must pass before it is stored; InputError otherwise. */
export function checkSubmission(input: SubmittedPack, compile: PackCompiler): CheckedPack {
  const { pack, root } = packOfSubmission(input);
  checkShape(pack, root);
  const object = pack as Record<string, unknown>;
  const issues = [...metadataIssues(object, root), ...schemaIssues(object, root)];
  if (issues.length > 0) fail(issues);
  const semantic = engineIssues(compile, object, root);
  if (semantic.length > 0) fail(semantic);
  const metadata = object.metadata as { pack_id: string; version: string };
  return { pack: object, packId: metadata.pack_id, version: metadata.version };
}
