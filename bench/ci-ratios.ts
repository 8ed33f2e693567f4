// `npm run bench -- ci-ratios` (CI's performance check, issue 35 item 9; needs DATABASE_URL):
// runs bench/platform-ratios in a child process, prints its ratios beside the baseline committed
// in docs/benchmarks.md (the `ci-ratios baseline:` line: higher-is-better ratios only), and
// exits 1 only when one has fallen by more than half against it. Ratios, not rates: both numbers of a ratio are taken in the same
// run on the same machine, so a slower or busier CI machine moves both. Not a timed test.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

type Ratios = Record<string, number>;

const BASELINE_LINE = /ci-ratios baseline: (\{.*\})/;
/** A ratio may fall to half its baseline before the check fails (noise on a shared 2-core runner). */
const ALLOWED_FALL = 0.5;

function committedBaseline(): Ratios | undefined {
  const doc = path.join(__dirname, '..', '..', 'docs', 'benchmarks.md');
  const m = BASELINE_LINE.exec(fs.readFileSync(doc, 'utf8'));
  return m ? (JSON.parse(m[1]!) as Ratios) : undefined;
}

export async function run(args: string[]): Promise<void> {
  const seconds = args.find((a) => /^\d+$/.test(a)) ?? '5';
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(__dirname, 'run.js'), 'platform-ratios', seconds, '--json'],
    { maxBuffer: 16 * 1024 * 1024, env: process.env },
  );
  const lines = stdout.trim().split('\n');
  for (const line of lines.slice(0, -1)) console.log(line);
  const measured = JSON.parse(lines.at(-1)!) as Ratios;
  const baseline = committedBaseline();
  if (!baseline) {
    console.log('ci-ratios: no baseline line in docs/benchmarks.md; ratios printed, nothing compared');
    return;
  }
  const fallen: string[] = [];
  for (const [name, base] of Object.entries(baseline)) {
    const now = measured[name];
    if (typeof now !== 'number') continue;
    const floor = base * ALLOWED_FALL;
    const verdict = now < floor ? 'FELL BY MORE THAN HALF' : 'ok';
    console.log(
      `${name.padEnd(26)} ${now.toFixed(3).padStart(7)} (baseline ${base.toFixed(3)}, floor ${floor.toFixed(3)}) ${verdict}`,
    );
    if (now < floor) fallen.push(name);
  }
  if (fallen.length > 0) {
    throw new Error(`ci-ratios: ${fallen.join(', ')} fell by more than half against docs/benchmarks.md`);
  }
}
