// Identity's audit event types (docs/identity.md lists them) and the one builder for outbox rows.
// Event data never carries a password, secret or token: only names, ids and counts.
import { randomUUID } from 'node:crypto';
import type { CallContext, OutboxEventInput } from './identity.types';

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

export type IdentityEventType = (typeof IDENTITY_EVENTS)[keyof typeof IDENTITY_EVENTS];

export function auditEvent(
  ctx: CallContext,
  event: { tenantId: string; type: IdentityEventType; actor: string | null; data: Record<string, unknown>; description?: string },
): OutboxEventInput {
  return {
    tenantId: event.tenantId,
    eventType: event.type,
    eventData: event.data,
    userId: event.actor,
    correlationId: ctx.correlationId,
    description: event.description,
    // A fresh key per event: the relay retries with it so the ledger stores each event once.
    idempotencyKey: randomUUID(),
  };
}
