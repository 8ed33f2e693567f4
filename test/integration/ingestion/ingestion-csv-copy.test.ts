// A CSV staged whole into a table of its own (batch-table.store.ts: read by csv-piece.ts, mapped by
// csv-batch-rows.ts, one COPY ... FREEZE) must land exactly as the per-record path lands it: the
// same JSON text per offset, the same manifest checksums, the same quarantine when it declines.
// Each case pushes the same file to two pipelines of the same definition, one service with
// INGESTION_CSV_VIA_COPY on and one with it off, and compares; the batch row says which path
// staged it (its own table), and the COPYs begun are counted. PostgreSQL only (DATABASE_URL):
// PGlite has no COPY from a client, so there the one path is the per-record one.
import jsonata from 'jsonata';
import { Readable } from 'node:stream';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import type { SqlExecutor } from '../../../platform/db/sql';
import { createLogger } from '../../../platform/logging/logger';
import { loadIngestionConfig } from '../../../subgraphs/ingestion/ingestion.config';
import { createIngestionModule, type IngestionModule } from '../../../subgraphs/ingestion/ingestion.module';
import { compileRowWriter } from '../../../subgraphs/ingestion/row-writer';
import { createTestDatabase, type TestDatabase } from '../../support/database';

const onPostgres = Boolean(process.env.DATABASE_URL);
let db: TestDatabase;
let copies = 0;
const modules: Record<'copy' | 'records', IngestionModule> = {} as never;
const caller = { correlationId: 'csv-copy-test' };
const TENANT = 'csv-copy';

beforeAll(async () => {
  db = await createTestDatabase();
  // Counts the whole-batch COPYs begun (one a batch; it may still roll back); the record path makes one a chunk.
  const counting: SqlExecutor = {
    ...db.sql,
    transaction: (work) =>
      db.sql.transaction((q) =>
        work({
          ...q,
          copyFrom:
            q.copyFrom && ((text, data) => (text.includes('ingestion_staged.') && copies++, q.copyFrom!(text, data))),
        }),
      ),
  };
  for (const mode of ['copy', 'records'] as const) {
    const env = {
      ...process.env,
      LOG_LEVEL: 'ERROR',
      REQUIRE_AUTH: 'false',
      INGESTION_SCHEDULER_TICK_MS: '0',
      INGESTION_CSV_VIA_COPY: mode === 'copy' ? 'true' : 'false',
      // One key for both services: their hashes and tokens must be comparable.
      INGESTION_PII_SECRET: 'csv-copy-test-pii-secret',
    };
    const platform = loadPlatformConfig(env);
    modules[mode] = createIngestionModule({
      db: { ...db, sql: counting },
      config: { ...loadIngestionConfig(env, platform.auth.jwtSecret), schemaRegistryUrl: 'http://127.0.0.1:1' },
      logger: createLogger('ERROR', 'ingestion'),
      env,
    });
  }
});
afterAll(async () => {
  await db.drop();
});

let seq = 0;
function definition(overrides: Record<string, unknown> = {}) {
  return {
    name: `csv-copy-${++seq}`,
    source: { kind: 'rest_push' },
    format: { type: 'csv' },
    mapping: {
      n: '$number(num)',
      text: 'text',
      up: '$uppercase(word)',
      low: '$lowercase(word)',
      tidy: '$trim(spaced)',
      joined: 'word & "-" & $string(num)',
      label: '"fixed \\"label\\""',
      nothing: 'no_such_column',
      secret: 'word',
    },
    target: {
      dataset: 'csv-copy',
      schema: {
        type: 'object',
        required: ['n', 'text'],
        properties: { n: { type: 'number', minimum: -1e30 }, text: { type: 'string', maxLength: 200 } },
      },
    },
    pii: { fields: { secret: 'remove' } },
    ...overrides,
  };
}

