// `npm run bench -- ocr [perClass]`: the OCR service next to Debian's native `tesseract` CLI on
// the same generated business pages (test/fixtures/ocr/scanned-pages.ts: invoices, purchase
// orders, statements and letters in US/UK/EU styles), `perClass` pages per class (grades 0-3 and
// rotated 3-7°) from the tuning seeds and as many from the held-out seeds. Printed, for both:
// - order-free CER per class and split: the edit distance between the sorted words of the truth
//   and of the reading, over the truth's length (so column order does not count);
// - invoice field accuracy: number, invoice date, due date, total, vendor and customer, exact
//   after normalising (ISO dates, plain decimals, names compared on letters and digits);
// - pages/s: ours as the service does it, 4 uploads at a time (POST /extract, then the job
//   polled); the CLI in its best configuration, one process per core with OMP_THREAD_LIMIT=1;
// - cache hits: POST /extract of a processed page, client-measured, and the store's statement.
// Measures only; the machine is shared, so the ratios in one run are what count.
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
import { ocrService } from '../services/ocr';
import { extractFields } from '../subgraphs/ocr/field-extractor';
import { createOcrModule } from '../subgraphs/ocr/ocr.module';
import { prismaOcrStore } from '../subgraphs/ocr/ocr.store';
import { scannedSet, type ScannedPage, type SetClass, type TruthFields } from '../test/fixtures/ocr/scanned-pages';

type Page = ScannedPage & { set: SetClass; split: 'tune' | 'held_out' };

function editDistance(a: string, b: string): number {
  let prev = new Uint32Array(b.length + 1).map((_, j) => j);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ca === b.charCodeAt(j - 1) ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

const bag = (s: string) => s.split(/\s+/).filter(Boolean).sort().join(' ');
/** Order-free character error rate. */
export const cer = (truth: string, read: string) =>
  editDistance(bag(truth), bag(read)) / Math.max(1, bag(truth).length);

const FIELDS = ['invoice_number', 'invoice_date', 'due_date', 'total', 'vendor_name', 'customer_name'] as const;
const letters = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Which of the invoice's six fields the reading gets exactly, after normalising. */
function fieldHits(truth: TruthFields, text: string): Record<string, boolean> {
  const f = extractFields(text, 1) as Record<string, { value: string; normalized?: string } | undefined>;
  const got = (k: string) =>
    k.endsWith('date') ? f[k]?.normalized : k === 'total' ? f[k]?.value : f[k] ? letters(f[k]!.value) : undefined;
  const want = (k: (typeof FIELDS)[number]) => (k.endsWith('date') || k === 'total' ? truth[k] : letters(truth[k]!));
  return Object.fromEntries(FIELDS.map((k) => [k, got(k) === want(k)]));
}

async function inParallel<T, R>(items: T[], workers: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await work(items[i]!);
      }
    }),
  );
  return out;
}

