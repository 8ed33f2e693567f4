// Per-request GraphQL context: the Caller (verified token or gateway tenant header) and a
// DataLoader that batches User.auditTrail lookups of one request into one store query.
import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type { TokenAuthenticator } from '../../platform/http/auth-hooks';
import { bearerToken } from '../../platform/auth/jwt';
import { AuthenticationError } from '../../platform/errors/domain-errors';
import type { Caller } from './ledger.access';
import type { LedgerService } from './ledger.service';
import type { LedgerEvent } from './ledger.types';

export interface AuditTrailKey {
  username: string;
  first: number;
  /** Only events with a smaller seq (cursor), or null for the newest. */
  before: number | null;
}

export interface LedgerGraphQLContext {
  caller: Caller;
  requireAuth: boolean;
  service: LedgerService;
  loaders: { auditTrail: DataLoader<AuditTrailKey, LedgerEvent[], string> };
  /** Present on graphql-ws connections only (see ledger.subscriptions.ts). */
  subscribeAppends?: (eventType: string | undefined) => AsyncIterableIterator<LedgerEvent>;
}

export interface ContextSource {
  authorization?: string;
  tenantHeader?: string;
}

function unauthenticated(): GraphQLError {
  return new GraphQLError('Could not validate credentials', { extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } } });
}

/** Verifies the token if any; a presented but invalid token fails the whole operation. */
export async function callerFrom(source: ContextSource, tokens: TokenAuthenticator): Promise<Caller> {
  const token = bearerToken(source.authorization);
  if (source.authorization && !token) throw unauthenticated();
  let auth: Caller['auth'];
  if (token) {
    try {
      auth = await tokens.authenticate(token);
    } catch {
      throw unauthenticated();
    }
  }
  return { auth, headerTenant: source.tenantHeader || undefined };
}

export function buildContext(caller: Caller, service: LedgerService, requireAuth: boolean): LedgerGraphQLContext {
  const auditTrail = new DataLoader<AuditTrailKey, LedgerEvent[], string>(async (keys) => {
    // Keys of one request share first/after almost always; group by them, one query per group.
    const groups = new Map<string, AuditTrailKey[]>();
    for (const k of keys) {
      const g = `${k.first}:${k.before}`;
      groups.set(g, [...(groups.get(g) ?? []), k]);
    }
    const results = new Map<string, LedgerEvent[]>();
    for (const group of groups.values()) {
      const { first, before } = group[0]!;
      const lists = await service.auditTrails(caller, group.map((k) => k.username), first, before);
      group.forEach((k, i) => results.set(JSON.stringify(k), lists[i]!));
    }
    return keys.map((k) => results.get(JSON.stringify(k)) ?? []);
  }, { cacheKeyFn: (k) => JSON.stringify(k) });
  return { caller, requireAuth, service, loaders: { auditTrail } };
}

/** The caller, refusing anonymous callers when REQUIRE_AUTH=true. */
export function callerOf(ctx: LedgerGraphQLContext): Caller {
  if (ctx.requireAuth && !ctx.caller.auth) throw new AuthenticationError('Not authenticated');
  return ctx.caller;
}
