// Signing keys across restarts and processes: a generated key is kept in the database (a restart
// signs with it, and two registries starting together on one database agree on one key);
// RULEPACK_SIGNING_KEY takes over when set, and every key used before stays published, so
// signatures made before a rotation still verify.
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createLogger } from '../../../platform/logging/logger';
import { loadPlatformConfig } from '../../../platform/config/platform.config';
import {
  generateSigningKeyPem,
  parseSigningKeyPem,
  publicJwkOf,
  verifyPack,
} from '../../../subgraphs/rulepack-registry/pack-signature';
import { prismaSigningKeyStore } from '../../../subgraphs/rulepack-registry/signing-key.store';
import { SigningKeys } from '../../../subgraphs/rulepack-registry/signing-keys.service';
import { defineRulePackRegistryService } from '../../../services/rulepack-registry';
import { loadRulePackRegistryConfig } from '../../../subgraphs/rulepack-registry/rulepack-registry.config';
import { registryOf } from '../../../launcher/registry';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { certified, registryClient, samplePack, startRegistry } from './rulepack.support';

jest.setTimeout(180_000);

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.drop());

async function keySet(url: string): Promise<{ keys: any[] }> {
  const res = await fetch(`${url}/.well-known/rulepack-keys.json`);
  expect(res.status).toBe(200);
  return (await res.json()) as { keys: any[] };
}

it('keeps a generated key across a restart, then rotates to RULEPACK_SIGNING_KEY with the old key still published', async () => {
  // First start: a key is generated and stored.
  const first = await startRegistry({}, { db });
  const api1 = registryClient(first.registry);
  const v1 = await certified(api1, first.people, samplePack('keys-a', '1.0.0'));
  const before = await keySet(first.registry);
  expect(before.keys).toHaveLength(1);
  expect(before.keys[0].kid).toBe(v1.key_id);
  await first.close();

  // The registry alone restarts on the same database.
  const config = loadPlatformConfig({ LOG_LEVEL: 'ERROR', JWT_SECRET_KEY: TEST_JWT_SECRET, NODE_ENV: 'test' });
  const restarted = await defineRulePackRegistryService().build({
    config,
    db,
    env: {},
    logger: createLogger('ERROR', 'rulepack-registry'),
    registry: registryOf(),
  });
  await restarted.app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(restarted.app.server.address() as import('node:net').AddressInfo).port}`;
  try {
    const after = await keySet(url);
    expect(after.keys.map((k) => k.kid)).toEqual([v1.key_id]);
    expect(verifyPack(v1.pack, v1.signature, after.keys[0])).toBe(true);
  } finally {
    await restarted.stop?.();
    await restarted.app.close();
  }

  // Rotation: a configured key becomes the signing key; the generated one stays published.
  const pem = generateSigningKeyPem();
  const configuredKid = publicJwkOf(parseSigningKeyPem(pem)).kid;
  const keys = new SigningKeys(prismaSigningKeyStore(db.prisma), pem);
  await keys.ensureActive();
  expect((await keys.current()).kid).toBe(configuredKid);
  const rotated = await keys.keySet();
  expect(rotated.keys.map((k) => k.kid).sort()).toEqual([v1.key_id, configuredKid].sort());
  // The configured key's private half never reaches the database.
  expect(
    (await db.prisma.rulePackSigningKey.findUniqueOrThrow({ where: { kid: configuredKid } })).privateKeyPem,
  ).toBeNull();
  const old = rotated.keys.find((k) => k.kid === v1.key_id)!;
  expect(verifyPack(v1.pack, v1.signature, old)).toBe(true);

  // Unset again: a fresh generated key takes over; all three stay published.
  const unset = new SigningKeys(prismaSigningKeyStore(db.prisma));
  await unset.ensureActive();
  const third = await unset.current();
  expect([v1.key_id, configuredKid]).not.toContain(third.kid);
  expect((await unset.keySet()).keys).toHaveLength(3);
});

it('signs with RULEPACK_SIGNING_KEY (one line with \\n escapes works too) and refuses a bad one at start', async () => {
  const pem = generateSigningKeyPem();
  const kid = publicJwkOf(parseSigningKeyPem(pem)).kid;
  const f = await startRegistry({ RULEPACK_SIGNING_KEY: pem.replace(/\n/g, '\\n') });
  try {
    const done = await certified(registryClient(f.registry), f.people, samplePack('keys-env', '1.0.0'));
    expect(done.key_id).toBe(kid);
    expect(verifyPack(done.pack, done.signature, publicJwkOf(parseSigningKeyPem(pem)))).toBe(true);
    expect((await keySet(f.registry)).keys.map((k) => k.kid)).toEqual([kid]);
  } finally {
    await f.close();
  }
  expect(() => loadRulePackRegistryConfig({ RULEPACK_SIGNING_KEY: 'not a key' })).toThrow(
    /RULEPACK_SIGNING_KEY must be a PKCS8 PEM Ed25519 private key/,
  );
});

it('registries starting together on one empty database agree on one key', async () => {
  const fresh = await createTestDatabase();
  try {
    const instances = Array.from({ length: 4 }, () => new SigningKeys(prismaSigningKeyStore(fresh.prisma)));
    await Promise.all(instances.map((k) => k.ensureActive()));
    const kids = await Promise.all(instances.map(async (k) => (await k.current()).kid));
    expect(new Set(kids).size).toBe(1);
    expect(await fresh.prisma.rulePackSigningKey.count()).toBe(1);
  } finally {
    await fresh.drop();
  }
});
