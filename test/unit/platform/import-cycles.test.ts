// The layering holds (docs/decisions.md, "Folders by rank"):
// - no folder imports a folder above it. Ranks: generated -1; platform 0 (the kernel); subgraphs 1
//   (domain and GraphQL door); rest-compat and router 2 (the REST door over a subgraph's domain,
//   and the router, which knows services only by the supergraph and the registry's manifests, so
//   it imports no subgraph); services 3 (assembly); launcher 4. Type imports count too: a type
//   pointing upward is the same wrong arrow, only erased at build time. bench/ and test/ sit
//   outside the rule (they may import anything);
// - no loop between folders (each top-level folder; under subgraphs/ and rest-compat/, each
//   service's folder), type imports included;
// - no chain of runtime imports leaves a module and comes back to it.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../../..');

const RANK: Record<string, number> = {
  generated: -1,
  platform: 0,
  subgraphs: 1,
  'rest-compat': 2,
  router: 2,
  services: 3,
  launcher: 4,
};
/** Downward imports that are still wrong: the router serves any supergraph, so it knows no service's code. */
const FORBIDDEN: Record<string, string[]> = { router: ['subgraphs', 'rest-compat'] };
/**
 * Top-level folders the rule does not apply to (they may import any ranked folder), and the
 * console, a browser app on the other side of the wire: it imports none of the server's code
 * (the test below), only its generated GraphQL types.
 */
const OUTSIDE = new Set(['bench', 'test', 'scripts', 'prisma', 'deploy', 'docs', 'dist', 'node_modules', 'console']);
/** The folders scanned (generated/ is code written by tools and imports nothing of ours). */
const SCANNED = Object.keys(RANK).filter((f) => f !== 'generated');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

function resolve(from: string, spec: string): string | undefined {
  const base = path.resolve(path.dirname(from), spec);
  return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
}

/** Every relative import of a file, runtime or type-only: import/export ... from, import('...'), require('...'). */
function allImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) => path.resolve(path.dirname(file), s));
}

function runtimeImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [
    ...text.matchAll(/^import\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm),
    ...text.matchAll(/^export\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm),
  ].map((m) => m[1]!);
  return specs.map((s) => resolve(file, s)).filter((f): f is string => f !== undefined);
}

/** The top-level folder of a path inside the project. */
function folderOf(file: string): string {
  return path.relative(root, file).split(path.sep)[0]!;
}

/** The unit of the folder-loop check: a service's folder under subgraphs/ and rest-compat/, else the top-level folder. */
function unitOf(file: string): string {
  const parts = path.relative(root, file).split(path.sep);
  return (parts[0] === 'subgraphs' || parts[0] === 'rest-compat') && parts.length > 2
    ? `${parts[0]}/${parts[1]}`
    : parts[0]!;
}

/** Every loop in a directed graph, each as the path that closes it. */
function cyclesOf(graph: Map<string, Iterable<string>>, label: (node: string) => string = (n) => n): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'visiting')
        cycles.push([...stack.slice(stack.indexOf(next)), next].map(label).join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

const files = SCANNED.flatMap((f) => sources(path.join(root, f)));
const imports = new Map(files.map((f) => [f, allImports(f)]));

it('every top-level folder holding TypeScript has a rank or is named outside the rule', () => {
  const holdsTs = (dir: string): boolean =>
    fs
      .readdirSync(dir, { withFileTypes: true })
      .some((e) =>
        e.isDirectory() ? e.name !== 'node_modules' && holdsTs(path.join(dir, e.name)) : e.name.endsWith('.ts'),
      );
  const unranked = fs
    .readdirSync(root, { withFileTypes: true })
    .filter(
      (e) =>
        e.isDirectory() &&
        !e.name.startsWith('.') &&
        !OUTSIDE.has(e.name) &&
        !(e.name in RANK) &&
        holdsTs(path.join(root, e.name)),
    )
    .map((e) => e.name);
  expect(unranked).toEqual([]);
});

it('no folder imports a folder above it (type imports included)', () => {
  // The scan sees the real import graph (a broken parser would find no edges and no violations).
  expect([...imports.values()].flat().length).toBeGreaterThan(1000);
  const crossings = [...imports]
    .flatMap(([file, targets]) => targets.map((t) => ({ file, from: folderOf(file), to: folderOf(t) })))
    .filter((e) => e.from !== e.to);
  // Each allowed kind of crossing is present, so a rank table that forbade everything would fail here.
  expect(crossings.some((e) => e.from === 'services' && e.to === 'rest-compat')).toBe(true);
  expect(crossings.some((e) => e.from === 'rest-compat' && e.to === 'subgraphs')).toBe(true);
  const wrong = crossings
    .filter((e) => !(e.to in RANK) || RANK[e.to]! >= RANK[e.from]! || FORBIDDEN[e.from]?.includes(e.to))
    .map((e) => `${path.relative(root, e.file)} imports ${e.to}/`);
  expect(wrong).toEqual([]);
});

it('no loop between folders (type imports included)', () => {
  const graph = new Map<string, Set<string>>();
  for (const [file, targets] of imports) {
    const from = unitOf(file);
    if (!graph.has(from)) graph.set(from, new Set());
    for (const t of targets) if (unitOf(t) !== from) graph.get(from)!.add(unitOf(t));
  }
  // Every service's subgraph and REST door is a node of its own.
  expect([...graph.keys()].filter((u) => u.startsWith('subgraphs/')).length).toBeGreaterThanOrEqual(10);
  expect(cyclesOf(graph)).toEqual([]);
});

it("no runtime import cycle among the platform's modules", () => {
  const graph = new Map(files.map((f) => [f, runtimeImports(f)]));
  expect([...graph.values()].flat().length).toBeGreaterThan(150);
  expect(cyclesOf(graph, (f) => path.relative(root, f))).toEqual([]);
});

it('the loop finder finds a loop (the checks above would pass vacuously otherwise)', () => {
  expect(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
  ).toEqual(['a -> b -> c -> a']);
});

it("the console imports nothing from the server's folders (it speaks GraphQL and HTTP only)", () => {
  const dir = path.join(root, 'console/src');
  const files = fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => path.join(e.parentPath, e.name));
  expect(files.length).toBeGreaterThan(5);
  const leaving = files.flatMap((f) =>
    [...fs.readFileSync(f, 'utf8').matchAll(/from\s+'(\.[^']+)'/g)]
      .map((m) => path.resolve(path.dirname(f), m[1]!))
      .filter((target) => !target.startsWith(path.join(root, 'console') + path.sep))
      .map((target) => `${path.relative(root, f)} -> ${path.relative(root, target)}`),
  );
  expect(leaving).toEqual([]);
});
