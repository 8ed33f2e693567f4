// The console's derived OIDC client per tenant, its redirect URIs from the environment, and the
// loopback rule for http redirect URIs.
import {
  consoleClientId,
  consoleClientOf,
  loadConsoleRedirectUris,
  withConsoleClients,
} from '../../../subgraphs/identity/oidc/console-client';
import type { OidcClientStore } from '../../../subgraphs/identity/oidc/oidc.types';
import { redirectUriProblem } from '../../../subgraphs/identity/oidc/redirect-uri.rule';
import { strictFake } from '../../support/strict-fake';

describe('IDENTITY_CONSOLE_REDIRECT_URIS', () => {
  it("defaults to the router's /console/callback and its localhost twin", () => {
    expect(loadConsoleRedirectUris({})).toEqual([
      'http://127.0.0.1:8080/console/callback',
      'http://localhost:8080/console/callback',
    ]);
    expect(loadConsoleRedirectUris({ GATEWAY_URL: 'https://console.example.com' })).toEqual([
      'https://console.example.com/console/callback',
    ]);
  });

  it('takes a comma list, `none` turns the client off, and a non-loopback http URI is refused', () => {
    expect(
      loadConsoleRedirectUris({
        IDENTITY_CONSOLE_REDIRECT_URIS: 'https://a.example/console/callback, http://localhost:9/console/callback',
      }),
    ).toEqual(['https://a.example/console/callback', 'http://localhost:9/console/callback']);
    expect(loadConsoleRedirectUris({ IDENTITY_CONSOLE_REDIRECT_URIS: 'none' })).toEqual([]);
    expect(() => loadConsoleRedirectUris({ IDENTITY_CONSOLE_REDIRECT_URIS: 'http://evil.example/cb' })).toThrow(
      /IDENTITY_CONSOLE_REDIRECT_URIS/,
    );
  });
});

describe('the console client', () => {
  const uris = ['https://c.example/console/callback'];

  it('is a public first-party client of the tenant its id names', () => {
    expect(consoleClientOf(consoleClientId('acme'), uris)).toMatchObject({
      clientId: 'console.acme',
      tenantId: 'acme',
      redirectUris: uris,
      firstParty: true,
      sealedSecret: null,
    });
    expect(consoleClientOf('console.a.b-c', uris)?.tenantId).toBe('a.b-c');
  });

  it('does not exist for a malformed tenant id, another prefix, or when turned off', () => {
    expect(consoleClientOf('console.', uris)).toBeNull();
    expect(consoleClientOf('console./x', uris)).toBeNull();
    expect(consoleClientOf(`console.${'a'.repeat(256)}`, uris)).toBeNull();
    expect(consoleClientOf('consoleX.acme', uris)).toBeNull();
    expect(consoleClientOf('console.acme', [])).toBeNull();
  });

  it('stands beside the registered clients, which the store still answers for', async () => {
    const registered = { clientId: 'Ab3', tenantId: 'acme' } as never;
    const store = withConsoleClients(
      strictFake<OidcClientStore>({ findById: async (id) => (id === 'Ab3' ? registered : null) }),
      uris,
    );
    expect((await store.findById('console.acme'))?.tenantId).toBe('acme');
    expect(await store.findById('Ab3')).toBe(registered);
    expect(await store.findById('nope')).toBeNull();
  });
});

describe('redirect URIs on loopback', () => {
  it.each([
    ['http://localhost:53682/cb', undefined],
    ['http://127.0.0.1:8080/console/callback', undefined],
    ['http://[::1]:8080/cb', undefined],
    ['http://127.0.0.2/cb', 'must use https (or http on localhost, 127.0.0.1 or [::1])'],
    ['http://app.example/cb', 'must use https (or http on localhost, 127.0.0.1 or [::1])'],
  ])('%s', (uri, problem) => {
    expect(redirectUriProblem(uri)).toBe(problem);
  });
});
