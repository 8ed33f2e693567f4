// Seeding the built-in schemas from a contracts folder: every *.schema.json file becomes a
// platform schema (name, kind and version from the file), idempotently across restarts and two
// processes starting at once; a new file or a new $id version is picked up on the next start. The
// event catalogue's topics are seeded as `events.<topic>` with their compatibility mode.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import { AccessTokens } from '../../../platform/auth/jwt';
import { eventContract } from '../../../platform/contracts/event-contract';
import { EVENT_CATALOGUE } from '../../../platform/contracts/events.catalogue';
import { RULEPACK_CERTIFIED } from '../../../platform/contracts/rulepack.events';
import { PROJECT_ROOT } from '../../../platform/project-root';
import { defineSchemaRegistryService } from '../../../services/schema-registry';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, TEST_JWT_SECRET } from '../../support/service-harness';

jest.setTimeout(120_000);

let db: TestDatabase;
let dir: string;

const workflowPack = (version: string, extra: Record<string, unknown> = {}) => ({
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: `https://platform.local/schemas/workflow-pack/${version}`,
  type: 'object',
  properties: { steps: { type: 'array' } },
  ...extra,
});

function write(file: string, value: unknown): void {
  fs.writeFileSync(path.join(dir, file), typeof value === 'string' ? value : JSON.stringify(value, null, 2));
}

