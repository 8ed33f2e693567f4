// The identity service's API as other services call it, in wire names: the request and
// response types of platform/clients/identity.client.ts. What the serving routes send and accept must stay
// assignable to these (compile-time checks in test/unit/platform/contracts.test.ts).

export interface VerifyResponse {
  valid: boolean;
  username: string;
  tenant_id: string;
  roles: string[];
  scopes: string[];
  /** How the person signed in (RFC 8176), when the token says. */
  amr?: string[];
  /** The token's assurance level (aal1, aal2), when the token says. */
  acr?: string;
}
