// What the page shows about the signed-in person, read from the access token's claims. Only for
// display and for hiding buttons the API would refuse anyway: every rule is enforced server-side.
export interface Claims {
  username: string;
  tenantId: string;
  roles: string[];
}

export const PLATFORM_OPERATOR_ROLE = 'platform-admin';

export function claimsOf(accessToken: string): Claims {
  const part = accessToken.split('.')[1] ?? '';
  const json = atob(
    part
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(part.length / 4) * 4, '='),
  );
  const body = JSON.parse(json) as { sub?: unknown; tenant_id?: unknown; roles?: unknown };
  return {
    username: typeof body.sub === 'string' ? body.sub : '',
    tenantId: typeof body.tenant_id === 'string' ? body.tenant_id : '',
    roles: Array.isArray(body.roles) ? body.roles.filter((r): r is string => typeof r === 'string') : [],
  };
}

export const isOperator = (claims: Claims) => claims.roles.includes(PLATFORM_OPERATOR_ROLE);