beforeAll(async () => {
  db = await createTestDatabase();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'contracts-'));
  fs.copyFileSync(
    path.join(PROJECT_ROOT, 'platform/contracts/rule-pack.schema.json'),
    path.join(dir, 'rule-pack.schema.json'),
  );
  write('customer-record.schema.json', { $id: 'https://platform.local/schemas/customer-record', type: 'object' });
  write('README.md', 'not a contract');
});
afterAll(async () => {
  await db?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Starts the registry on the shared database (a "process"), reads what it serves, stops it. */
async function startAndRead(): Promise<{
  schemas: { name: string; kind: string; latest_version: string; owner: string }[];
}> {
  // Only the folder's files here: the event catalogue has its own test below.
  const h = await startServices([defineSchemaRegistryService({ contractsDir: dir, eventCatalogue: [] })], {}, { db });
  try {
    const token = await new AccessTokens(TEST_JWT_SECRET, 600).issue({
      username: 'reader',
      tenantId: 'any-tenant',
      roles: ['user'],
      scopes: ['read'],
    });
    const res = await fetch(`${h.services['schema-registry']!.url}/schemas`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return (await res.json()) as never;
  } finally {
    await h.close();
  }
}

const versionsOf = (name: string) =>
  db.prisma.schemaVersion
    .findMany({ where: { owner: 'platform', name }, orderBy: { seq: 'asc' }, select: { version: true } })
    .then((r) => r.map((v) => v.version));
const seededEvents = () =>
  db.prisma.outboxEvent.count({
    where: { service: 'schema-registry', eventType: 'schema_registered', tenantId: 'platform' },
  });

it('seeds every contract file with its name, kind and version', async () => {
  const { schemas } = await startAndRead();
  expect(schemas).toEqual([
    { name: 'customer-record', kind: 'data', latest_version: '1.0.0', compatibility: 'BACKWARD', owner: 'platform' },
    { name: 'rule-pack', kind: 'rule-pack', latest_version: '1.0.0', compatibility: 'BACKWARD', owner: 'platform' },
  ]);
  expect(await seededEvents()).toBe(2);
});

it('a restart, and two processes starting at once, neither fail nor duplicate', async () => {
  await startAndRead();
  await Promise.all([startAndRead(), startAndRead()]);
  expect(await versionsOf('rule-pack')).toEqual(['1.0.0']);
  expect(await versionsOf('customer-record')).toEqual(['1.0.0']);
  expect(await db.prisma.schemaSubject.count({ where: { owner: 'platform' } })).toBe(2);
  expect(await seededEvents()).toBe(2);
});

it('picks up a new contract file (workflow-pack) and a new version in its $id on the next start', async () => {
  write('workflow-pack.schema.json', workflowPack('2.1.0'));
  const { schemas } = await startAndRead();
  expect(schemas).toContainEqual({
    name: 'workflow-pack',
    kind: 'workflow-pack',
    latest_version: '2.1.0',
    compatibility: 'BACKWARD',
    owner: 'platform',
  });

  write('workflow-pack.schema.json', workflowPack('2.2.0', { description: 'documented' }));
  await startAndRead();
  expect(await versionsOf('workflow-pack')).toEqual(['2.1.0', '2.2.0']);
  expect(await seededEvents()).toBe(4);
});

it('a file changed without a version bump keeps the registered version (and the start goes on)', async () => {
  write('workflow-pack.schema.json', workflowPack('2.2.0', { description: 'edited in place' }));
  await startAndRead();
  const kept = await db.prisma.schemaVersion.findUniqueOrThrow({
    where: { owner_name_version: { owner: 'platform', name: 'workflow-pack', version: '2.2.0' } },
  });
  expect((kept.definition as { description: string }).description).toBe('documented');
  expect(await versionsOf('workflow-pack')).toEqual(['2.1.0', '2.2.0']);
});

it('a contract file that is not a JSON Schema stops the start with a message naming it', async () => {
  write('broken.schema.json', { type: 'not-a-type' });
  await expect(startAndRead()).rejects.toThrow(/broken\.schema\.json cannot be registered/);
  fs.rmSync(path.join(dir, 'broken.schema.json'));
});

describe('the event catalogue', () => {
  let catalogueDb: TestDatabase;
  // A contract that says how its schema may evolve (the catalogue's own all default to BACKWARD).
  const strict = eventContract({
    topic: 'test.strict-notice',
    version: 3,
    schema: Type.Object({ id: Type.String() }, { $id: 'test.strict-notice.v3' }),
    producer: 'test',
    consumers: [],
    description: 'a contract asking for FULL compatibility',
    compatibility: 'FULL',
  });
  beforeAll(async () => {
    catalogueDb = await createTestDatabase();
  });
  afterAll(async () => {
    await catalogueDb?.drop();
  });

  it('registers every topic as events.<topic>, its schema as plain JSON Schema, its version and compatibility; a restart adds nothing', async () => {
    const catalogue = [...EVENT_CATALOGUE, strict];
    const start = () =>
      startServices(
        [defineSchemaRegistryService({ contractsDir: dir, eventCatalogue: catalogue })],
        {},
        {
          db: catalogueDb,
        },
      );
    const token = await new AccessTokens(TEST_JWT_SECRET, 600).issue({
      username: 'reader',
      tenantId: 'any-tenant',
      roles: ['user'],
      scopes: ['read'],
    });
    let h = await start();
    const read = async (name: string, version = 'latest') => {
      const res = await fetch(`${h.services['schema-registry']!.url}/schemas/${name}/versions/${version}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    try {
      const certified = await read(`events.${RULEPACK_CERTIFIED.topic}`);
      expect(certified.status).toBe(200);
      // The TypeBox schema as JSON (no symbol keys), without its $id, as the events service stores it.
      const { $id: _id, ...plain } = JSON.parse(JSON.stringify(RULEPACK_CERTIFIED.schema));
      expect(certified.body).toMatchObject({
        name: 'events.rulepack.certified',
        kind: 'data',
        version: '1.0.0',
        owner: 'platform',
        compatibility: 'BACKWARD',
        created_by: null,
        schema: plain,
      });
      expect(certified.body.schema.required).toEqual(['pack_id', 'version', 'owner_tenant']);
      expect((await read('events.test.strict-notice', '3.0.0')).body).toMatchObject({
        version: '3.0.0',
        compatibility: 'FULL',
        schema: { type: 'object', required: ['id'] },
      });
      for (const c of EVENT_CATALOGUE) {
        const got = await read(`events.${c.topic}`);
        expect([c.topic, got.status, got.body.version, got.body.compatibility]).toEqual([
          c.topic,
          200,
          `${c.version}.0.0`,
          'BACKWARD',
        ]);
      }
    } finally {
      await h.close();
    }
    const subjects = () =>
      catalogueDb.prisma.schemaSubject.count({ where: { owner: 'platform', name: { startsWith: 'events.' } } });
    expect(await subjects()).toBe(catalogue.length);
    h = await start();
    await h.close();
    expect(await subjects()).toBe(catalogue.length);
    expect(
      await catalogueDb.prisma.schemaVersion.count({ where: { owner: 'platform', name: { startsWith: 'events.' } } }),
    ).toBe(catalogue.length);
  });
});
