// Identity's REST door (spec 01, identity endpoint table, plus refresh tokens, service accounts
// and admin routes). Thin adapters over the services in subgraphs/identity.
import type { FastifyInstance } from 'fastify';
import { ISSUER } from '../../platform/auth/jwt';
import type { IdentityServices } from '../../subgraphs/identity/identity.module';
import { registerAdminRoutes } from './admin.routes';
import { registerAuthRoutes } from './auth.routes';
import { registerMfaRoutes } from './mfa.routes';
import { registerSessionRoutes } from './session.routes';
import { registerWebauthnRoutes } from './webauthn.routes';
import { InfoResponse } from './identity.schemas';

export const IDENTITY_CAPABILITIES = [
  'oauth2_password_grant',
  'json_login',
  'jwt_hs256',
  'token_verification',
  'refresh_token_rotation',
  'refresh_token_reuse_detection',
  'service_accounts_client_credentials',
  'rbac_roles_and_scopes',
  'tenant_isolation',
  'tenant_management',
  'user_management',
  'audit_outbox',
  'graphql_federation_subgraph',
  'mfa_totp',
  'mfa_recovery_codes',
  'mfa_webauthn',
  'mfa_policy',
  'step_up_amr_acr',
  'session_management',
] as const;

export function registerIdentityRoutes(
  app: FastifyInstance,
  services: IdentityServices,
  info: { version: string; expiresIn: number; refreshDays: number },
): void {
  app.get(
    '/docs/info',
    {
      config: { auth: 'public' },
      schema: { tags: ['docs'], summary: 'Service metadata and capabilities', response: { 200: InfoResponse } },
    },
    async () => ({
      name: 'identity',
      version: info.version,
      description: 'Authentication, authorization, tenant and role management',
      capabilities: [...IDENTITY_CAPABILITIES],
      token: {
        algorithm: 'HS256',
        issuer: ISSUER,
        expires_in: info.expiresIn,
        refresh_token_expire_days: info.refreshDays,
      },
    }),
  );
  registerAuthRoutes(app, services);
  registerAdminRoutes(app, services);
  registerMfaRoutes(app, services);
  registerWebauthnRoutes(app, services);
  registerSessionRoutes(app, services);
}
