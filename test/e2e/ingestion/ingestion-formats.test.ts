// Binary sources through the REST door on a real database: an XLSX workbook pushed as the body
// (and as a multipart file) is read, normalised, scrubbed and staged like a CSV; a zip bomb and a
// malformed workbook fail their batch with the reason (422, ingestion.failed) and the service
// keeps serving; the pipeline contract takes `xlsx` with a sheet name. A Parquet file (SNAPPY,
// several row groups) is staged the same way; one that is not Parquet fails with the reason.
import { INGESTION_FAILED } from '../../../platform/contracts/pipeline.events';
import { contractBus } from '../../../platform/events/contract-bus';
import { createLogger } from '../../../platform/logging/logger';
import { ingestionService } from '../../../services/ingestion';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { parquet, xlsx, xlsxParts, zip } from './formats.support';
import { call, customersPipeline, push, token } from './ingestion.support';

jest.setTimeout(120_000);

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const A = 'fmt-a';
const B = 'fmt-b';
let h: Harness;
let url: string;
let a: string;
let b: string;
const failed: any[] = [];

const CUSTOMERS = [
  ['id', 'first', 'last', 'email', 'ssn', 'phone', 'balance'],
  [1, 'Ada', 'Lovelace', 'ADA@example.com', '123-45-6789', '+1 202 555 0101', 10.5],
  [2, 'Alan', 'Turing', 'alan@example.com', '987-65-4321', '+1 202 555 0102', 20],
  [3, 'Grace', 'Hopper', 'grace@example.com', '111-22-3333', '+1 202 555 0103', -5],
];

beforeAll(async () => {
  h = await startServices([ingestionService], {
    REQUIRE_AUTH: 'true',
    INGESTION_MAX_BYTES: '2000000',
    INGESTION_MAX_INFLATE_RATIO: '100',
    NOTICE_RELAY_POLL_MS: '50',
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
  });
  url = h.services.ingestion!.url;
  a = await token(A);
  b = await token(B);
  const bus = contractBus(h.bus, createLogger('ERROR', 'test'));
  await bus.subscribe(INGESTION_FAILED, (p) => void failed.push(p));
});

afterAll(async () => {
  await h?.close();
});

const xlsxPipeline = (name: string, sheet?: string) =>
  customersPipeline(name, {
    format: { type: 'xlsx', ...(sheet ? { sheet } : {}) },
    // XLSX numbers arrive as numbers: no $number() needed, but it does no harm.
    mapping: { ...customersPipeline().mapping, customer_id: 'id' },
  });

