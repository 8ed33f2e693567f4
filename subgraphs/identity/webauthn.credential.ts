// The shape of a credential from the browser (PublicKeyCredential.toJSON()), checked before the
// ceremony sees it: the REST door's schema checks it too, GraphQL's JSON scalar does not, and a
// malformed value must be a 422 rather than an error deep inside the verification.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { InputError } from '../../platform/errors/domain-errors';

const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;
const MAX = 16_384;

function isB64(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= MAX && B64URL.test(v);
}

function base(value: unknown, members: string[]): Record<string, unknown> & { response: Record<string, unknown> } {
  const refuse = () => InputError.of(['credential'], 'Not a WebAuthn public-key credential', 'value_error');
  if (typeof value !== 'object' || value === null) throw refuse();
  const c = value as Record<string, unknown>;
  if (!isB64(c.id) || !isB64(c.rawId) || c.type !== 'public-key') throw refuse();
  const r = c.response;
  if (typeof r !== 'object' || r === null) throw refuse();
  const response = r as Record<string, unknown>;
  if (!members.every((m) => isB64(response[m]))) throw refuse();
  return { ...c, response, clientExtensionResults: c.clientExtensionResults ?? {} };
}

export function registrationCredential(value: unknown): RegistrationResponseJSON {
  return base(value, ['clientDataJSON', 'attestationObject']) as unknown as RegistrationResponseJSON;
}

export function authenticationCredential(value: unknown): AuthenticationResponseJSON {
  return base(value, ['clientDataJSON', 'authenticatorData', 'signature']) as unknown as AuthenticationResponseJSON;
}
