// supergraph.graphql is what the router serves: it must be exactly what composing
// supergraph.yaml gives today. Run `npm run build && npm run compose` when this fails.
import fs from 'node:fs';
import path from 'node:path';
import { composeFromConfig, composeSupergraph, CompositionError, readSupergraphConfig } from '../../../router/compose';
import { SERVICES } from '../../../launcher/registry';
import { SupergraphModel } from '../../../router/supergraph/supergraph.model';

const root = path.resolve(__dirname, '../../..');

describe('supergraph composition', () => {
  it('supergraph.graphql is up to date with supergraph.yaml and the subgraph schemas', () => {
    const fresh = composeFromConfig(path.join(root, 'supergraph.yaml'));
    const committed = fs.readFileSync(path.join(root, 'supergraph.graphql'), 'utf8');
    if (fresh !== committed) throw new Error('supergraph.graphql is stale: run `npm run build && npm run compose`');
  });

  it("supergraph.yaml lists exactly the registry's subgraphs, each at its documented port and SDL file", () => {
    const listed = readSupergraphConfig(path.join(root, 'supergraph.yaml'))
      .map((e) => ({ name: e.name, url: e.routingUrl, file: path.relative(root, e.schemaFile) }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const expected = SERVICES.filter((s) => s.subgraph)
      .map((s) => ({ name: s.name, url: `http://127.0.0.1:${s.port}/graphql`, file: s.subgraph }))
      .sort((a, b) => a.name.localeCompare(b.name));
    expect(listed).toEqual(expected);
  });

  it('the committed supergraph loads in the router, with every registered subgraph', () => {
    const model = SupergraphModel.parse(fs.readFileSync(path.join(root, 'supergraph.graphql'), 'utf8'));
    expect(model.subgraphNames().sort()).toEqual(
      SERVICES.filter((s) => s.subgraph)
        .map((s) => s.name)
        .sort(),
    );
    expect(model.ownerOf('Query', 'me')).toBe('identity');
    expect(model.ownerOf('Subscription', 'ledgerEventAppended')).toBe('ledger');
    expect(model.authRules.fields.get('Query.me')).toEqual({ authenticated: true });
  });

  it('reports composition errors clearly', () => {
    const a =
      'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"]) type Query { x: Int }';
    const b =
      'extend schema @link(url: "https://specs.apollo.dev/federation/v2.7", import: ["@key"]) type Query { x: String }';
    expect(() =>
      composeSupergraph([
        { name: 'a', url: 'http://a', sdl: a },
        { name: 'b', url: 'http://b', sdl: b },
      ]),
    ).toThrow(CompositionError);
  });
});