function nativeTesseract(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      '/usr/bin/tesseract',
      [file, 'stdout', '-l', 'eng'],
      { env: { ...process.env, OMP_THREAD_LIMIT: '1' }, maxBuffer: 1 << 22 },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

const pct = (x: number) => `${(100 * x).toFixed(2)}%`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function run(args: string[]): Promise<void> {
  const perClass = Number(args[0] ?? 3);
  const cores = os.availableParallelism?.() ?? os.cpus().length;
  const pages: Page[] = [
    ...scannedSet(perClass, 'tune').map((p) => ({ ...p, split: 'tune' as const })),
    ...scannedSet(perClass, 'held_out').map((p) => ({ ...p, split: 'held_out' as const })),
  ];
  console.log(
    `OCR bench (Node ${process.version}, ${cores} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}): ${pages.length} generated 1240 px-wide business pages, ${perClass} per class (grade 0-3, rotated 3-7°) from the tuning seeds and ${perClass} from the held-out seeds`,
  );

  // Ours: the service itself (PGlite in memory), 4 uploads at a time, each followed to its end.
  // The native CLI on the same bytes: one process per core, OpenMP limited to one thread each.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocr-bench-'));
  const files = pages.map((p, i) => {
    const f = path.join(dir, `p${i}.${p.mimeType === 'image/png' ? 'png' : 'jpg'}`);
    fs.writeFileSync(f, p.bytes);
    return f;
  });
  const native: string[] = [];
  let nativeSeconds = 0;
  // OCR_LANG_DATA / OCR_LANG_PATH pass through, to compare the models (docs/ocr.md).
  const env: Record<string, string> = {
    LOG_LEVEL: 'ERROR',
    JWT_SECRET_KEY: 'bench-secret-that-is-long-enough-for-hs256-0123456789',
  };
  for (const k of ['OCR_LANG_DATA', 'OCR_LANG_PATH']) if (process.env[k]) env[k] = process.env[k]!;
  console.log(
    `model: ${env.OCR_LANG_PATH ? `${env.OCR_LANG_PATH}/eng.traineddata` : `@tesseract.js-data/eng ${env.OCR_LANG_DATA ?? '4.0.0_best_int'}`}`,
  );
  const config = loadPlatformConfig(env);
  const db = await openDatabase({ pgliteDir: 'memory://', poolSize: 5 });
  const built = await ocrService.build({
    config,
    db,
    env,
    bus: createMemoryEventBus(),
    logger: createLogger('ERROR', 'ocr'),
    registry: registryOf(),
  });
  await built.app.listen({ port: 0, host: '127.0.0.1' });
  await built.start?.();
  const ours: string[] = [];
  let oursSeconds = 0;
  const hitTimes: number[] = [];
  const storeTimes: number[] = [];
  const domainTimes: number[] = [];
  try {
    const url = `http://127.0.0.1:${(built.app.server.address() as AddressInfo).port}`;
    const token = await new AccessTokens(config.auth.jwtSecret, 3600).issue({
      username: 'bench',
      tenantId: 'bench',
      roles: ['user'],
      scopes: ['read', 'write'],
    });
    const auth = { authorization: `Bearer ${token}` };
    const upload = async (bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'page');
      const res = await fetch(`${url}/extract`, { method: 'POST', body: form, headers: auth });
      return (await res.json()) as {
        job_id: string;
        status: string;
        cache_hit: boolean;
        extracted_text: string | null;
      };
    };
    const extract = async (bytes: Buffer) => {
      let job = await upload(bytes);
      while (job.status === 'pending' || job.status === 'processing') {
        await new Promise((r) => setTimeout(r, 250)); // as often as the progress subscription looks
        job = (await (await fetch(`${url}/jobs/${job.job_id}`, { headers: auth })).json()) as typeof job;
      }
      return job.extracted_text ?? '';
    };
    await extract(scannedSet(1, 'tune')[1]!.bytes); // warm: workers, threads, decoder
    await nativeTesseract(files[0]!); // warm the page cache
    // The machine is shared and its load drifts: the two engines take turns, a quarter of the
    // pages at a time, so both see the same conditions.
    const quarter = Math.ceil(pages.length / 4);
    for (let from = 0; from < pages.length; from += quarter) {
      const chunk = pages.slice(from, from + quarter);
      let t = performance.now();
      ours.push(...(await inParallel(chunk, 4, (p) => extract(p.bytes))));
      oursSeconds += (performance.now() - t) / 1000;
      t = performance.now();
      native.push(...(await inParallel(files.slice(from, from + quarter), cores, nativeTesseract)));
      nativeSeconds += (performance.now() - t) / 1000;
    }

    // Cache hits: a processed page uploaded again, 200 times in sequence.
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      const j = await upload(pages[0]!.bytes);
      hitTimes.push(performance.now() - s);
      if (!j.cache_hit) throw new Error('expected a cache hit');
    }
    // The domain's part (OcrService.extract: hash, sniff, the hit statement), without HTTP.
    const mod = createOcrModule({ db, env });
    const caller = {
      auth: { username: 'bench', tenantId: 'bench', roles: ['user'], scopes: ['read', 'write'], isService: false },
      correlationId: 'bench',
    };
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      const job = await mod.ocr.extract(caller, { bytes: pages[0]!.bytes, filename: null });
      domainTimes.push(performance.now() - s);
      if (!job.cacheHit) throw new Error('expected a cache hit');
    }
    await mod.engine.stop();
    await mod.preprocess.stop();
    // The store's part alone: the one statement that answers a hit.
    const store = prismaOcrStore(db.prisma);
    const hash = (await import('node:crypto')).createHash('sha256').update(pages[0]!.bytes).digest('hex');
    for (let i = 0; i < 200; i++) {
      const s = performance.now();
      const job = await store.answerFromCache(
        {
          tenantId: 'bench',
          userId: 'bench',
          documentHash: hash,
          filename: null,
          mimeType: 'image/png',
          status: 'completed',
          pageCount: 0,
          indexInRag: false,
        },
        { userId: 'bench', correlationId: null, idempotencyKey: `bench-${i}-${Date.now()}` },
      );
      storeTimes.push(performance.now() - s);
      if (!job) throw new Error('expected a cache hit');
    }
  } finally {
    await built.stop?.();
    await built.app.close();
    await db.close?.();
  }

  fs.rmSync(dir, { recursive: true, force: true });

  console.log('\n| order-free CER | split | ours | native CLI | ours / CLI |\n|---|---|---|---|---|');
  for (const split of ['tune', 'held_out'] as const) {
    for (const set of ['grade0', 'grade1', 'grade2', 'grade3', 'rotated', 'noisy (grades 1-3)'] as const) {
      const idx = pages
        .map((p, i) => ({ p, i }))
        .filter(
          ({ p }) => p.split === split && (set === 'noisy (grades 1-3)' ? /grade[123]/.test(p.set) : p.set === set),
        )
        .map(({ i }) => i);
      const mean = (texts: string[]) => idx.reduce((a, i) => a + cer(pages[i]!.text, texts[i]!), 0) / idx.length;
      console.log(
        `| ${set} | ${split} | ${pct(mean(ours))} | ${pct(mean(native))} | ${(mean(ours) / Math.max(1e-9, mean(native))).toFixed(2)} |`,
      );
    }
  }

  const invoices = pages.map((p, i) => ({ p, i })).filter(({ p }) => p.kind === 'invoice');
  console.log(
    `\n| invoice fields exact (${invoices.length} invoices x ${FIELDS.length}) | split | ours | native CLI text + our extractor |\n|---|---|---|---|`,
  );
  for (const split of ['tune', 'held_out', 'all'] as const) {
    const rows = invoices.filter(({ p }) => split === 'all' || p.split === split);
    const score = (texts: string[]) => {
      const per: Record<string, number> = {};
      let ok = 0;
      for (const { p, i } of rows)
        for (const [k, hit] of Object.entries(fieldHits(p.fields, texts[i]!))) {
          per[k] = (per[k] ?? 0) + (hit ? 1 : 0);
          ok += hit ? 1 : 0;
        }
      return { ok, n: rows.length * FIELDS.length, per };
    };
    const o = score(ours);
    const n = score(native);
    console.log(`| all six | ${split} | ${o.ok}/${o.n} ${pct(o.ok / o.n)} | ${n.ok}/${n.n} ${pct(n.ok / n.n)} |`);
    if (split === 'all')
      for (const k of FIELDS) console.log(`| ${k} | all | ${o.per[k]}/${rows.length} | ${n.per[k]}/${rows.length} |`);
  }

  const oursRate = pages.length / oursSeconds;
  const nativeRate = pages.length / nativeSeconds;
  console.log(
    `\n| speed | ours (service, 4 uploads at a time, ${cores} tesseract.js workers) | native CLI (${cores} processes, OMP_THREAD_LIMIT=1) |\n|---|---|---|`,
  );
  console.log(`| pages/s | ${oursRate.toFixed(2)} | ${nativeRate.toFixed(2)} |`);
  console.log(`| ours / CLI | ${(oursRate / nativeRate).toFixed(2)} | |`);
  hitTimes.sort((a, b) => a - b);
  console.log(
    `\ncache hit, POST /extract of a processed page (${(pages[0]!.bytes.length / 1024).toFixed(0)} KB), 200 sequential, client-measured incl. multipart: p50 ${median(hitTimes).toFixed(2)} ms, p95 ${hitTimes[190]!.toFixed(2)} ms`,
  );
  console.log(
    `cache hit, the service's extract() without HTTP (SHA-256, sniff, the hit statement): p50 ${median(domainTimes).toFixed(2)} ms`,
  );
  console.log(`cache hit, the store's one statement alone (PGlite in memory): p50 ${median(storeTimes).toFixed(2)} ms`);
}
