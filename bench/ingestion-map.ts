// The CPU a plain CSV batch's mapping costs this process, without a database (issue 32: on the
// whole-batch path this process's mapping, not the server's COPY, decides a push's time, and on a
// shared machine rows/s are noise). The bench's file (bench/ingestion.ts) is read by
// csv-copy-source.ts and mapped by csv-batch-rows.ts as a push maps it, each yielded run encoded to
// UTF-8 as pg-copy-streams encodes it, then the column checksums' digest. Prints the main thread's
// CPU µs a row for each of `--repeat` passes (the minimum is the figure to compare) and a SHA-256 of
// the staged text with the checksums, so that two trees' outputs can be compared byte for byte.
//   node dist/bench/run.js ingestion-map [rows] [--repeat N] [--tree <another tree's dist/>]
// `--tree` runs the other tree's modules on the same file in the same process's way (A/B).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeCsv, definition } from './ingestion';
import { mainThreadCpuSeconds } from './main-thread-cpu.support';
import type { PipelineDefinition } from '../subgraphs/ingestion/pipeline.types';

type Modules = {
  compileNormaliser: typeof import('../subgraphs/ingestion/normaliser').compileNormaliser;
  ColumnChecksums: typeof import('../subgraphs/ingestion/column-checksums').ColumnChecksums;
  csvCopySource: typeof import('../subgraphs/ingestion/csv-copy-source').csvCopySource;
  csvBatchRows: typeof import('../subgraphs/ingestion/csv-batch-rows').csvBatchRows;
  piiScrubber: typeof import('../subgraphs/ingestion/pii-scrubber').piiScrubber;
};

async function load(dist: string): Promise<Modules> {
  const at = (m: string) => import(path.join(dist, 'subgraphs/ingestion', m)) as Promise<Record<string, unknown>>;
  const parts = await Promise.all(
    ['normaliser.js', 'column-checksums.js', 'csv-copy-source.js', 'csv-batch-rows.js', 'pii-scrubber.js'].map(at),
  );
  return Object.assign({}, ...parts) as Modules;
}

async function pass(m: Modules, file: string) {
  const def = definition('bench-map', false) as unknown as PipelineDefinition;
  const normaliser = m.compileNormaliser(def);
  const scrub = m.piiScrubber(def.pii?.fields, Buffer.alloc(32));
  const limits = { maxBytes: 1 << 30, maxRecordBytes: 1024 * 1024, maxColumns: 2000 };
  const open = () => fs.createReadStream(file, { highWaterMark: 256 * 1024 });
  const head = Buffer.alloc(64 * 1024);
  const fd = fs.openSync(file, 'r');
  const got = fs.readSync(fd, head, 0, head.length, 0);
  fs.closeSync(fd);
  const csv = m.csvCopySource(open, head.subarray(0, got), def.format, limits);
  if (!csv) throw new Error('the bench file is not taken whole');
  const checksums = new m.ColumnChecksums();
  const out = createHash('sha256');
  let bytes = 0;
  const cpu0 = mainThreadCpuSeconds();
  const t0 = process.cpuUsage();
  for await (const text of m.csvBatchRows(csv, normaliser, scrub, checksums)) {
    // What pg-copy-streams' Writable does with a string chunk.
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    bytes += buf.length;
    out.update(buf);
  }
  const digest = checksums.digest();
  const t1 = process.cpuUsage(t0);
  const cpu1 = mainThreadCpuSeconds();
  // The output digest is outside the timing but equal work for both trees; it is taken after.
  return {
    mainCpu: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0,
    processCpu: (t1.user + t1.system) / 1e6,
    bytes,
    identity: createHash('sha256').update(out.digest('hex')).update(JSON.stringify(digest)).digest('hex'),
  };
}

export async function run(args: string[]): Promise<void> {
  const rows = Number(args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--')) ?? 1_000_000);
  const repeat = Number(args[args.indexOf('--repeat') + 1] ?? 5) || 5;
  const treeAt = args.indexOf('--tree');
  const dist = treeAt >= 0 ? path.resolve(args[treeAt + 1]!) : path.resolve(__dirname, '..');
  const m = await load(dist);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ingestion-map-'));
  const file = path.join(dir, 'customers.csv');
  try {
    writeCsv(file, rows);
    console.log(
      `# ingestion-map: ${dist}, ${rows.toLocaleString('en-US')} rows, load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
    let best = Infinity;
    for (let i = 0; i < (repeat > 0 ? repeat : 5); i++) {
      const r = await pass(m, file);
      const us = ((r.mainCpu ?? r.processCpu) * 1e6) / rows;
      best = Math.min(best, us);
      console.log(
        `pass ${i + 1}: main thread ${us.toFixed(3)} µs a row, process ${((r.processCpu * 1e6) / rows).toFixed(3)} µs a row, ${r.bytes} bytes, output ${r.identity.slice(0, 16)}`,
      );
    }
    console.log(`min: ${best.toFixed(3)} µs a row (main thread CPU)`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
