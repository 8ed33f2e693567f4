// platform/auth/asymmetric-tokens.ts tokenKind: the per-request dispatch between the HS256 and the
// JWKS verifiers, answered from the protected header's text once it has been seen. A known header
// on a malformed or forged token still reaches the verifier, which refuses it.
import { AccessTokens } from '../../../platform/auth/jwt';
import { tokenKind } from '../../../platform/auth/asymmetric-tokens';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('tokenKind', () => {
  const tokens = new AccessTokens('s'.repeat(40), 600);
  const subject = { username: 'u', tenantId: 't', roles: [], scopes: ['read'] };

  it('sends HS256 to the legacy verifier and EdDSA/RS256 to the JWKS one, the same on a second look', async () => {
    const hs = await tokens.issue(subject);
    expect(tokenKind(hs)).toBe('symmetric');
    expect(tokenKind(hs)).toBe('symmetric');
    const ed = `${b64({ alg: 'EdDSA', kid: 'k1' })}.${b64({ sub: 'u' })}.c2ln`;
    expect(tokenKind(ed)).toBe('asymmetric');
    expect(tokenKind(`${b64({ alg: 'RS256', kid: 'k2' })}.${b64({})}.c2ln`)).toBe('asymmetric');
  });

  it('refuses none, unknown algorithms and malformed tokens, seen once or twice', () => {
    const none = `${b64({ alg: 'none' })}.${b64({ sub: 'u' })}.`;
    expect(tokenKind(none)).toBeUndefined();
    expect(tokenKind(none)).toBeUndefined();
    expect(tokenKind(`${b64({ alg: 'HS512' })}.${b64({})}.c2ln`)).toBeUndefined();
    expect(tokenKind('not-a-token')).toBeUndefined();
    expect(tokenKind('')).toBeUndefined();
    expect(tokenKind(`${b64({ alg: 'HS256' })}!.x.y`)).toBeUndefined();
  });

  it('a known header on a forged or malformed token still goes to a verifier that refuses it', async () => {
    const hs = await tokens.issue(subject);
    const [header, payload] = hs.split('.');
    expect(tokenKind(hs)).toBe('symmetric');
    const forged = `${header}.${b64({ sub: 'admin', tenant_id: 't', roles: ['admin'], scopes: [] })}.AAAA`;
    expect(tokenKind(forged)).toBe('symmetric');
    await expect(tokens.authenticate(forged)).rejects.toThrow();
    const malformed = `${header}.${payload}.not base64!`;
    expect(tokenKind(malformed)).toBe('symmetric');
    await expect(tokens.authenticate(malformed)).rejects.toThrow();
  });
});
