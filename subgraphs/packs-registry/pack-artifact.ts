// A submitted workflow-pack artifact, from the request to what the catalog stores: the text kept
// verbatim, parsed (JSON, or YAML through the `yaml` package restricted to plain JSON values),
// checked against platform/contracts/workflow-pack.schema.json, checked for what JSON Schema
// cannot say (step names unique across nesting), hashed (SHA-256 of RFC 8785 canonical JSON) and
// its dependencies extracted. Problems are InputErrors naming the path inside `artifact`.
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import secureJson from 'secure-json-parse';
import { parseAllDocuments } from 'yaml';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';
import { unstorableText } from '../../platform/text';
import type { ArtifactFormat, PackDependencies, PackKind, PackRef, SchemaRef } from './pack.types';
import { dataflowPackIssues, workflowPackIssues } from './workflow-pack.schema';

/** Larger artifacts are refused (the body limit caps them anyway; this keeps the row small). */
export const MAX_ARTIFACT_CHARS = 512 * 1024;
/** Deeper artifacts are refused before any recursive code (canonicalize, Ajv) sees them. */
export const MAX_ARTIFACT_DEPTH = 64;
/** YAML aliases expanded at most this often (the "billion laughs" guard). */
const MAX_YAML_ALIASES = 100;
/** At most this many problems are reported for one artifact. */
const MAX_ISSUES = 20;

export interface ParsedArtifact {
  /** `dataflow` when the artifact says `kind: dataflow` (its own contract), else a workflow pack. */
  kind: Exclude<PackKind, 'rule'>;
  format: ArtifactFormat;
  /** The artifact exactly as submitted (a JSON object is kept as its JSON text). */
  source: string;
  content: WorkflowPackDocument | DataflowPackDocument;
  sha256: string;
  dependencies: PackDependencies;
}

/** The members of a workflow pack the registry itself reads (the schema guarantees them). */
export interface WorkflowPackDocument extends Record<string, unknown> {
  metadata: { pack_id: string; version: string; workflow_type: string; name: string } & Record<string, unknown>;
  steps: StepDocument[];
  input_schema_ref?: SchemaRef;
  dependencies?: Partial<PackDependencies>;
}

/** The members of a dataflow pack the registry itself reads (the schema guarantees them). */
export interface DataflowPackDocument extends Record<string, unknown> {
  kind: 'dataflow';
  metadata: { pack_id: string; version: string; name: string } & Record<string, unknown>;
  inputs: { schema_ref?: SchemaRef }[];
  dependencies?: { schemas?: SchemaRef[] };
}

interface StepDocument extends Record<string, unknown> {
  step: string;
  type: string;
  rule_pack_id?: string;
  rule_pack_version?: string;
  workflow_pack_id?: string;
  workflow_pack_version?: string;
  steps?: StepDocument[];
  branches?: { steps: StepDocument[] }[];
  otherwise?: StepDocument[];
}

const fail = (loc: (string | number)[], msg: string, type = 'value_error'): InputError => InputError.of(loc, msg, type);

