// Which pipelines the whole-CSV COPY path may take (sql-mapping.ts compiles them to SQL) and which
// stay on the per-record path (null): the answer decides whether JSONata and Ajv or SQL give a
// record its values, so anything SQL cannot answer exactly must be null. What the SQL gives is
// compared with the per-record path on PostgreSQL in test/integration/ingestion/ingestion-csv-copy.
import { compileSqlPlan } from '../../../subgraphs/ingestion/sql-mapping';
import type { PipelineDefinition } from '../../../subgraphs/ingestion/pipeline.types';

const COLUMNS = ['id', 'name', 'email', 'balance'];
const def = (
  mapping: Record<string, string>,
  schema: Record<string, unknown> = { type: 'object' },
  pii?: Record<string, string>,
) =>
  ({
    mapping,
    target: { dataset: 'd', schema },
    ...(pii ? { pii: { fields: pii } } : {}),
  }) as unknown as PipelineDefinition;

it('compiles renames, casts, concatenation and literals, with a field that names no column left out', () => {
  const plan = compileSqlPlan(
    def({ id: '$number(id)', who: '$trim(name & " " & email)', mail: '$lowercase(email)', gone: 'nope', tag: '"x"' }),
    COLUMNS,
  )!;
  expect(plan.fields.map((f) => [f.name, f.kind])).toEqual([
    ['id', 'number'],
    ['who', 'string'],
    ['mail', 'string'],
    ['tag', 'string'],
  ]);
  // Every value must be exact (not NULL) for the row to be taken.
  expect(plan.ok).toContain('f1 IS NOT NULL');
  expect(plan.fields[0]!.sql).toContain('~'); // the $number pattern JSONata accepts
});

it('turns the supported schema keywords into row checks and declines the others', () => {
  const plan = compileSqlPlan(
    def(
      { id: '$number(id)', name: 'name' },
      {
        type: 'object',
        required: ['id'],
        additionalProperties: false,
        properties: {
          id: { type: 'integer', minimum: 1, exclusiveMaximum: 10 },
          name: { type: 'string', maxLength: 5 },
        },
      },
    ),
    COLUMNS,
  )!;
  expect(plan.ok).toContain('f1 = trunc(f1)');
  expect(plan.ok).toContain(`f1 >= '1'::float8`);
  expect(plan.ok).toContain(`f1 < '10'::float8`);
  expect(plan.ok).toContain('char_length(f2) <= 5');
  for (const schema of [
    { type: 'object', properties: { name: { type: 'string', pattern: '^a' } } }, // JS and SQL regexes differ
    { type: 'object', properties: { name: { type: 'string', format: 'email' } } },
    { type: 'object', properties: { id: { type: 'string' } } }, // a number never passes: the record path says why
    { type: 'object', required: ['missing'] },
    { type: 'object', additionalProperties: false, properties: { id: {} } },
    { type: 'object', anyOf: [] },
    { type: 'array' },
  ])
    expect(compileSqlPlan(def({ id: '$number(id)', name: 'name' }, schema), COLUMNS)).toBeNull();
});

it('declines expressions outside the subset, inherited names and scrubbing other than remove', () => {
  for (const mapping of [
    { a: '$substring(name, 1)' },
    { a: 'name.first' },
    { a: '$number(id) + 1' },
    { a: 'constructor' },
    { a: '$string($number(id))' }, // JSONata's number to string: left to it
    { a: '$number(id) & "x"' },
    { a: 'name[0]' },
  ])
    expect(compileSqlPlan(def(mapping), COLUMNS)).toBeNull();
  expect(compileSqlPlan(def({ name: 'name' }, undefined, { name: 'shred' }), COLUMNS)).toBeNull();
  const scrubbed = compileSqlPlan(
    def({ name: 'name', id: 'id', b: 'id', c: 'id' }, undefined, { name: 'mask', id: 'hash', b: 'tokenize' }),
    COLUMNS,
  )!;
  expect(scrubbed.fields.map((f) => [f.name, f.staged, f.scrub])).toEqual([
    ['name', true, 'mask'],
    ['id', true, 'hash'],
    ['b', true, 'tokenize'],
    ['c', true, undefined],
  ]);
  const removed = compileSqlPlan(def({ name: 'name', id: 'id' }, undefined, { name: 'remove' }), COLUMNS)!;
  expect(removed.fields.map((f) => [f.name, f.staged])).toEqual([
    ['name', false],
    ['id', true],
  ]);
});

it('marks literals that need JSON escaping', () => {
  expect(compileSqlPlan(def({ a: '"plain"' }), COLUMNS)!.literalNeedsEscaping).toBe(false);
  expect(compileSqlPlan(def({ a: '"say \\"hi\\""' }), COLUMNS)!.literalNeedsEscaping).toBe(true);
});