/** Pushes `csv` through both paths; answers both batches with their staged JSON texts and quarantines. */
async function both(csv: string, overrides: Record<string, unknown> = {}) {
  const out: Record<string, any> = {};
  for (const mode of ['copy', 'records'] as const) {
    const m = modules[mode];
    const def: Record<string, unknown> = definition(overrides);
    // `pii: null`: no policy (the generated row writer's case, row-writer.ts).
    if (def.pii === null) delete def.pii;
    const p = await m.pipelines.create(caller, { definition: def, tenantId: TENANT });
    const before = copies;
    // A batch that fails throws; its row says how it ended.
    const batch = await m.batches
      .push(caller, p.id, { stream: Readable.from([Buffer.from(csv)]), sourceName: 'file.csv', tenantId: TENANT })
      .catch(async () => (await m.batches.batches(caller, p.id, TENANT))[0]!);
    const own = await db.sql.query<{ t: string | null }>(
      `SELECT staged_table AS t FROM ingestion_batches WHERE id = $1::uuid`,
      [batch.id],
    );
    const table = own.rows[0]!.t;
    // The stored text itself (the service's reader parses it).
    const staged = await db.sql.query<{ o: number; t: string }>(
      table
        ? `SELECT record_offset::float8 AS o, data AS t FROM ingestion_staged.${table} WHERE $1::uuid IS NOT NULL ORDER BY record_offset`
        : `SELECT record_offset::float8 AS o, data AS t FROM ingestion_staged_records WHERE batch_id = $1::uuid ORDER BY record_offset`,
      [batch.id],
    );
    // The service's reader gives the same records (a page of them, from an offset), with the batch's lineage.
    const read = await m.batches.records(caller, batch.id, { tenantId: TENANT, after: 0, limit: 1000 });
    expect(read.map((r) => [r.offset, r.data, r.source, r.dataset, r.batchId])).toEqual(
      staged.rows.slice(1, 1001).map((r) => [r.o, JSON.parse(r.t), 'file.csv', 'csv-copy', batch.id]),
    );
    // Other pages: the first, one from the middle, one from before the first offset, one past the end.
    for (const [after, limit] of [
      [-1, 3],
      [5, 4],
      [-40, 2],
      [staged.rows.length + 3, 5],
    ] as const) {
      const page = await m.batches.records(caller, batch.id, { tenantId: TENANT, after, limit });
      expect(page.map((r) => r.offset)).toEqual(
        staged.rows
          .filter((r) => r.o > after)
          .slice(0, limit)
          .map((r) => r.o),
      );
    }
    const quarantine = await m.batches.quarantine(caller, batch.id, TENANT);
    out[mode] = {
      batch,
      copied: copies > before,
      whole: table !== null,
      staged: staged.rows.map((r) => [r.o, r.t]),
      quarantine: quarantine.map((q) => [q.offset, q.reason, q.rawSha256]),
    };
  }
  return out as Record<
    'copy' | 'records',
    { batch: any; copied: boolean; whole: boolean; staged: [number, string][]; quarantine: unknown[] }
  >;
}

const HEADER = 'num,text,word,spaced\n';
const TRICKY = [
  `0,plain,abc,"  a \t b  "`,
  `-0,"with, comma",MiXeD,x`,
  `1.50,"say ""hi""",q,"multi\nline"`,
  `007,back\\slash,z,y`,
  `1e-7,ünïcödé ✓,k, `,
  `0.000001,"tab\tin",k,k`,
  `1e21,"",a,a`,
  `123456789012345678901,x,a,a`,
  `1.5e300,x,a,a`,
  `-2.5E-3,x,a,a`,
  `0.1,x,a,a`,
  `1e15,x,a,a`,
  `123456.789e3,x,a,a`,
];

