// scripts/dist-check.cjs: a process started from dist/ refuses, with a clear message, a dist/ that
// is missing or older than the sources; a fresh one passes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { BUILD_MARK, distProblem } = require('../../../scripts/dist-check.cjs') as {
  BUILD_MARK: string;
  distProblem(base?: string): string | undefined;
};

function tree(): string {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-check-'));
  fs.mkdirSync(path.join(base, 'platform'), { recursive: true });
  fs.writeFileSync(path.join(base, 'platform', 'a.ts'), 'export {};\n');
  return base;
}

function build(base: string, at: Date): void {
  fs.mkdirSync(path.dirname(path.join(base, BUILD_MARK)), { recursive: true });
  fs.writeFileSync(path.join(base, BUILD_MARK), '');
  fs.utimesSync(path.join(base, BUILD_MARK), at, at);
}

it('reports a missing dist/', () => {
  expect(distProblem(tree())).toMatch(/missing: run `npm run build`/);
});

it('reports a dist/ older than a source, naming the source', () => {
  const base = tree();
  build(base, new Date(Date.now() - 60_000));
  expect(distProblem(base)).toMatch(/older than the sources \(platform[/\\]a\.ts changed/);
});

it('accepts a dist/ built after every source', () => {
  const base = tree();
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(path.join(base, 'platform', 'a.ts'), old, old);
  build(base, new Date());
  expect(distProblem(base)).toBeUndefined();
});

it('accepts dist/ alone where the sources are not shipped', () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'dist-check-'));
  build(base, new Date());
  expect(distProblem(base)).toBeUndefined();
});
