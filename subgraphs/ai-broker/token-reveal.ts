// Turning tokens back into values, which only the dedicated scope may do (never implied by
// `admin`): one stored token on request (another tenant's is 404, as if it did not exist), or
// an answer's own tokens when an inference asks for `detokenize`.
import type { Caller } from '../../platform/auth/caller';
import { ForbiddenError, NotFoundError } from '../../platform/errors/domain-errors';
import type { AiBrokerDeps } from './ai-broker.deps';
import type { BrokerAccess } from './broker-access';
import type { RedactionSession } from './pii-guard';
import { TOKEN_PATTERN } from './token-vault.store';

/** The dedicated scope that may turn tokens back into values (never implied by `admin`). */
export const DETOKENIZE_SCOPE = 'pii:detokenize';

/** One stored token, whole: `[category:tok_<20 hex>]`. */
const ONE_TOKEN = /^\[([a-z][a-z0-9_]{0,49}):tok_([0-9a-f]{20})\]$/;

export function requireDetokenizeScope(caller: Caller): void {
  if (!caller.auth?.scopes.includes(DETOKENIZE_SCOPE))
    throw new ForbiddenError(`Scope '${DETOKENIZE_SCOPE}' required to reveal tokenized values`);
}

/**
 * The answer with this request's own tokens turned back into values (scope checked when the
 * request was prepared). Only tokens minted for this request: a model that echoes another
 * token gets nothing out of the vault.
 */
export function revealOwnTokens(input: RedactionSession, text: string): { text: string; revealed: number } {
  const own = new Map(input.minted().map((t) => [t.token, t.value]));
  let revealed = 0;
  const out = text.replace(TOKEN_PATTERN, (token) => {
    const value = own.get(token);
    if (value === undefined) return token;
    revealed++;
    return value;
  });
  return { text: out, revealed };
}

export class TokenRevealService {
  constructor(
    private readonly deps: Pick<AiBrokerDeps, 'tokens'>,
    private readonly access: BrokerAccess,
  ) {}

  /** One of the tenant's tokens and its value: the dedicated scope only; another tenant's is 404. */
  async revealToken(caller: Caller, token: string): Promise<{ token: string; category: string; value: string }> {
    const tenantId = await this.access.tenantOf(caller, 'read', 'ai.tokens.reveal');
    requireDetokenizeScope(caller);
    const m = ONE_TOKEN.exec(token);
    const values = m ? await this.deps.tokens.reveal(tenantId, [token]) : new Map<string, string>();
    const value = values.get(token);
    if (value === undefined || !m) throw new NotFoundError('Token not found');
    return { token, category: m[1]!, value };
  }
}
