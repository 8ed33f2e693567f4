// POST /api/ai/rag/search: the retrieval service's chunks for a query, with the query redacted
// before it leaves the broker and the chunks redacted on the way back, like inference context.
import type { Caller } from '../../platform/auth/caller';
import { InputError, UnavailableError, type InputIssue } from '../../platform/errors/domain-errors';
import type { Forwarding } from './ai-broker.types';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import { optionalString } from './input-fields';

export interface RagSearchInput {
  query?: unknown;
  suiteId?: unknown;
  moduleId?: unknown;
  entityId?: unknown;
  topK?: unknown;
  threshold?: unknown;
}

export class RagSearchService {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'guard' | 'tokens' | 'retrieval'>,
    private readonly access: BrokerAccess,
  ) {}

  async ragSearch(caller: Caller, input: RagSearchInput, forward: Forwarding = {}) {
    const tenantId = await this.access.tenantOf(caller, 'read', 'ai.rag.search');
    const issues: InputIssue[] = [];
    // `searchQuery`: a field named `query` would read as a location (REST's ["query", ...]); the route maps it back.
    if (input.query === undefined || input.query === null)
      issues.push({ loc: ['searchQuery'], msg: 'Field required', type: 'missing' });
    else if (typeof input.query !== 'string' || input.query.trim().length === 0 || input.query.length > 10_000) {
      issues.push({ loc: ['searchQuery'], msg: 'A query should be 1-10000 characters of text', type: 'string_type' });
    }
    const suiteId = optionalString(issues, 'suiteId', input.suiteId, 100);
    const moduleId = optionalString(issues, 'moduleId', input.moduleId, 100);
    const entityId = optionalString(issues, 'entityId', input.entityId, 100);
    const topK = input.topK ?? 5;
    if (!Number.isInteger(topK) || (topK as number) < 1 || (topK as number) > 20)
      issues.push({ loc: ['topK'], msg: 'Input should be an integer from 1 to 20', type: 'int_type' });
    const threshold = input.threshold ?? 0.5;
    if (typeof threshold !== 'number' || threshold < 0 || threshold > 1)
      issues.push({ loc: ['threshold'], msg: 'Input should be a number from 0 to 1', type: 'float_type' });
    if (issues.length > 0) throw new InputError(issues);
    const session = this.deps.guard.session(tenantId);
    const query = session.text(input.query as string);
    // Tokenize mode: the query's tokens are stored before it leaves, so they can be revealed later.
    await this.deps.tokens.save(tenantId, session.minted());
    const scope = { suiteId, moduleId, entityId };
    const r = await this.deps.retrieval.retrieve(
      this.access.context(caller, tenantId, forward),
      query,
      scope,
      topK as number,
      threshold as number,
    );
    if (!r.available) throw new UnavailableError('The knowledge retrieval service is unavailable, retry shortly', 5);
    return { query, chunks: r.chunks.map((c) => ({ ...c, content: session.text(c.content) })), total: r.chunks.length };
  }
}