/** Parses, checks and hashes an artifact as the submit operation received it. */
export function parseArtifact(artifact: unknown, format: unknown): ParsedArtifact {
  if (format !== 'json' && format !== 'yaml') throw fail(['format'], "Input should be 'json' or 'yaml'", 'enum');
  const { source, value } = readArtifact(artifact, format);
  const kind = (value as { kind?: unknown } | null)?.kind === 'dataflow' ? 'dataflow' : 'workflow';
  const schemaIssues = kind === 'dataflow' ? dataflowPackIssues(value) : workflowPackIssues(value);
  if (schemaIssues.length > 0) throw new InputError(schemaIssues.slice(0, MAX_ISSUES));
  const canonical = canonicalize(value);
  if (canonical === undefined) throw fail(['artifact'], 'Artifact is not serialisable as JSON');
  if (kind === 'dataflow') {
    const content = value as DataflowPackDocument;
    return { kind, format, source, content, sha256: sha256Hex(canonical), dependencies: dataflowDependencies(content) };
  }
  const content = value as WorkflowPackDocument;
  checkStepNames(content.steps);
  return { kind, format, source, content, sha256: sha256Hex(canonical), dependencies: extractDependencies(content) };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function readArtifact(artifact: unknown, format: ArtifactFormat): { source: string; value: unknown } {
  if (artifact === undefined || artifact === null) throw fail(['artifact'], 'Field required', 'missing');
  if (typeof artifact === 'object' && !Array.isArray(artifact)) {
    if (format === 'yaml') throw fail(['artifact'], 'A YAML artifact is sent as a string', 'string_type');
    // Checked before anything recursive (JSON.stringify) sees it: GraphQL variables have no depth guard.
    checkPlainJson(artifact);
    const source = JSON.stringify(artifact);
    checkSize(source);
    return { source, value: artifact };
  }
  if (typeof artifact !== 'string') throw fail(['artifact'], 'Input should be an object or a string', 'model_type');
  checkSize(artifact);
  const problem = unstorableText(artifact);
  if (problem)
    throw fail(
      ['artifact'],
      problem === 'nul' ? 'String should not contain NUL characters' : 'String should not contain unpaired surrogates',
    );
  const value = format === 'json' ? parseJsonText(artifact) : parseYamlText(artifact);
  checkPlainJson(value);
  return { source: artifact, value };
}

function checkSize(source: string): void {
  if (source.length > MAX_ARTIFACT_CHARS)
    throw fail(['artifact'], `Artifact should have at most ${MAX_ARTIFACT_CHARS} characters`, 'string_too_long');
}

function parseJsonText(text: string): unknown {
  try {
    // Refuses __proto__ and constructor.prototype keys rather than keeping them.
    return secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (err) {
    throw fail(['artifact'], `Invalid JSON: ${(err as Error).message}`, 'json_invalid');
  }
}

function parseYamlText(text: string): unknown {
  try {
    // YAML 1.2 core schema, known tags left unresolved (no !!binary buffers, !!set, timestamps):
    // the result is plain JSON data or the document is refused.
    const docs = parseAllDocuments(text, {
      schema: 'core',
      uniqueKeys: true,
      resolveKnownTags: false,
      logLevel: 'silent',
      prettyErrors: false,
    });
    if (!Array.isArray(docs)) throw fail(['artifact'], 'Invalid YAML: no document', 'yaml_invalid');
    if (docs.length !== 1)
      throw fail(['artifact'], `Invalid YAML: expected one document, found ${docs.length}`, 'yaml_invalid');
    const doc = docs[0]!;
    const problem = doc.errors[0] ?? doc.warnings[0];
    if (problem) {
      const where = problem.linePos?.[0] ? ` (line ${problem.linePos[0].line}, column ${problem.linePos[0].col})` : '';
      throw fail(['artifact'], `Invalid YAML${where}: ${problem.message.split('\n')[0]}`, 'yaml_invalid');
    }
    return doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    if (err instanceof InputError) throw err;
    // Alias bombs, and a stack overflow on absurd nesting, end here too.
    throw fail(['artifact'], `Invalid YAML: ${(err as Error).message.split('\n')[0]}`, 'yaml_invalid');
  }
}

/**
 * Walks the value without recursion: only JSON values (finite numbers, plain objects), at most
 * MAX_ARTIFACT_DEPTH deep, and only text PostgreSQL stores as sent.
 */
function checkPlainJson(value: unknown): void {
  const stack: [unknown, (string | number)[]][] = [[value, ['artifact']]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw fail(path, 'Input should be a finite number', 'finite_number');
      continue;
    }
    if (typeof v === 'string') {
      const problem = unstorableText(v);
      if (problem)
        throw fail(
          path,
          problem === 'nul'
            ? 'String should not contain NUL characters'
            : 'String should not contain unpaired surrogates',
        );
      continue;
    }
    const plain = Array.isArray(v) || (typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype);
    if (!plain) throw fail(path, 'Input should be a JSON value', 'value_error');
    if (path.length > MAX_ARTIFACT_DEPTH)
      throw fail(['artifact'], `Artifact should be nested at most ${MAX_ARTIFACT_DEPTH} levels deep`);
    for (const [key, child] of Object.entries(v as object)) {
      if (!Array.isArray(v) && unstorableText(key))
        throw fail([...path, key], 'Keys should not contain NUL characters or unpaired surrogates');
      stack.push([child, [...path, Array.isArray(v) ? Number(key) : key]]);
    }
  }
}

/** Every step with its path inside the artifact, depth first, in document order. */
export function walkSteps(
  steps: StepDocument[],
  path: (string | number)[] = ['steps'],
): { step: StepDocument; path: (string | number)[] }[] {
  const out: { step: StepDocument; path: (string | number)[] }[] = [];
  const visit = (list: StepDocument[], at: (string | number)[]) => {
    list.forEach((step, i) => {
      const here = [...at, i];
      out.push({ step, path: here });
      if (step.steps) visit(step.steps, [...here, 'steps']);
      step.branches?.forEach((b, j) => visit(b.steps, [...here, 'branches', j, 'steps']));
      if (step.otherwise) visit(step.otherwise, [...here, 'otherwise']);
    });
  };
  visit(steps, path);
  return out;
}

/** Step names identify saga steps (compensation, idempotency, status): unique in the whole pack. */
function checkStepNames(steps: StepDocument[]): void {
  const seen = new Map<string, (string | number)[]>();
  const issues: InputIssue[] = [];
  for (const { step, path } of walkSteps(steps)) {
    const first = seen.get(step.step);
    if (first)
      issues.push({
        loc: ['artifact', ...path, 'step'],
        msg: `Step name '${step.step}' is already used at ${first.join('.')}`,
        type: 'value_error',
      });
    else seen.set(step.step, path);
  }
  if (issues.length > 0) throw new InputError(issues.slice(0, MAX_ISSUES));
}

/** The steps' own references plus the explicit `dependencies`, each listed once, in first-seen order. */
export function extractDependencies(pack: WorkflowPackDocument): PackDependencies {
  const rulePacks: PackRef[] = [];
  const schemas: SchemaRef[] = [];
  const workflowPacks: PackRef[] = [];
  for (const { step } of walkSteps(pack.steps)) {
    if (step.type === 'validation' && step.rule_pack_id && step.rule_pack_version)
      rulePacks.push({ pack_id: step.rule_pack_id, version: step.rule_pack_version });
    if (step.type === 'action' && step.workflow_pack_id && step.workflow_pack_version)
      workflowPacks.push({ pack_id: step.workflow_pack_id, version: step.workflow_pack_version });
  }
  if (pack.input_schema_ref) schemas.push({ name: pack.input_schema_ref.name, version: pack.input_schema_ref.version });
  rulePacks.push(...(pack.dependencies?.rule_packs ?? []));
  schemas.push(...(pack.dependencies?.schemas ?? []));
  workflowPacks.push(...(pack.dependencies?.workflow_packs ?? []));
  return {
    rule_packs: uniqueBy(rulePacks, (r) => `${r.pack_id}@${r.version}`).map((r) => ({
      pack_id: r.pack_id,
      version: r.version,
    })),
    schemas: uniqueBy(schemas, (s) => `${s.name}@${s.version}`).map((s) => ({ name: s.name, version: s.version })),
    workflow_packs: uniqueBy(workflowPacks, (r) => `${r.pack_id}@${r.version}`).map((r) => ({
      pack_id: r.pack_id,
      version: r.version,
    })),
  };
}

/** A dataflow pack's schema references (its inputs' and the explicit ones), each listed once. */
function dataflowDependencies(pack: DataflowPackDocument): PackDependencies {
  const schemas = [
    ...pack.inputs.flatMap((i) => (i.schema_ref ? [i.schema_ref] : [])),
    ...(pack.dependencies?.schemas ?? []),
  ];
  return {
    rule_packs: [],
    schemas: uniqueBy(schemas, (s) => `${s.name}@${s.version}`).map((s) => ({ name: s.name, version: s.version })),
    workflow_packs: [],
  };
}

function uniqueBy<T>(items: T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
