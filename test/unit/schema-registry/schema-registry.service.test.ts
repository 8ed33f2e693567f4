// The service's checks that come before any data: with a strict fake store (any call fails the
// test), bad input, missing scopes and impossible names never reach the database.
import type { Caller } from '../../../platform/auth/caller';
import { TenantAccess } from '../../../platform/auth/tenant-access';
import { ForbiddenError, InputError, NotFoundError } from '../../../platform/errors/domain-errors';
import { SchemaRegistryService } from '../../../subgraphs/schema-registry/schema-registry.service';
import type { SchemaStore } from '../../../subgraphs/schema-registry/schema-registry.store';

const strictStore = new Proxy({} as SchemaStore, {
  get: (_target, method) => () => {
    throw new Error(`unexpected store call: ${String(method)}`);
  },
});
const service = new SchemaRegistryService(
  strictStore,
  new TenantAccess(async () => {
    throw new Error('unexpected operator audit');
  }),
);
const caller = (scopes: string[]): Caller => ({
  auth: { username: 'u', tenantId: 't', roles: ['user'], scopes, isService: false },
  correlationId: 'c',
});
const writer = caller(['read', 'write']);

async function issues(work: Promise<unknown>): Promise<unknown[]> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InputError);
  return (err as InputError).issues.map((i) => i.loc);
}

it('register: names, versions, kinds and modes are checked first, each issue naming its domain field', async () => {
  expect(
    await issues(
      service.register(writer, {
        name: '../x',
        version: 'v1',
        definition: {},
        kind: 'other' as never,
        compatibility: 'ALL' as never,
      }),
    ),
  ).toEqual([['name'], ['version'], ['kind'], ['compatibility']]);
  expect(await issues(service.register(writer, { name: 'ok', version: '1.0.0', definition: { type: 42 } }))).toEqual([
    ['definition'],
  ]);
  expect(await issues(service.register(writer, { name: 'ok', version: '1.0.0+meta', definition: {} }))).toEqual([
    ['version'],
  ]);
});

it('scopes: reads need `read`, writes `write`', async () => {
  await expect(service.list(caller([]), {})).rejects.toBeInstanceOf(ForbiddenError);
  await expect(
    service.register(caller(['read']), { name: 'ok', version: '1.0.0', definition: {} }),
  ).rejects.toBeInstanceOf(ForbiddenError);
  await expect(
    service.setCompatibility(caller(['read']), { name: 'ok', compatibility: 'NONE' }),
  ).rejects.toBeInstanceOf(ForbiddenError);
});

it('paging arguments and cursors are checked before the store is asked', async () => {
  expect(await issues(service.list(writer, { first: 0 }))).toEqual([['first']]);
  expect(await issues(service.list(writer, { first: 201 }))).toEqual([['first']]);
  expect(await issues(service.list(writer, { after: 'bm90LWEtY3Vyc29y' }))).toEqual([['after']]);
});

it('a name no schema could have is simply not found', async () => {
  await expect(service.get(writer, { name: '../../etc', version: 'latest' })).rejects.toBeInstanceOf(NotFoundError);
  await expect(service.versions(writer, { name: '' })).rejects.toBeInstanceOf(NotFoundError);
});

it('another tenant is refused by the tenant rule before any data', async () => {
  await expect(service.list(writer, { tenantId: 'other' })).rejects.toBeInstanceOf(ForbiddenError);
  await expect(
    service.register(writer, { tenantId: 'other', name: 'ok', version: '1.0.0', definition: {} }),
  ).rejects.toBeInstanceOf(ForbiddenError);
});
