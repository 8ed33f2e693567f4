// docs/adding-a-service.md, proved: the example service (test/fixtures/notes) is added to a
// registry and nothing else; the gateway routes to it, the router composes and joins it with
// identity, the outbox relay delivers its audit events to the ledger, and the tenant rule holds.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { createLogger } from '../../../platform/logging/logger';
import { PROJECT_ROOT } from '../../../platform/project-root';
import { composeRegistry } from '../../../router/compose';
import { notesService } from '../../fixtures/notes/services/notes';
import { TEST_JWT_SECRET } from '../../support/service-harness';
import { until } from '../../support/waiting';
import { gql, startPlatform, tenantToken, type Platform } from '../router/platform.support';

jest.setTimeout(90_000);

// The one line a new service adds: its definition in the list, before the gateway.
const services = [
  ...SERVICES.filter((s) => s.name !== 'gateway'),
  notesService,
  ...SERVICES.filter((s) => s.name === 'gateway'),
];
const registry = registryOf(services);

let platform: Platform;
let relay: { stop(): Promise<void> }[] = [];
let gateway: string;

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'supergraph-'));
  const supergraph = path.join(dir, 'supergraph.graphql');
  fs.writeFileSync(supergraph, composeRegistry(registry, PROJECT_ROOT));
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', SUPERGRAPH_PATH: supergraph }, services);
  gateway = platform.gateway;
  relay = startOutboxTask({
    running: services,
    registry,
    db: platform.db,
    env: platform.env,
    logger: createLogger('ERROR', 'relay'),
    jwtSecret: TEST_JWT_SECRET,
  });
});

afterAll(async () => {
  for (const r of relay) await r.stop();
  await platform?.close();
});

it("the gateway proxies the routes its manifest declares, pinned to the caller's tenant", async () => {
  const a = await tenantToken('tenant-a');
  const b = await tenantToken('tenant-b');
  const post = await fetch(`${gateway}/api/v1/notes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'secret of A' }),
  });
  expect(post.status).toBe(200);
  expect(await post.json()).toMatchObject({ tenant_id: 'tenant-a', text: 'secret of A' });

  const listA = (await (
    await fetch(`${gateway}/api/v1/notes`, { headers: { authorization: `Bearer ${a}` } })
  ).json()) as { notes: { text: string }[] };
  expect(listA.notes.map((n) => n.text)).toContain('secret of A');
  const listB = await fetch(`${gateway}/api/v1/notes`, { headers: { authorization: `Bearer ${b}` } });
  expect(await listB.json()).toEqual({ notes: [] });
  const forged = await fetch(`${gateway}/api/v1/notes?tenant_id=tenant-a`, {
    headers: { authorization: `Bearer ${b}` },
  });
  expect(forged.status).toBe(403);
});

it("the router composes it and joins its notes with identity's users", async () => {
  const res = await fetch(`${platform.identity}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'admin-dev-password' }),
  });
  const token = ((await res.json()) as { access_token: string }).access_token;
  const added = await gql(gateway, 'mutation { addNote(text: "through the router") { id } }', { token });
  expect(added.body.errors).toBeUndefined();
  const read = await gql(gateway, '{ notes { text author { username email } } }', { token });
  expect(read.body.errors).toBeUndefined();
  expect(read.body.data.notes).toContainEqual({
    text: 'through the router',
    author: { username: 'admin', email: null },
  });
});

it('the outbox relay delivers its audit events to the ledger', async () => {
  const token = await tenantToken('tenant-c');
  await fetch(`${gateway}/api/v1/notes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'audited' }),
  });
  await until(async () => {
    const page = (await (
      await fetch(`${gateway}/api/v1/ledger/events?event_type=note_created`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { total: number };
    return page.total === 1;
  }, "the note_created event in tenant-c's ledger");
});

it('its health, readiness and OpenAPI routes come from the kernel', async () => {
  const url = platform.urls.notes!;
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
  expect(await (await fetch(`${url}/readyz`)).json()).toMatchObject({ status: 'ready' });
  const doc = (await (await fetch(`${url}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toContain('/notes');
});
