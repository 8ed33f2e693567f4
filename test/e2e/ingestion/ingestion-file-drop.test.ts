// The file-drop connector against a real directory: a file written in two parts is taken once
// its size is stable and moved to processed/ with its batch completed; a pipeline that waits for
// a `.done` marker takes its file when the marker appears; a malformed file and a symbolic link
// are moved to failed/ with the reason beside them; a directory of a pipeline of another kind or
// of no pipeline is left alone.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ingestionService } from '../../../services/ingestion';
import { startServices, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { call, customersPipeline, CUSTOMERS_CSV, token } from './ingestion.support';

jest.setTimeout(120_000);

const A = 'drop-a';
let h: Harness;
let url: string;
let a: string;
let root: string;

const files = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

async function pipeline(name: string, complete?: 'stable' | 'done_marker') {
  const created = await call(url, a, 'POST', '/api/ingestion/pipelines', {
    definition: customersPipeline(name, { source: { kind: 'file_drop', ...(complete ? { complete } : {}) } }),
  });
  expect(created.status).toBe(201);
  const dir = path.join(root, A, name);
  fs.mkdirSync(dir, { recursive: true });
  return { id: created.body.id as string, dir };
}

async function batchesOf(id: string) {
  return (await call(url, a, 'GET', `/api/ingestion/pipelines/${id}/batches`)).body.batches as any[];
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestion-drop-'));
  h = await startServices([ingestionService], {
    REQUIRE_AUTH: 'true',
    INGESTION_DROP_ROOT: root,
    INGESTION_DROP_STABLE_MS: '300',
    SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
  });
  url = h.services.ingestion!.url;
  a = await token(A);
});

afterAll(async () => {
  await h?.close();
  fs.rmSync(root, { recursive: true, force: true });
});

it('takes a file once its size is stable and moves it to processed/', async () => {
  const p = await pipeline('stable-drop');
  const [head, tail] = [CUSTOMERS_CSV.slice(0, 60), CUSTOMERS_CSV.slice(60)];
  fs.writeFileSync(path.join(p.dir, 'part.csv'), head);
  fs.appendFileSync(path.join(p.dir, 'part.csv'), tail);
  await until(async () => files(path.join(p.dir, 'processed')).length === 1, 'the file in processed/', {
    tries: 300,
    everyMs: 100,
  });
  expect(files(p.dir)).not.toContain('part.csv');
  const [batch] = await batchesOf(p.id);
  expect(batch).toMatchObject({
    status: 'completed',
    source_name: 'part.csv',
    progress: { rows_staged: 3, rows_quarantined: 1 },
  });
});

it('waits for the .done marker when the pipeline says so', async () => {
  const p = await pipeline('marker-drop', 'done_marker');
  fs.writeFileSync(path.join(p.dir, 'data.csv'), CUSTOMERS_CSV.replace('Ada', 'Augusta'));
  // Not taken on its own: a file of the stable-size pipeline written after it is taken first.
  const other = await pipeline('marker-witness');
  fs.writeFileSync(path.join(other.dir, 'w.csv'), CUSTOMERS_CSV.replace('Ada', 'Wit'));
  await until(async () => files(path.join(other.dir, 'processed')).length === 1, 'the witness file taken', {
    tries: 300,
    everyMs: 100,
  });
  expect(files(p.dir)).toContain('data.csv');
  expect(await batchesOf(p.id)).toEqual([]);
  fs.writeFileSync(path.join(p.dir, 'data.csv.done'), '');
  // Taken, then its marker removed.
  await until(
    async () => files(path.join(p.dir, 'processed')).length === 1 && !files(p.dir).includes('data.csv.done'),
    'the file in processed/ and its marker gone',
    { tries: 300, everyMs: 100 },
  );
  expect(files(p.dir).filter((f) => !['processed', '.processing'].includes(f))).toEqual([]);
  expect((await batchesOf(p.id))[0].status).toBe('completed');
});

it('moves a malformed file and a symbolic link to failed/ with the reason', async () => {
  const p = await pipeline('bad-drop');
  fs.writeFileSync(path.join(p.dir, 'bad.csv'), 'id,first\n1,"unclosed\n');
  await until(async () => files(path.join(p.dir, 'failed')).length === 2, 'bad.csv in failed/', {
    tries: 300,
    everyMs: 100,
  });
  const reasons = files(path.join(p.dir, 'failed')).filter((f) => f.endsWith('.error.txt'));
  expect(fs.readFileSync(path.join(p.dir, 'failed', reasons[0]!), 'utf8')).toMatch(/CSV/);
  const secret = path.join(root, 'outside-secret.csv');
  fs.writeFileSync(secret, CUSTOMERS_CSV);
  fs.symlinkSync(secret, path.join(p.dir, 'link.csv'));
  await until(async () => files(path.join(p.dir, 'failed')).length === 4, 'the link in failed/', {
    tries: 300,
    everyMs: 100,
  });
  const linkReason = files(path.join(p.dir, 'failed')).find((f) => f.includes('link.csv') && f.endsWith('.error.txt'))!;
  expect(fs.readFileSync(path.join(p.dir, 'failed', linkReason), 'utf8')).toContain('symbolic link');
  expect(fs.existsSync(secret)).toBe(true);
  expect((await batchesOf(p.id)).filter((b) => b.status === 'completed')).toEqual([]);
});
