// Identity's audit event types (docs/identity.md lists them); rows are built by the platform's
// auditEvent and written to the outbox in the same transaction as the change.
export const IDENTITY_EVENTS = {
  loginSucceeded: 'auth_login_succeeded',
  loginFailed: 'auth_login_failed',
  tokenIssued: 'token_issued',
  tokenRefreshed: 'token_refreshed',
  tokenRevoked: 'token_revoked',
  roleCreated: 'role_created',
  roleAssigned: 'role_assigned',
  tenantCreated: 'tenant_created',
  userCreated: 'user_created',
  serviceAccountCreated: 'service_account_created',
  serviceTokenIssued: 'service_token_issued',
} as const;
