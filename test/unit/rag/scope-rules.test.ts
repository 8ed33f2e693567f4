// The hierarchy's rules: which levels a scope reaches, the cascading order within the relevance
// band, access levels by role, and the checks on ids and placements.
import { cascadeOrder } from '../../../subgraphs/rag/retrieval.service';
import { cascadeLevels, placementIssues, readableAccessLevels, scopeIssues } from '../../../subgraphs/rag/scope.rules';
import type { Level, RetrievedChunk } from '../../../subgraphs/rag/rag.types';

test('only the levels the given ids define, plus the broader ones; platform alone with none', () => {
  expect(cascadeLevels({})).toEqual(['platform']);
  expect(cascadeLevels({ suiteId: 's' })).toEqual(['suite', 'platform']);
  expect(cascadeLevels({ suiteId: 's', moduleId: 'm' })).toEqual(['module', 'suite', 'platform']);
  expect(cascadeLevels({ moduleId: 'm' })).toEqual(['module', 'platform']);
  expect(cascadeLevels({ suiteId: 's', moduleId: 'm', entityId: 'e' })).toEqual([
    'entity',
    'module',
    'suite',
    'platform',
  ]);
});

const chunk = (id: string, level: Level, similarity: number): RetrievedChunk => ({
  chunkId: id,
  documentId: id,
  documentTitle: id,
  level,
  content: id,
  heading: null,
  score: similarity,
  similarity,
});

test('within the band of the best similarity the most specific level leads; a weak specific chunk does not', () => {
  const ranked = [
    chunk('p', 'platform', 0.9),
    chunk('m', 'module', 0.85),
    chunk('e', 'entity', 0.82),
    chunk('s', 'suite', 0.7),
    chunk('weak-e', 'entity', 0.5),
  ];
  expect(cascadeOrder(ranked, 0.1).map((c) => c.chunkId)).toEqual(['e', 'm', 'p', 's', 'weak-e']);
  expect(cascadeOrder([], 0.1)).toEqual([]);
});

test('access levels by role; ids and placements checked', () => {
  expect(readableAccessLevels({ correlationId: 'c' })).toEqual(['internal', 'external', 'public']);
  const auth = (roles: string[]) => ({
    correlationId: 'c',
    auth: { username: 'u', tenantId: 't', roles, scopes: ['read'], isService: false },
  });
  expect(readableAccessLevels(auth(['user']))).toEqual(['internal', 'external', 'public']);
  expect(readableAccessLevels(auth(['external']))).toEqual(['external', 'public']);
  expect(readableAccessLevels(auth(['guest']))).toEqual(['public']);
  expect(scopeIssues({ suiteId: 'ok_id-1', moduleId: 'bad id' }).map((i) => i.loc)).toEqual([['moduleId']]);
  expect(scopeIssues({ entityId: 'x'.repeat(101) })).toHaveLength(1);
  expect(placementIssues('entity', { suiteId: 's' }).map((i) => i.loc)).toEqual([['entityId']]);
  expect(placementIssues('platform', {})).toEqual([]);
});
