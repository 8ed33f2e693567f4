// Audit event types of the OIDC provider (docs/identity.md, OIDC), written through the outbox.
export const OIDC_EVENTS = {
  clientRegistered: 'oidc_client_registered',
  keyRotated: 'oidc_signing_key_rotated',
  signInSucceeded: 'oidc_sign_in_succeeded',
  consentGranted: 'oidc_consent_granted',
} as const;