describe('XLSX', () => {
  let pipelineId: string;

  beforeAll(async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', { definition: xlsxPipeline('sheet', 'Q4') });
    expect(created.status).toBe(201);
    pipelineId = created.body.id;
  });

  it('stages a pushed workbook sheet scrubbed, with lineage, and quarantines the bad row with its reason', async () => {
    const book = await xlsx(
      [
        { name: 'Readme', rows: [['nothing here']] },
        { name: 'Q4', rows: CUSTOMERS },
      ],
      { inline: true },
    );
    const res = await push(url, a, pipelineId, book, { contentType: XLSX_TYPE, sourceName: 'customers.xlsx' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      source_name: 'customers.xlsx',
      progress: { rows_read: 3, rows_staged: 2, rows_quarantined: 1 },
    });
    const records = await call(url, a, 'GET', `/api/ingestion/batches/${res.body.id}/records`);
    expect(records.body.records.map((r: any) => r.offset)).toEqual([0, 1]);
    const first = records.body.records[0].data;
    expect(first).toMatchObject({ customer_id: 1, balance: 10.5, ssn: '***-**-****' });
    expect(first.email).toMatch(/^tok_/);
    expect(JSON.stringify(records.body)).not.toContain('Lovelace');
    const q = await call(url, a, 'GET', `/api/ingestion/batches/${res.body.id}/quarantine`);
    expect(q.body.records).toEqual([
      expect.objectContaining({ offset: 2, reason: 'target schema: balance must be >= 0' }),
    ]);
    // The same workbook again (as a multipart file this time) answers the same batch.
    const again = await push(url, a, pipelineId, book, { multipart: 'customers.xlsx' });
    expect(again.body.id).toBe(res.body.id);
    // Another tenant can neither push to the pipeline nor read the batch.
    expect((await push(url, b, pipelineId, book, { contentType: XLSX_TYPE })).status).toBe(404);
    expect((await call(url, b, 'GET', `/api/ingestion/batches/${res.body.id}/records`)).status).toBe(404);
  });

  it('fails a zip bomb with the reason and ingestion.failed, and keeps serving', async () => {
    const parts = xlsxParts([{ name: 'Q4', rows: CUSTOMERS }]);
    parts['xl/worksheets/sheet1.xml'] = `<worksheet><sheetData>${' '.repeat(20 * 1024 * 1024)}</sheetData></worksheet>`;
    const bomb = await zip(parts);
    expect(bomb.length).toBeLessThan(200_000);
    const res = await push(url, a, pipelineId, bomb, { contentType: XLSX_TYPE, sourceName: 'bomb.xlsx' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].msg).toMatch(/compression ratio is over 100:1 \(a zip bomb\?\)/);
    const batches = await call(url, a, 'GET', `/api/ingestion/pipelines/${pipelineId}/batches`);
    const bombBatch = batches.body.batches.find((x: any) => x.source_name === 'bomb.xlsx');
    expect(bombBatch).toMatchObject({ status: 'failed', error: expect.stringMatching(/zip bomb/) });
    await until(async () => failed.some((f) => f.batch_id === bombBatch.id), 'ingestion.failed for the zip bomb');
    expect((await call(url, a, 'GET', '/api/ingestion/pipelines')).status).toBe(200);
  });

  it('fails a malformed workbook, or a file that is not one, with a clear reason', async () => {
    const notZip = await push(url, a, pipelineId, 'id,name\n1,Ada\n', { contentType: XLSX_TYPE });
    expect(notZip.status).toBe(422);
    expect(notZip.body.detail[0].msg).toMatch(/XLSX: not a readable ZIP container/);
    const noSheet = await push(url, a, pipelineId, await xlsx([{ name: 'Other', rows: CUSTOMERS }]), {
      contentType: XLSX_TYPE,
    });
    expect(noSheet.status).toBe(422);
    expect(noSheet.body.detail[0].msg).toBe("XLSX: the workbook has no sheet named 'Q4'");
  });

  it('refuses a sheet name the contract does not allow', async () => {
    const bad = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: xlsxPipeline('bad-sheet', 'x'.repeat(40)),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['body', 'definition', 'format', 'sheet']);
  });
});

describe('Parquet', () => {
  it('stages a pushed Parquet file read by row groups, and fails one that is not Parquet with the reason', async () => {
    const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
      definition: customersPipeline('parquet', {
        format: { type: 'parquet' },
        mapping: { ...customersPipeline().mapping, customer_id: 'id' },
      }),
    });
    expect(created.status).toBe(201);
    const column = (i: number) => CUSTOMERS.slice(1).map((row) => row[i]);
    const file = parquet(
      [
        { name: 'id', data: column(0).map((v) => BigInt(v as number)), type: 'INT64' },
        ...['first', 'last', 'email', 'ssn', 'phone'].map((name, i) => ({
          name,
          data: column(i + 1),
          type: 'STRING' as const,
        })),
        { name: 'balance', data: column(6), type: 'DOUBLE' },
      ],
      { rowGroupSize: 2 },
    );
    const res = await push(url, a, created.body.id, file, { multipart: 'customers.parquet' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'completed',
      progress: { rows_read: 3, rows_staged: 2, rows_quarantined: 1 },
    });
    expect(res.body.manifest.column_checksums).toHaveProperty('customer_id');
    const records = await call(url, a, 'GET', `/api/ingestion/batches/${res.body.id}/records`);
    expect(records.body.records.map((r: any) => [r.offset, r.data.customer_id, r.data.ssn])).toEqual([
      [0, 1, '***-**-****'],
      [1, 2, '***-**-****'],
    ]);

    const bad = await push(url, a, created.body.id, Buffer.from('not parquet at all'), {
      contentType: 'application/vnd.apache.parquet',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].msg).toMatch(/^Parquet: /);
    expect((await call(url, a, 'GET', '/api/ingestion/pipelines')).status).toBe(200);
  });
});
