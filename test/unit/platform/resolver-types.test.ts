// Issue 24 item 4: every subgraph's resolver types are generated from its SDL and checked in up to
// date, and its resolvers are checked against them. The generator runs in memory here, so an SDL
// edit without `npm run codegen` fails this suite as it fails CI's codegen:check.
import fs from 'node:fs';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const codegen = require('../../../scripts/codegen/generate.cjs') as {
  targets: { name: string }[];
  generate(target: { name: string }): Promise<string>;
};

const root = path.resolve(__dirname, '../../..');
const subgraphs = fs
  .readdirSync(path.join(root, 'subgraphs'), { withFileTypes: true })
  .filter((e) => e.isDirectory() && fs.existsSync(path.join(root, 'subgraphs', e.name, 'schema.graphql')))
  .map((e) => e.name)
  .sort();

it('every subgraph with an SDL is a codegen target', () => {
  expect(subgraphs.length).toBeGreaterThanOrEqual(10);
  expect(codegen.targets.map((t) => t.name).sort()).toEqual(subgraphs);
});

describe.each(subgraphs)('%s', (name) => {
  const dir = path.join(root, 'subgraphs', name);

  it('has a resolvers.generated.ts up to date with its schema.graphql', async () => {
    const target = codegen.targets.find((t) => t.name === name)!;
    const file = path.join(dir, 'resolvers.generated.ts');
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(await codegen.generate(target));
  });

  it('checks its resolvers against the generated Resolvers type', () => {
    const text = fs.readFileSync(path.join(dir, 'resolvers.ts'), 'utf8');
    expect(text).toMatch(/^import type \{[^}]*\bResolvers\b[^}]*\} from '\.\/resolvers\.generated';$/m);
    expect(text).toMatch(/\}\s+satisfies Resolvers;\s*$/);
  });
});
