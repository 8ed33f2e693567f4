// `npm run bench -- scanner [files]`: the compliance scanner's engine over a generated repository
// of 10,000 files (default) with 50 rules (45 regular expressions, 5 CEL rules over lines and
// package.json), beside `git grep` of the same 45 expressions over the same files in the same
// run; then CEL rule evaluations per CPU-second. Prints wall time and CPU time (the machine is
// shared: CPU time per op is the steadier figure). Measures; never passes or fails.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileCel } from '../subgraphs/compliance-scanner/cel-rules';
import { readRepository } from '../subgraphs/compliance-scanner/repository-reader';
import { compilePack } from '../subgraphs/compliance-scanner/scanner-pack';
import { runPack } from '../subgraphs/compliance-scanner/scan-engine';

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];

function generate(root: string, files: number): void {
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `pkg${i % 100}`, `mod${i % 10}`);
    fs.mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    for (let l = 0; l < 40; l++) {
      const w = WORDS[(i + l) % WORDS.length]!;
      lines.push(
        l % 17 === 0
          ? `const ${w}${l} = process.env.${w.toUpperCase()}; // TODO-${i}`
          : `export function ${w}${l}(x: number) { return x * ${l}; }`,
      );
    }
    if (i % 97 === 0) lines.push('const y = eval(input);');
    fs.writeFileSync(path.join(dir, `file${i}.ts`), lines.join('\n') + '\n');
  }
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'bench', dependencies: { a: '^1.0.0' } }));
}

function pack() {
  const base = { severity: 'low', description: 'bench', remediation: 'bench', controls: ['cm-2'], files: ['**/*.ts'] };
  const regexes = Array.from({ length: 45 }, (_, i) => `${WORDS[i % 10]}${i}\\(x: number\\)|TODO-${i}\\b`);
  const rules: Record<string, unknown>[] = regexes.map((pattern, i) => ({
    ...base,
    id: `re.${i}`,
    input: 'lines',
    pattern,
  }));
  rules.push(
    { ...base, id: 'cel.eval', input: 'lines', cel: "file.lines.filter(l, l.text.contains('eval('))" },
    { ...base, id: 'cel.env', input: 'lines', cel: "file.lines.filter(l, l.text.contains('process.env.KAPPA'))" },
    { ...base, id: 'cel.long', input: 'lines', cel: 'file.lines.filter(l, size(l.text) > 200)' },
    { ...base, id: 'cel.count', input: 'lines', cel: 'size(file.lines) > 5000' },
    {
      ...base,
      id: 'cel.pkg',
      input: 'package_json',
      files: ['package.json'],
      cel: "'dependencies' in file ? file.dependencies.filter(k, file.dependencies[k].startsWith('^')) : []",
    },
  );
  return { pack: { metadata: { pack_id: 'bench', version: '1.0.0', name: 'bench' }, rules }, regexes };
}

/**
 * CPU time (ms) of the children this process has waited for (Linux: /proc/self/stat cutime +
 * cstime, in clock ticks of 10 ms), so `git grep` is measured in CPU time as the scanner is: on a
 * shared machine wall time mostly measures the other tenants. NaN where /proc is absent.
 */
function childrenCpuMs(): number {
  try {
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return NaN;
  }
}

const cpuMs = (start: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(start);
  return (u.user + u.system) / 1000;
};

export async function run(args: string[]): Promise<void> {
  const files = Number(args[0] ?? 10_000);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'scanner-bench-'));
  try {
    generate(root, files);
    const { pack: doc, regexes } = pack();
    const compiled = compilePack(doc);
    console.log(
      `machine: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
    );
    // A warm-up pass (file cache, JIT), then the measured one.
    runPack(compiled, 't', {
      kind: 'repository',
      files: (await readRepository(root, ['**/*'], { maxFileBytes: 1 << 20, maxFiles: files + 10 })).files,
    });
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const read = await readRepository(root, [...new Set(compiled.rules.flatMap((r) => r.globs))], {
      maxFileBytes: 1 << 20,
      maxFiles: files + 10,
    });
    const result = runPack(compiled, 't', { kind: 'repository', files: read.files });
    const scanMs = performance.now() - t0;
    const scanCpu = cpuMs(c0);
    console.log(
      `scanner: ${read.files.length} files, ${compiled.rules.length} rules, ${result.matches.length} matches, ${result.errors.length} errors: ` +
        `${scanMs.toFixed(0)} ms wall (${((read.files.length / scanMs) * 1000).toFixed(0)} files/s), ${scanCpu.toFixed(0)} ms CPU (${((read.files.length / scanCpu) * 1000).toFixed(0)} files per CPU-second)`,
    );

    execFileSync('git', ['init', '-q'], { cwd: root });
    execFileSync('git', ['add', '-A'], { cwd: root });
    const grepArgs = ['grep', '-c', '-E', ...regexes.flatMap((r) => ['-e', r]), '--', '*.ts'];
    try {
      execFileSync('git', grepArgs, { cwd: root, stdio: 'ignore' });
    } catch {
      // exit 1 is "no match"
    }
    const g0 = performance.now();
    const gc0 = childrenCpuMs();
    try {
      execFileSync('git', grepArgs, { cwd: root, stdio: 'ignore', maxBuffer: 1 << 28 });
    } catch {
      // as above
    }
    const grepMs = performance.now() - g0;
    const grepCpu = childrenCpuMs() - gc0;
    console.log(
      `git grep (same 45 expressions, same files): ${grepMs.toFixed(0)} ms wall (${((files / grepMs) * 1000).toFixed(0)} files/s), ` +
        `${grepCpu.toFixed(0)} ms CPU (${((files / grepCpu) * 1000).toFixed(0)} files per CPU-second); ` +
        `scanner/git grep files/s ratio ${(grepMs / scanMs).toFixed(2)} wall, ${(grepCpu / scanCpu).toFixed(2)} CPU`,
    );

    const rule = compileCel("item.cmd == 'FROM' && (item.value.contains(':latest') || !item.value.contains(':'))");
    const items = Array.from({ length: 1000 }, (_, i) => ({
      cmd: i % 3 === 0 ? 'FROM' : 'RUN',
      value: i % 2 ? 'node:22' : 'node:latest',
      line: i,
    }));
    for (let i = 0; i < 20_000; i++) rule({ item: items[i % 1000] });
    const n = 300_000;
    const e0 = process.cpuUsage();
    const w0 = performance.now();
    let hits = 0;
    for (let i = 0; i < n; i++) if (rule({ item: items[i % 1000] }) === true) hits++;
    const evalCpu = cpuMs(e0);
    const evalWall = performance.now() - w0;
    console.log(
      `CEL: ${n} evaluations (${hits} true): ${((n / evalCpu) * 1000).toFixed(0)} per CPU-second, ${((n / evalWall) * 1000).toFixed(0)} per wall second (one core)`,
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
