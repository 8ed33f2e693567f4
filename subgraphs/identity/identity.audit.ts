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
  mfaChallengeIssued: 'auth_mfa_challenge_issued',
  mfaSucceeded: 'auth_mfa_succeeded',
  mfaFailed: 'auth_mfa_failed',
  mfaFactorEnrolled: 'mfa_factor_enrolled',
  mfaFactorRemoved: 'mfa_factor_removed',
  mfaReset: 'mfa_reset',
  recoveryCodesGenerated: 'mfa_recovery_codes_generated',
  recoveryCodeUsed: 'mfa_recovery_code_used',
  mfaPolicyUpdated: 'mfa_policy_updated',
} as const;
