// The purge of expired oidc_payloads rows on the real database: only rows expired at the given
// time go (never rows without an expiry), at most `limit` per call, and a later clock takes more.
import { prismaOidcPayloadStore } from '../../../subgraphs/identity/oidc/oidc-payload.store';
import { OidcPayloadPurger } from '../../../subgraphs/identity/oidc/oidc-payload.purger';
import { createTestDatabase, type TestDatabase } from '../../support/database';

jest.setTimeout(60_000);

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.drop());

const T0 = new Date('2026-03-01T12:00:00Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

it('deletes expired rows in bounded batches and leaves live and non-expiring rows', async () => {
  const store = prismaOidcPayloadStore(db.prisma);
  const row = (expiresAt: Date | null, tenantId: string | null) => ({
    payload: { jti: 'x' },
    tenantId,
    grantId: null,
    userCode: null,
    uid: null,
    expiresAt,
  });
  for (let i = 0; i < 7; i++) await store.upsert('AuthorizationCode', `old-${i}`, row(at(-10 - i), 'default'));
  await store.upsert('Session', 'live', row(at(30), 'acme'));
  await store.upsert('Session', 'forever', row(null, null));

  expect(await store.purgeExpired(T0, 3)).toBe(3);
  const purger = new OidcPayloadPurger(store, { intervalMs: 0, batchSize: 2, maxBatches: 10 });
  expect(await purger.runOnce(T0)).toBe(4);
  expect(await purger.runOnce(T0)).toBe(0);
  const left = await db.prisma.oidcPayload.findMany({ select: { id: true }, orderBy: { id: 'asc' } });
  expect(left.map((r) => r.id)).toEqual(['forever', 'live']);

  // Half an hour later the session has expired too; the row without an expiry never does.
  expect(await purger.runOnce(at(31))).toBe(1);
  expect(await store.find('Session', 'live')).toBeNull();
  expect(await store.find('Session', 'forever')).not.toBeNull();
});