(onPostgres ? describe : describe.skip)('a CSV staged whole lands as the per-record path lands it', () => {
  it('tricky values: the same JSON text per offset and the same manifest', async () => {
    const r = await both(HEADER + TRICKY.join('\n') + '\n');
    expect(r.copy.whole).toBe(true);
    expect(r.records.copied).toBe(false);
    expect(r.records.whole).toBe(false);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.staged).toHaveLength(TRICKY.length);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
    expect(Object.keys(r.copy.batch.manifest.column_checksums)).not.toContain('secret');
    expect(r.copy.batch.manifest.row_count).toBe(TRICKY.length);
    expect(r.copy.batch.rowsRead).toBe(TRICKY.length);
  });

  it('a last line without a line end', async () => {
    const r = await both(HEADER + TRICKY.slice(0, 5).join('\n'));
    expect(r.copy.whole).toBe(true);
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('CRLF line ends: left to csv-parse (it takes the record delimiter from the first line), the same answer', async () => {
    const r = await both((HEADER + TRICKY.slice(0, 5).join('\n')).replace(/\n(?=[-0-9])/g, '\r\n'));
    expect(r.copy.whole).toBe(false);
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('a file of more than one piece (8 MiB), with quoted fields in some', async () => {
    const lines: string[] = [];
    for (let i = 0, bytes = 0; bytes < 9 * 1024 * 1024; i++) {
      lines.push(i % 1000 === 0 ? `${i},"q ""${i}"", x",w${i},"s\n${i}"` : `${i},text ${i},w${i},s${i}`);
      bytes += lines[i]!.length + 1;
    }
    const r = await both(HEADER + lines.join('\n') + '\n');
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.manifest.row_count).toBe(lines.length);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
    expect(r.copy.staged.slice(0, 2000)).toEqual(r.records.staged.slice(0, 2000));
    // The record path's half takes a minute or more on a loaded machine (a Jest limit, not a timing claim).
  }, 300_000);

  it('values that need no JSON escaping', async () => {
    const { label: _label, ...mapping } = definition().mapping;
    const r = await both(HEADER + ['1,a,b,c', '2.5,d,e,f', '-3,g,h,i'].join('\n') + '\n', { mapping });
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('scrubbed (mask, hash, tokenize, remove): the same JSON text, checksums and tokens as the per-record path', async () => {
    const pii = { fields: { secret: 'remove', text: 'mask', joined: 'hash', low: 'tokenize', n: 'mask' } };
    const ascii = TRICKY.filter((line) => [...line].every((c) => c.charCodeAt(0) < 0x80));
    const r = await both(HEADER + ascii.join('\n') + '\n', { pii });
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toHaveLength(ascii.length);
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
    expect(JSON.parse(r.copy.staged[0]![1])).toMatchObject({
      text: '*****',
      n: '*',
      low: expect.stringMatching(/^tok_[0-9a-f]{32}$/),
    });
  });

  it('a non-ASCII value to mask: masked as the per-record path masks it', async () => {
    const r = await both(HEADER + TRICKY.join('\n') + '\n', { pii: { fields: { text: 'mask' } } });
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('records the record path quarantines (a $number JSONata refuses, a schema failure): rolled back, then the same quarantine', async () => {
    const r = await both(
      HEADER +
        ['1,ok,a,a', 'abc,bad number,a,a', '0x1F,hex,a,a', '2,' + 'x'.repeat(201) + ',a,a', '3,ß,straße,a'].join('\n') +
        '\n',
    );
    expect(r.copy.copied).toBe(true); // tried, then declined
    expect(r.copy.whole).toBe(false);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.quarantine).toEqual(r.records.quarantine);
    expect(r.copy.quarantine.length).toBe(2);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('files csv-parse could read differently are not staged whole, and answer as before', async () => {
    for (const csv of [
      HEADER + '1,a"b,c,d\n', // a quote inside an unquoted field: csv-parse refuses it
      HEADER + '1,a,b,c\n\n2,a,b,c\n', // an empty line: csv-parse skips it
      HEADER + '1,a,b,c\n\\.\n2,a,b,c\n', // COPY's end-of-data marker
      HEADER.replace('\n', '\r') + '1,a,b,c\r2,a,b,c\r', // CR alone
    ]) {
      const r = await both(csv);
      expect(r.copy.whole).toBe(false);
      expect([r.copy.batch.status, r.copy.staged]).toEqual([r.records.batch.status, r.records.staged]);
    }
  });

  it('a malformed record (a short row) is declined; the record path answers', async () => {
    const r = await both(HEADER + '1,a,b,c\n2,a\n');
    expect(r.copy.copied).toBe(true);
    expect(r.copy.whole).toBe(false);
    expect(r.copy.batch.status).toBe(r.records.batch.status);
    expect(r.copy.batch.error).toBe(r.records.batch.error);
    expect(r.copy.staged).toEqual(r.records.staged);
  });
});

/** Unscrubbed, every source field in the file: the batch's generated function maps it (row-writer.ts). */
const { nothing: _nothing, ...generated } = definition().mapping;
const GENERATED = { pii: null, mapping: generated };
const { label: _label, ...generatedClean } = generated;

(onPostgres ? describe : describe.skip)('the generated row writer lands what the per-record path lands', () => {
  it('is generated for these mappings, and not for one naming a field the file lacks', () => {
    const columns = HEADER.trim().split(',');
    const writer = (mapping: Record<string, string>) =>
      compileRowWriter(
        Object.entries(mapping).map(([n, e]) => [n, jsonata(e)]),
        () => true,
        columns,
        ',',
        () => [],
      );
    expect(writer(generated)).not.toBeNull();
    expect(writer(generatedClean)).not.toBeNull();
    expect(writer(definition().mapping)).toBeNull();
    expect(writer({ n: '$number(num) & "x"' })).toBeNull();
    expect(writer({ n: '$substring(text, 1)' })).toBeNull();
  });

  it.each([
    ['a constant that needs escaping', GENERATED],
    ['only constants that need none', { ...GENERATED, mapping: generatedClean }],
  ])('tricky values, %s: the same JSON text per offset and the same manifest', async (_name, overrides) => {
    const r = await both(HEADER + TRICKY.join('\n') + '\n', overrides);
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.status).toBe('completed');
    expect(r.copy.staged).toEqual(r.records.staged);
    expect(r.copy.staged).toHaveLength(TRICKY.length);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
  });

  it('unquoted values with a backslash, a tab, a non-ASCII letter or a lone surrogate, and a last line without its end', async () => {
    const lines = ['1,back\\slash,a,b', '2,tab\tin,a,b', '3,ünï ✓,a,b', '4,\ud800x,a,b', '5,plain,a,b'];
    for (const overrides of [GENERATED, { ...GENERATED, mapping: generatedClean }]) {
      const r = await both(HEADER + lines.join('\n'), overrides);
      expect(r.copy.whole).toBe(true);
      expect(r.copy.staged).toEqual(r.records.staged);
      expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
    }
  });

  it('a file of more than one piece (8 MiB): one without quotes, one with quoted fields in some', async () => {
    const lines: string[] = [];
    for (let i = 0, bytes = 0; bytes < 9 * 1024 * 1024; i++) {
      lines.push(
        i % 1000 === 0 && bytes > 8.5 * 1024 * 1024
          ? `${i},"q ""${i}"", x",w${i},"s\n${i}"`
          : `${i},text ${i},w${i},s${i}`,
      );
      bytes += lines[i]!.length + 1;
    }
    const r = await both(HEADER + lines.join('\n') + '\n', { ...GENERATED, mapping: generatedClean });
    expect(r.copy.whole).toBe(true);
    expect(r.copy.batch.manifest.row_count).toBe(lines.length);
    expect(r.copy.batch.manifest.column_checksums).toEqual(r.records.batch.manifest.column_checksums);
    expect(r.copy.staged.slice(0, 2000)).toEqual(r.records.staged.slice(0, 2000));
    expect(r.copy.staged.slice(-2000)).toEqual(r.records.staged.slice(-2000));
    // The record path's half takes a minute or more on a loaded machine (a Jest limit, not a timing claim).
  }, 300_000);

  it('records it declines: a hexadecimal $number (JSONata maps it), a schema failure (quarantined)', async () => {
    const hex = await both(HEADER + ['1,ok,a,a', '0x1F,hex,a,a', '2,ok,a,a'].join('\n') + '\n', GENERATED);
    expect(hex.copy.whole).toBe(true);
    expect(hex.copy.staged).toEqual(hex.records.staged);
    expect(hex.copy.staged[1]![1]).toContain('"n":31');
    expect(hex.copy.batch.manifest.column_checksums).toEqual(hex.records.batch.manifest.column_checksums);
    const bad = await both(HEADER + ['1,ok,a,a', 'abc,bad number,a,a', '2,ok,a,a'].join('\n') + '\n', GENERATED);
    expect(bad.copy.copied).toBe(true);
    expect(bad.copy.whole).toBe(false);
    expect(bad.copy.staged).toEqual(bad.records.staged);
    expect(bad.copy.quarantine).toEqual(bad.records.quarantine);
    expect(bad.copy.quarantine.length).toBe(1);
  });

  it('a short row and a long row are declined; the record path answers', async () => {
    for (const csv of [HEADER + '1,a,b,c\n2,a\n', HEADER + '1,a,b,c\n2,a,b,c,d\n']) {
      const r = await both(csv, GENERATED);
      expect(r.copy.copied).toBe(true);
      expect(r.copy.whole).toBe(false);
      expect(r.copy.batch.status).toBe(r.records.batch.status);
      expect(r.copy.batch.error).toBe(r.records.batch.error);
      expect(r.copy.staged).toEqual(r.records.staged);
    }
  });
});

it('runs where COPY from a client exists', () => {
  if (!onPostgres)
    console.log('DATABASE_URL not set: the whole-batch COPY path is PostgreSQL only, its cases are skipped');
  expect(typeof db.sql.copyFrom === 'function').toBe(onPostgres);
});
