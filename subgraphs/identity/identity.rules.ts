// Input rules both doors share. REST route schemas check the same limits first (so REST callers
// get FastAPI's locations); these checks make GraphQL and direct callers meet them too.
import { SERVICE_ROLE_PREFIX } from '../../platform/auth/jwt';
import { InputError, type InputIssue } from '../../platform/errors/domain-errors';

export const LIMITS = {
  username: 255,
  email: 255,
  passwordMin: 8,
  passwordMax: 1024,
  tenantId: 255,
  tenantName: 255,
  roleName: 100,
  scope: 100,
  scopesPerRole: 50,
  description: 1000,
} as const;

export const PATTERNS = {
  username: '^[A-Za-z0-9][A-Za-z0-9._@+-]*$',
  tenantId: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
  roleName: '^[A-Za-z0-9][A-Za-z0-9._:-]*$',
  scope: '^[A-Za-z0-9][A-Za-z0-9._:*-]*$',
  serviceName: '^[a-z0-9][a-z0-9._-]*$',
  email: '^[^@\\s]+@[^@\\s]+$',
} as const;

export class Checker {
  private readonly issues: InputIssue[] = [];

  text(loc: string, value: string, rule: { min?: number; max: number; pattern?: string }): this {
    if (value.length < (rule.min ?? 1))
      this.issues.push({
        loc: [loc],
        msg: `String should have at least ${rule.min ?? 1} characters`,
        type: 'string_too_short',
      });
    else if (value.length > rule.max)
      this.issues.push({
        loc: [loc],
        msg: `String should have at most ${rule.max} characters`,
        type: 'string_too_long',
      });
    else if (rule.pattern && !new RegExp(rule.pattern).test(value))
      this.issues.push({
        loc: [loc],
        msg: `String should match pattern '${rule.pattern}'`,
        type: 'string_pattern_mismatch',
      });
    return this;
  }

  scopes(loc: string, scopes: readonly string[]): this {
    if (scopes.length > LIMITS.scopesPerRole)
      this.issues.push({ loc: [loc], msg: `List should have at most ${LIMITS.scopesPerRole} items`, type: 'too_long' });
    scopes.forEach((s, i) => {
      if (s.length < 1 || s.length > LIMITS.scope || !new RegExp(PATTERNS.scope).test(s)) {
        this.issues.push({ loc: [loc, i], msg: 'Invalid scope', type: 'value_error' });
      }
    });
    return this;
  }

  /** The `service:` namespace belongs to service accounts; people's roles may not use it. */
  notServiceRole(loc: string, name: string): this {
    if (name.startsWith(SERVICE_ROLE_PREFIX))
      this.issues.push({
        loc: [loc],
        msg: `Role names starting with '${SERVICE_ROLE_PREFIX}' are reserved for service accounts`,
        type: 'value_error',
      });
    return this;
  }

  done(): void {
    if (this.issues.length > 0) throw new InputError(this.issues);
  }
}

export function check(): Checker {
  return new Checker();
}
