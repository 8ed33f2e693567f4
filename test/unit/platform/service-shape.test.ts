// Every service has the shape docs/adding-a-service.md documents, with the same file names, so
// a reader who knows one service knows where everything is in the next. The list of services is
// the registry's: a new service is checked as soon as it is registered, and a subgraph folder
// that is not registered fails here too. The documentation's example (test/fixtures/notes, laid
// out as the repository is) is held to the same shape.
import fs from 'node:fs';
import path from 'node:path';
import { SERVICES } from '../../../launcher/registry';
import type { ServiceManifest } from '../../../platform/service';
import { notesService } from '../../fixtures/notes/services/notes';

const root = path.resolve(__dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');
const exists = (file: string) => fs.existsSync(path.join(root, file));
/** A file's text holds the pattern (the failure names the file and pattern, not the whole text). */
function expectIn(file: string, pattern: string): void {
  expect({ file, pattern, found: new RegExp(pattern).test(read(file)) }).toEqual({ file, pattern, found: true });
}

/** The names of the shape, as docs/adding-a-service.md states them (<svc> is the service's name, <X> its PascalCase). */
const SHAPE = [
  'services/<svc>.ts',
  'define<X>Service',
  'subgraphs/<svc>/',
  'schema.graphql',
  'resolvers.ts',
  'graphql.context.ts',
  '<X>GraphQLContext',
  '<x>Context',
  '<svc>.config.ts',
  'load<X>Config',
  '<svc>.module.ts',
  '<svc>.subscriptions.ts',
  '<svc>.audit.ts',
  'rest-compat/<svc>/',
  'index.ts',
  'register<X>Routes',
  '<svc>.schemas.ts',
];

/** A service's files under `base` (the repository, or the example's folder), and the PascalCase its define<X>Service export gives it. */
function shapeOf(s: ServiceManifest, base = '') {
  const at = (file: string) => path.join(base, file);
  const assembly = read(at(`services/${s.name}.ts`));
  const X = /export function define(\w+)Service\(/.exec(assembly)?.[1] ?? '';
  return { name: s.name, subgraph: s.subgraph, X, x: X.charAt(0).toLowerCase() + X.slice(1), assembly, at };
}

/** Every registered service with a subgraph. */
const services = SERVICES.filter((s) => s.subgraph).map((s) => shapeOf(s));

it('the documented shape is the one checked here', () => {
  const doc = read('docs/adding-a-service.md');
  expect(SHAPE.filter((entry) => !doc.includes(entry))).toEqual([]);
});

it('every subgraph folder belongs to a registered service, and every service with a subgraph has one', () => {
  const folders = fs
    .readdirSync(path.join(root, 'subgraphs'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  expect(folders).toEqual(services.map((s) => s.name).sort());
  expect(services.length).toBeGreaterThanOrEqual(10);
});

describe.each([...services, shapeOf(notesService, 'test/fixtures/notes')])(
  '$name',
  ({ name, subgraph, X, x, assembly, at }) => {
    const dir = at(`subgraphs/${name}`);
    const files = fs.readdirSync(path.join(root, dir));

    it('is assembled in services/<svc>.ts by define<X>Service(options), exported with its definition', () => {
      // X spells the service's name: ai-broker -> AiBroker, rulepack-registry -> RulePackRegistry.
      expect(X.toLowerCase()).toBe(name.replace(/-/g, ''));
      expectIn(at(`services/${name}.ts`), `export const ${x}Service: ServiceDefinition = define${X}Service\\(\\);`);
      expectIn(at(`services/${name}.ts`), `name: '${name}'`);
      expect(subgraph).toBe(`${dir}/schema.graphql`);
    });

    it('has the subgraph files: schema.graphql, resolvers, graphql.context.ts, <svc>.config.ts, <svc>.module.ts, and no index.ts', () => {
      const missing = ['schema.graphql', 'graphql.context.ts', `${name}.config.ts`, `${name}.module.ts`].filter(
        (f) => !files.includes(f),
      );
      if (!files.includes('resolvers.ts') && !files.includes('resolvers')) missing.push('resolvers.ts (or resolvers/)');
      expect(missing).toEqual([]);
      // The assembly lives in services/; an index.ts here would be a second front door.
      expect(files).not.toContain('index.ts');
    });

    it('exports <X>GraphQLContext and its builder <x>Context from graphql.context.ts', () => {
      expectIn(`${dir}/graphql.context.ts`, `export (interface|type) ${X}GraphQLContext\\b`);
      expectIn(`${dir}/graphql.context.ts`, `export function ${x}Context\\(`);
    });

    it('reads its settings in load<X>Config (<svc>.config.ts)', () => {
      expectIn(`${dir}/${name}.config.ts`, `export function load${X}Config\\(`);
    });

    it('serves subscriptions, when its schema has them, from <svc>.subscriptions.ts only', () => {
      const hasSubscriptions = /^\s*(extend\s+)?type\s+Subscription\b/m.test(read(`${dir}/schema.graphql`));
      expect({ subscriptionsFile: files.includes(`${name}.subscriptions.ts`) }).toEqual({
        subscriptionsFile: hasSubscriptions,
      });
      const serving = [assembly, ...files.filter((f) => f.endsWith('.ts')).map((f) => read(`${dir}/${f}`))].filter(
        (text) => /\bserveSubscriptions(<[^>]*>)?\(/.test(text),
      ).length;
      expect(serving).toBe(hasSubscriptions ? 1 : 0);
      if (hasSubscriptions) expectIn(`${dir}/${name}.subscriptions.ts`, '\\bserveSubscriptions(<[^>]*>)?\\(');
    });

    it('names its audit file <svc>.audit.ts, if it has one', () => {
      expect(files.filter((f) => /audit/.test(f) && f !== `${name}.audit.ts`)).toEqual([]);
    });

    it('has a REST door rest-compat/<svc>/ with register<X>Routes and <svc>.schemas.ts', () => {
      const door = at(`rest-compat/${name}`);
      expect(exists(`${door}/${name}.schemas.ts`)).toBe(true);
      expectIn(`${door}/index.ts`, `export (async )?function register${X}Routes\\(`);
      expectIn(at(`services/${name}.ts`), `register${X}Routes\\(`);
    });
  },
);
