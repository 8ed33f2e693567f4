// Retrieval's domain without a database or a model: RetrievalService over recording strict fakes
// of the chunk search store, the embedder and the soft matcher. Asserts what reaches the store
// (the tenant, the cascading levels, the access levels the caller may read) and how the rankings
// are merged and ordered. A store method a case does not give fails it (no full-text query on a
// vector-only search, no embedding when the caller brings one).
import type { Caller } from '../../../platform/auth/caller';
import { InputError } from '../../../platform/errors/domain-errors';
import type { ChunkSearchStore, ScopeFilter, TextHit, VectorHit } from '../../../subgraphs/rag/chunk-search.store';
import type { Embedder } from '../../../subgraphs/rag/embedding/embedder';
import type { RagConfig } from '../../../subgraphs/rag/rag.config';
import type { SoftMatcher } from '../../../subgraphs/rag/ranking/soft-match';
import { RetrievalService, type FusionOptions } from '../../../subgraphs/rag/retrieval.service';
import { Fakes, withArgs } from '../../support/recording-fake';

const TENANT = 'tenant-a';
const VECTOR = [0.6, 0.8];
const config = { defaultTopK: 5, maxTopK: 50, cascadeMargin: 0.05, textCandidates: 500 } as RagConfig;
const member: Caller = {
  auth: { username: 'alice', tenantId: TENANT, roles: ['user'], scopes: ['read'], isService: false },
  correlationId: 'c',
};
const external: Caller = {
  auth: { username: 'eve', tenantId: TENANT, roles: ['external'], scopes: ['read'], isService: false },
  correlationId: 'c',
};
/** Vector and full text count alike; no soft matching unless a case asks. */
const plainRrf: FusionOptions = {
  method: 'rrf',
  vectorWeight: 1,
  textWeight: 1,
  softWeight: 0,
  k: 10,
  expansionVector: 0,
};

const hit = (chunkId: string, similarity: number, level: VectorHit['level'] = 'platform'): VectorHit => ({
  chunkId,
  documentId: `doc-${chunkId}`,
  documentTitle: `Title ${chunkId}`,
  level,
  content: `content ${chunkId}`,
  heading: null,
  similarity,
});
const textHit = (chunkId: string, textRank: number, level: VectorHit['level'] = 'platform'): TextHit => ({
  ...hit(chunkId, 0, level),
  textRank,
});

function build(
  search: Partial<ChunkSearchStore>,
  options: { embed?: boolean; soft?: Partial<SoftMatcher>; fusion?: FusionOptions } = {},
) {
  const fakes = new Fakes();
  const embedder = fakes.make<Embedder>('embedder', {
    name: 'fake',
    ...(options.embed === false ? {} : { embed: async (texts: string[]) => texts.map(() => VECTOR) }),
  });
  const service = new RetrievalService({
    config,
    embedder,
    search: fakes.make<ChunkSearchStore>('search', search),
    fusion: options.fusion ?? plainRrf,
    softMatch: options.soft ? fakes.make<SoftMatcher>('soft', options.soft) : undefined,
  });
  return { fakes, service };
}
const ids = (r: { chunks: { chunkId: string }[] }) => r.chunks.map((c) => c.chunkId);

