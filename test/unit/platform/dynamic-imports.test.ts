// No dual-package hazard by dynamic import: in dist/ (CommonJS, tsc module node20) an
// `import('pkg')` stays a real ES import and loads the package's ES build, while every static
// import is a require of its CommonJS build, so a package with both builds would be loaded twice,
// two copies of its classes (GraphQL uploads failed that way on the built platform only; jest
// compiles everything to CommonJS and never sees it). So a package is imported statically, or
// lazily with require; import() is left only where the ES file is known to be one instance
// (docs/decisions.md, "Dual-package hazards"). A quick guard without a build; the dist suite
// (test/dist) and scripts/module-audit.cjs check the running platform itself.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
/** What tsconfig.build.json compiles (generated/ is Prisma's own output). */
const FOLDERS = ['platform', 'subgraphs', 'rest-compat', 'router', 'services', 'launcher', 'bench'];

/** file (relative) -> specifier: an import() that is known to load one instance, and why. */
const ALLOWED: Record<string, Record<string, string>> = {
  // pg's ES entry (esm/index.mjs) only re-exports its CommonJS build: the same classes.
  'bench/workflow.ts': { pg: 'ES wrapper of the CommonJS build' },
};

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Runtime `import('<bare specifier>')` calls; `typeof import(...)` and `import('x').Type` are types. */
function dynamicImports(text: string): string[] {
  return [...text.matchAll(/(?<!typeof\s)\bimport\(\s*'([^'.][^']*)'\s*\)(?!\.)/g)]
    .map((m) => m[1]!)
    .filter((s) => !s.startsWith('node:'));
}

it('the pattern finds a dynamic import of a package, and not a type or a builtin', () => {
  expect(dynamicImports("const { x } = await import('graphql-upload-ts');")).toEqual(['graphql-upload-ts']);
  expect(
    dynamicImports(
      "const m = require('a') as typeof import('a'); let r: import('fastify').FastifyReply; await import('node:stream');",
    ),
  ).toEqual([]);
});

it('no import() of a package in the built folders, except the known single-instance ones', () => {
  const found: string[] = [];
  for (const file of FOLDERS.flatMap((f) => sources(path.join(root, f)))) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    for (const spec of dynamicImports(fs.readFileSync(file, 'utf8'))) {
      if (!ALLOWED[rel]?.[spec]) found.push(`${rel}: import('${spec}')`);
    }
  }
  expect(found).toEqual([]);
});
