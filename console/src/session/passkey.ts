// A passkey or security key answering the sign-in challenge: the request options come from
// identity through /graphql (webauthnAuthenticationOptions, public: the challenge token is the
// credential), the browser signs them (navigator.credentials.get through @simplewebauthn/browser),
// and the router's /console/session/webauthn relays the assertion, so the refresh token lands in
// the httpOnly cookie as with a code.
import { startAuthentication } from '@simplewebauthn/browser';
import { print } from 'graphql';
import { graphql } from '../gql';
import type { PasskeySignInOptionsMutation } from '../gql/graphql';
import { SessionError, verifyPasskey, type Session } from './session';

const OPTIONS = graphql(`
  mutation PasskeySignInOptions($mfaToken: String!) {
    webauthnAuthenticationOptions(mfaToken: $mfaToken)
  }
`);

export async function signInWithPasskey(mfaToken: string): Promise<Session> {
  // No Apollo client before sign-in: one plain request with the typed document.
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: print(OPTIONS), variables: { mfaToken } }),
  });
  const body = (await res.json()) as { data?: PasskeySignInOptionsMutation; errors?: { message: string }[] };
  if (!body.data) throw new SessionError(body.errors?.[0]?.message ?? `HTTP ${res.status}`, 401);
  const credential = await startAuthentication({
    optionsJSON: body.data.webauthnAuthenticationOptions as Parameters<typeof startAuthentication>[0]['optionsJSON'],
  });
  return verifyPasskey(mfaToken, credential);
}
