// The provider's account id: `<user id>@<tenant id>`. A user id is a UUID (no `@`), so the tenant
// is everything after the first `@`; carrying it lets the provider check a session's tenant
// against the client's without a database read.
export function accountIdOf(userId: string, tenantId: string): string {
  return `${userId}@${tenantId}`;
}

export function tenantOfAccount(accountId: string): string | undefined {
  const at = accountId.indexOf('@');
  return at > 0 ? accountId.slice(at + 1) : undefined;
}

export function userOfAccount(accountId: string): string | undefined {
  const at = accountId.indexOf('@');
  return at > 0 ? accountId.slice(0, at) : undefined;
}
