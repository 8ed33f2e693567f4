// The layering holds: no chain of runtime imports leaves a module and comes back to it, and in
// particular no cycle runs between top-level folders (router/ and rest-compat/ used to import
// each other). Type-only imports are erased at build time and do not count.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
const FOLDERS = ['platform', 'subgraphs', 'rest-compat', 'router', 'launcher'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
}

function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/^import\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm), ...text.matchAll(/^export\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => m[1]!);
  return specs.map((s) => resolve(file, s)).filter((f): f is string => f !== undefined);
}

it('no runtime import cycle among the platform\'s modules', () => {
  const files = FOLDERS.flatMap((f) => sources(path.join(root, f)));
  const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
  // The scan sees the real import graph (a broken pattern would find no edges and no cycles).
  expect([...graph.values()].flat().length).toBeGreaterThan(150);
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'visiting') cycles.push([...stack.slice(stack.indexOf(next)), next].map((f) => path.relative(root, f)).join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  expect(cycles).toEqual([]);
});
