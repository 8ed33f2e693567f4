// The dependency resolver with strict fakes of the catalog and both registries: what it asks,
// whom it believes, and how it refuses.
import { RulePackRegistryClient, type RulePackVersionView } from '../../../platform/clients/rulepack-registry.client';
import { SchemaRegistryClient } from '../../../platform/clients/schema-registry.client';
import { ServiceCallError } from '../../../platform/clients/service-request';
import { ConflictError, InputError, UnavailableError } from '../../../platform/errors/domain-errors';
import { DependencyResolver } from '../../../subgraphs/packs-registry/pack-dependencies';
import type { PackStore } from '../../../subgraphs/packs-registry/pack.store';
import type { PackDependencies, PackEntry } from '../../../subgraphs/packs-registry/pack.types';
import { strictFake } from '../../support/strict-fake';

const none: PackDependencies = { rule_packs: [], schemas: [], workflow_packs: [] };

function entry(packId: string, deps: Partial<PackDependencies> = {}, over: Partial<PackEntry> = {}): PackEntry {
  return {
    packId,
    version: '1.0.0',
    kind: 'workflow',
    status: 'draft',
    ownerTenant: 't',
    author: 'a',
    reviewers: [],
    submittedAt: new Date(0),
    certifiedAt: null,
    deprecatedAt: null,
    replacement: null,
    artifactFormat: 'json',
    artifactSource: null,
    artifactContent: null,
    artifactSha256: null,
    artifactPointer: { service: 'packs-registry', pack_id: packId, version: '1.0.0' },
    dependencies: { ...none, ...deps },
    ...over,
  };
}

function resolverOver(
  catalog: PackEntry[],
  rulePacks: (id: string) => Promise<RulePackVersionView>,
  calls: string[] = [],
) {
  const packs = strictFake<PackStore>(
    {
      find: async (_viewer, packId, version) => {
        calls.push(`find ${packId}@${version}`);
        return catalog.find((e) => e.packId === packId && e.version === version);
      },
    },
    'packs',
  );
  const rules = strictFake<RulePackRegistryClient>(
    {
      get: async (_ctx, packId) => {
        calls.push(`registry ${packId}`);
        return rulePacks(packId);
      },
    },
    'rulePacks',
  );
  const schemas = strictFake<SchemaRegistryClient>({}, 'schemas');
  return new DependencyResolver({ packs, rulePacks: rules, schemas });
}

const view = (packId: string, over: Partial<RulePackVersionView> = {}) =>
  ({
    pack_id: packId,
    version: '1.0.0',
    status: 'certified',
    owner_tenant: 't',
    replacement: null,
    ...over,
  }) as RulePackVersionView;
const ruleDep = (id: string) => ({ rule_packs: [{ pack_id: id, version: '1.0.0' }] });
const run = (r: DependencyResolver, root: PackEntry, requireCertified = false) =>
  r.resolve({ tenantId: 't' }, { token: 'tok' }, root, { requireCertified });

describe('DependencyResolver', () => {
  it('asks the registry for a rule pack the catalog lacks (a missed bus event)', async () => {
    const calls: string[] = [];
    const graph = await run(
      resolverOver([], async (id) => view(id), calls),
      entry('root', ruleDep('r')),
    );
    expect(calls).toEqual(['find r@1.0.0', 'registry r']);
    expect(graph.nodes.find((n) => n.id === 'rule:r@1.0.0')).toMatchObject({
      status: 'certified',
      source: 'rulepack-registry',
    });
  });

  it("believes the catalog's deprecation without asking, since deprecation is final", async () => {
    const calls: string[] = [];
    const deprecated = entry(
      'r',
      {},
      { kind: 'rule', status: 'deprecated', replacement: { pack_id: 'r', version: '2.0.0' } },
    );
    await expect(
      run(
        resolverOver(
          [deprecated],
          async () => {
            throw new Error('not asked');
          },
          calls,
        ),
        entry('root', ruleDep('r')),
      ),
    ).rejects.toThrow(new ConflictError("Rule pack 'r' version 1.0.0 is deprecated; use 'r' version 2.0.0 instead"));
    expect(calls).toEqual(['find r@1.0.0']);
  });

  it('lets the registry overrule a catalog that missed a deprecation', async () => {
    const certified = entry('r', {}, { kind: 'rule', status: 'certified' });
    await expect(
      run(
        resolverOver([certified], async (id) => view(id, { status: 'deprecated' })),
        entry('root', ruleDep('r')),
      ),
    ).rejects.toThrow(/is deprecated; no replacement was named/);
  });

  it('falls back to the catalog only while the registry cannot answer', async () => {
    const certified = entry('r', {}, { kind: 'rule', status: 'certified' });
    const down = async (): Promise<RulePackVersionView> => {
      throw new ServiceCallError('down', undefined, undefined);
    };
    const graph = await run(resolverOver([certified], down), entry('root', ruleDep('r')));
    expect(graph.nodes.find((n) => n.id === 'rule:r@1.0.0')).toMatchObject({ status: 'certified', source: 'catalog' });
    await expect(run(resolverOver([], down), entry('root', ruleDep('r')))).rejects.toBeInstanceOf(UnavailableError);
    // A 404 is an answer: missing, whatever the catalog says.
    const gone = async (): Promise<RulePackVersionView> => {
      throw new ServiceCallError('gone', 404, undefined);
    };
    await expect(run(resolverOver([certified], gone), entry('root', ruleDep('r')))).rejects.toBeInstanceOf(InputError);
  });

  it('follows workflow packs transitively, once each, and names a cycle', async () => {
    const a = entry('a', {
      workflow_packs: [
        { pack_id: 'b', version: '1.0.0' },
        { pack_id: 'c', version: '1.0.0' },
      ],
    });
    const b = entry('b', { workflow_packs: [{ pack_id: 'c', version: '1.0.0' }] });
    const c = entry('c', ruleDep('r'));
    const calls: string[] = [];
    const graph = await run(
      resolverOver([a, b, c], async (id) => view(id), calls),
      a,
    );
    expect(graph.nodes.map((n) => n.id)).toEqual([
      'workflow:a@1.0.0',
      'workflow:b@1.0.0',
      'workflow:c@1.0.0',
      'rule:r@1.0.0',
    ]);
    expect(calls.filter((c2) => c2 === 'registry r')).toHaveLength(1);

    const looping = entry('c', { workflow_packs: [{ pack_id: 'a', version: '1.0.0' }] });
    const err = await run(
      resolverOver([a, b, looping], async (id) => view(id)),
      a,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).issues[0]!.msg).toBe(
      'Dependency cycle among workflow packs: workflow:a@1.0.0 -> workflow:b@1.0.0 -> workflow:c@1.0.0 -> workflow:a@1.0.0',
    );
  });

  it('refuses drafts and packs under review only when certifying', async () => {
    const root = entry('root', { ...ruleDep('r'), workflow_packs: [{ pack_id: 'd', version: '1.0.0' }] });
    const resolver = resolverOver([entry('d')], async (id) => view(id, { status: 'review' }));
    await expect(run(resolver, root)).resolves.toBeDefined();
    await expect(run(resolver, root, true)).rejects.toThrow(
      /'r' version 1.0.0 is under review.*'d' version 1.0.0 is a draft/,
    );
  });
});
