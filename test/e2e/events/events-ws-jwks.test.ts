// The events service's graphql-ws subscriptions accept the OIDC provider's asymmetric tokens
// (checked against the JWKS, as the gateway and every service's HTTP routes do), not only HS256.
// A stand-in JWKS server publishes one Ed25519 key; tokens are signed as the provider signs them
// (typ at+jwt, the platform audience, the issuer). A token signed by a key the JWKS does not hold
// is refused at the WebSocket's connection_init.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import WebSocket from 'ws';
import { PLATFORM_AUDIENCE } from '../../../platform/auth/asymmetric-tokens';
import { AccessTokens } from '../../../platform/auth/jwt';
import { eventsService } from '../../../services/events';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { until } from '../../support/waiting';

jest.setTimeout(60_000);

const ISSUER = 'http://issuer.test/oidc';
let h: Harness;
let jwks: Server;
let url: string;
let signingKey: CryptoKey;
let strangerKey: CryptoKey;
const clients: Client[] = [];

async function asymmetric(key: CryptoKey, tenantId: string): Promise<string> {
  return new SignJWT({ tenant_id: tenantId, roles: ['user'], scopes: ['read', 'write'] })
    .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: 'k1' })
    .setSubject('oidc-alice')
    .setIssuer(ISSUER)
    .setAudience(PLATFORM_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(key);
}

beforeAll(async () => {
  const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
  signingKey = pair.privateKey;
  strangerKey = (await generateKeyPair('EdDSA', { crv: 'Ed25519' })).privateKey;
  const publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'EdDSA', use: 'sig' };
  jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
  h = await startServices([eventsService], {
    NATS_URL: process.env.NATS_URL,
    REQUIRE_AUTH: 'true',
    IDENTITY_OIDC_ISSUER: ISSUER,
    IDENTITY_JWKS_URL: jwksUrl,
  });
  url = h.services.events!.url;
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await h?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

function subscribe(token: string) {
  const client = createClient({
    url: url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  clients.push(client);
  const received: { tenantId: string; data: { n: number } }[] = [];
  const errors: unknown[] = [];
  client.subscribe(
    { query: `subscription { events(topic: "ws.jwks", afterPosition: 0) { tenantId data } }` },
    {
      next: (v) => (v.errors ? errors.push(v.errors) : received.push((v.data as any).events)),
      // A refused connection_init closes the socket with 4403 (Forbidden).
      error: (e) => errors.push((e as { code?: number }).code ?? e),
      complete: () => {},
    },
  );
  return { received, errors };
}

async function gql(query: string, variables: Record<string, unknown>, token: string): Promise<any> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  return res.json();
}

it('a subscription authenticated with a JWKS-verified EdDSA token receives its tenant’s events', async () => {
  const token = await asymmetric(signingKey, 'ws-jwks');
  // The same token works over HTTP (the platform's authenticator) to set the topic up.
  const topic = await gql(
    `mutation($i: RegisterTopicInput!) { registerEventTopic(input: $i) { name } }`,
    { i: { name: 'ws.jwks', schema: { type: 'object' } } },
    token,
  );
  expect(topic.errors).toBeUndefined();
  const sub = subscribe(token);
  // Published with a legacy HS256 token of the same tenant: both kinds meet in one stream.
  const legacy = await new AccessTokens(TEST_JWT_SECRET, 3600).issue({
    username: 'bob',
    tenantId: 'ws-jwks',
    roles: ['user'],
    scopes: ['read', 'write'],
  });
  const published = await gql(
    `mutation($i: PublishEventInput!) { publishEvent(input: $i) { duplicate } }`,
    { i: { topic: 'ws.jwks', data: { n: 1 } } },
    legacy,
  );
  expect(published.errors).toBeUndefined();
  await until(() => sub.received.length === 1 || sub.errors.length > 0, 'the event');
  expect(sub.errors).toEqual([]);
  expect(sub.received).toEqual([{ tenantId: 'ws-jwks', data: { n: 1 } }]);
});

it('refuses a subscription whose asymmetric token was signed by a key the JWKS does not publish', async () => {
  const sub = subscribe(await asymmetric(strangerKey, 'ws-jwks'));
  await until(() => sub.errors.length > 0 || sub.received.length > 0, 'the refusal');
  expect(sub.received).toEqual([]);
  expect(sub.errors).toEqual([4403]);
});
