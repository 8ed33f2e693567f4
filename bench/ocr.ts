// `npm run bench -- ocr [pagesPerKind]`: OCR tier 1 (our preprocessing + the tesseract.js pool)
// next to Debian's native `tesseract` CLI on the same generated invoice pages, clean, rotated
// 3-7° and noisy: pages/s (both with as many parallel workers as cores) and character accuracy
// (1 - edit distance / reference length, whitespace collapsed). Then cache-hit latency at the
// service (POST /extract of a document already processed, PGlite in memory). Measures only.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { registryOf } from '../launcher/registry';
import { AccessTokens } from '../platform/auth/jwt';
import { loadPlatformConfig } from '../platform/config/platform.config';
import { openDatabase } from '../platform/db/database';
import { createMemoryEventBus } from '../platform/events/memory-event-bus';
import { createLogger } from '../platform/logging/logger';
import { ocrService } from '../subgraphs/ocr';
import { DocumentDecoder } from '../subgraphs/ocr/document-decoder';
import { preprocessPage, toPgm } from '../subgraphs/ocr/preprocess';
import { TesseractPool } from '../subgraphs/ocr/tesseract-pool';
import { invoicePage, type InvoicePage } from '../test/fixtures/ocr/invoice-pages';

type Kind = 'clean' | 'rotated' | 'noisy';

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
const accuracy = (truth: string, read: string) => Math.max(0, 1 - editDistance(norm(truth), norm(read)) / norm(truth).length);

async function inParallel<T, R>(items: T[], workers: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: workers }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  }));
  return out;
}

function nativeTesseract(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('/usr/bin/tesseract', [file, 'stdout', '-l', 'eng'], { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, maxBuffer: 1 << 20 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

export async function run(args: string[]): Promise<void> {
  const perKind = Number(args[0] ?? 4);
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const pages: { kind: Kind; page: InvoicePage }[] = [];
  for (let i = 0; i < perKind; i++) {
    pages.push({ kind: 'clean', page: invoicePage(100 + i) });
    pages.push({ kind: 'rotated', page: invoicePage(200 + i, { rotateDegrees: (i % 2 ? -1 : 1) * (3 + (i * 4) / Math.max(1, perKind - 1)) }) });
    pages.push({ kind: 'noisy', page: invoicePage(300 + i, { noise: 0.05, seed: 40 + i }) });
  }
  console.log(`OCR bench (Node ${process.version}, ${cores} cores, ${pages.length} generated 900px-wide invoice pages: ${perKind} clean, ${perKind} rotated 3-7°, ${perKind} noisy 5% salt-and-pepper)`);

  // Ours: decode (separate process), preprocess, tesseract.js pool sized to the cores.
  const pool = new TesseractPool(cores);
  const decoder = new DocumentDecoder();
  await pool.start();
  await pool.recognise(toPgm(preprocessPage((await decoder.image(pages[0]!.page.png)).data, 900, 546).image)); // warm
  let t = performance.now();
  const ours = await inParallel(pages, cores, async ({ page }) => {
    const rgba = await decoder.image(page.png);
    const { image } = preprocessPage(rgba.data, rgba.width, rgba.height);
    return (await pool.recognise(toPgm(image))).text;
  });
  const oursSeconds = (performance.now() - t) / 1000;
  await pool.stop();
  await decoder.stop();

  // Native: one tesseract process per page, as many at once as cores, OpenMP limited to one thread each.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-bench-'));
  const files = pages.map(({ page }, i) => {
    const f = path.join(dir, `p${i}.png`);
    fs.writeFileSync(f, page.png);
    return f;
  });
  await nativeTesseract(files[0]!); // warm the page cache
  t = performance.now();
  const native = await inParallel(files, cores, nativeTesseract);
  const nativeSeconds = (performance.now() - t) / 1000;
  fs.rmSync(dir, { recursive: true, force: true });

  const rows: string[] = [];
  for (const kind of ['clean', 'rotated', 'noisy', 'all'] as const) {
    const idx = pages.map((p, i) => ({ p, i })).filter(({ p }) => kind === 'all' || p.kind === kind).map(({ i }) => i);
    const mean = (texts: string[]) => idx.reduce((a, i) => a + accuracy(pages[i]!.page.text, texts[i]!), 0) / idx.length;
    rows.push(`| ${kind} | ${(100 * mean(ours)).toFixed(1)}% | ${(100 * mean(native)).toFixed(1)}% |`);
  }
  console.log(`\n| | tier 1 (ours) | native tesseract 5.3 CLI |\n|---|---|---|`);
  console.log(`| pages/s | ${(pages.length / oursSeconds).toFixed(2)} | ${(pages.length / nativeSeconds).toFixed(2)} |`);
  console.log('| character accuracy: | | |');
  for (const r of rows) console.log(r);

  // Cache hits at the service.
  const env = { LOG_LEVEL: 'ERROR', OCR_WORKERS: '1', JWT_SECRET_KEY: 'bench-secret-that-is-long-enough-for-hs256-0123456789' };
  const config = loadPlatformConfig(env);
  const db = await openDatabase({ pgliteDir: 'memory://', poolSize: 5 });
  const built = await ocrService.build({ config, db, env, bus: createMemoryEventBus(), logger: createLogger('ERROR', 'ocr'), registry: registryOf() });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  await built.start?.();
  try {
    const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    const token = await new AccessTokens(config.auth.jwtSecret, 3600).issue({ username: 'bench', tenantId: 'bench', roles: ['user'], scopes: ['read', 'write'] });
    const body = () => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(pages[0]!.page.png)]), 'p.png');
      return form;
    };
    const first = (await (await fetch(`${url}/extract`, { method: 'POST', body: body(), headers: { authorization: `Bearer ${token}` } })).json()) as { job_id: string };
    for (;;) {
      const j = (await (await fetch(`${url}/jobs/${first.job_id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string };
      if (j.status !== 'pending' && j.status !== 'processing') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      const res = await fetch(`${url}/extract`, { method: 'POST', body: body(), headers: { authorization: `Bearer ${token}` } });
      const j = (await res.json()) as { cache_hit: boolean };
      times.push(performance.now() - s);
      if (!j.cache_hit) throw new Error('expected a cache hit');
    }
    times.sort((a, b) => a - b);
    console.log(`\ncache hit at the service (POST /extract of a processed 33 KB page, 200 sequential, client-measured incl. multipart): p50 ${times[100]!.toFixed(2)} ms, p95 ${times[190]!.toFixed(2)} ms`);
  } finally {
    await built.stop?.();
    await built.app.close();
    await db.close?.();
  }
}