describe('RetrievalService: scope rules reach the store', () => {
  it("searches the caller's tenant over the cascading levels its scope defines, with every access level for a member", async () => {
    const filter: ScopeFilter = {
      tenantId: TENANT,
      levels: ['entity', 'module', 'platform'],
      scope: { moduleId: 'm1', entityId: 'e1' },
      accessLevels: ['internal', 'external', 'public'],
    };
    const { fakes, service } = build({
      nearest: withArgs([filter, VECTOR, 10], async () => ({ hits: [hit('a', 0.9)], method: 'exact' as const })),
    });
    const p = service.parse({ query: '  what is a lien? ', moduleId: 'm1', entityId: 'e1' }, { useHybrid: false });
    const r = await service.retrieve(member, TENANT, p);
    fakes.verify();
    expect(ids(r)).toEqual(['a']);
    expect(r.levels).toEqual(['entity', 'module', 'platform']);
    expect(fakes.argsOf('embedder', 'embed')).toEqual([[['what is a lien?']]]);
  });

  it('narrows an external caller to external and public documents', async () => {
    const { fakes, service } = build({
      nearest: withArgs(
        [
          expect.objectContaining({ tenantId: TENANT, levels: ['platform'], accessLevels: ['external', 'public'] }),
          VECTOR,
          expect.any(Number),
        ],
        async () => ({ hits: [], method: 'exact' as const }),
      ),
    });
    await service.retrieve(external, TENANT, service.parse({ query: 'q' }, { useHybrid: false }));
    fakes.verify();
  });

  it('refuses a malformed scope id before embedding or searching', () => {
    const { fakes, service } = build({});
    expect(() => service.parse({ query: 'q', suiteId: 'no spaces allowed' }, { useHybrid: false })).toThrow(InputError);
    fakes.verify();
    expect(fakes.calls).toEqual([]);
  });

  it('uses the embedding the caller brings: the embedder is not called', async () => {
    const { fakes, service } = build(
      {
        nearest: withArgs([expect.anything(), [1, 0], expect.any(Number)], async () => ({
          hits: [],
          method: 'exact' as const,
        })),
      },
      { embed: false },
    );
    await service.retrieve(member, TENANT, service.parse({ query: 'q' }, { useHybrid: false }), [1, 0]);
    fakes.verify();
  });
});

describe('RetrievalService: ranking', () => {
  it('puts the more specific level first among chunks about as relevant as the best, but never a weak specific one', async () => {
    const { fakes, service } = build({
      nearest: async () => ({
        hits: [hit('platform', 0.9, 'platform'), hit('module', 0.87, 'module'), hit('weak-entity', 0.5, 'entity')],
        method: 'exact' as const,
      }),
    });
    const r = await service.retrieve(
      member,
      TENANT,
      service.parse({ query: 'q', moduleId: 'm', entityId: 'e', topK: 3 }, { useHybrid: false }),
    );
    fakes.verify();
    expect(ids(r)).toEqual(['module', 'platform', 'weak-entity']);
    expect(r.chunks[0]!.score).toBeCloseTo(0.91, 6); // module boost +0.04
  });

  it('hybrid: merges the vector and full-text rankings, asks the cosine of text-only hits in the tenant, and fuses them', async () => {
    const { fakes, service } = build({
      nearest: async () => ({ hits: [hit('a', 0.9), hit('b', 0.88)], method: 'exact' as const }),
      fullText: withArgs(
        [expect.objectContaining({ tenantId: TENANT }), 'q', 20, config.textCandidates, []],
        async () => [textHit('c', 1), textHit('b', 0.5)],
      ),
      similarities: withArgs([TENANT, ['c'], VECTOR], async () => new Map([['c', 0.3]])),
    });
    const r = await service.retrieve(
      member,
      TENANT,
      service.parse({ query: 'q', topK: 3, useHybrid: true }, { useHybrid: false }),
    );
    fakes.verify();
    // b is found by both sides: first, though a alone has the higher cosine.
    expect(ids(r)).toEqual(['b', 'a', 'c']);
    expect(r.chunks[2]!.similarity).toBe(0.3);
    expect(r.method).toBe('hybrid(exact+fts)');
  });

  it('hybrid with soft matching: the soft scores of the candidates reorder the top', async () => {
    const { fakes, service } = build(
      {
        nearest: async () => ({ hits: [hit('a', 0.9), hit('b', 0.88)], method: 'exact' as const }),
        fullText: async () => [],
        similarities: withArgs([TENANT, [], VECTOR], async () => new Map()),
      },
      {
        fusion: { ...plainRrf, softWeight: 10 },
        soft: { score: withArgs(['q', ['content a', 'content b'], expect.any(Map)], () => [0.1, 0.9]) },
      },
    );
    const r = await service.retrieve(
      member,
      TENANT,
      service.parse({ query: 'q', topK: 2, useHybrid: true }, { useHybrid: false }),
    );
    fakes.verify();
    expect(ids(r)).toEqual(['b', 'a']);
  });
});
