// Rows written before the input guard (an event_data 2,000 levels deep once got in) must not
// poison a tenant: its events, export and verification keep answering, and the chain verifies.
import { ledgerService } from '../../../services/ledger';
import { createLedgerModule } from '../../../subgraphs/ledger/ledger.module';
import { startServices, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startServices([ledgerService], { LEDGER_REQUIRE_AUTH: 'false' });
  url = h.services.ledger!.url;
  // The legacy row goes in below every guard, straight through the appender, as it did then.
  const { committer } = createLedgerModule(h.db, () => {});
  const deep = '{"a":'.repeat(2000) + '1' + '}'.repeat(2000);
  for (const eventDataText of ['{"before":true}', deep, '{"after":true}']) {
    await committer.append({
      tenantId: 't-legacy',
      eventType: 'legacy',
      eventDataText,
      userId: null,
      correlationId: null,
      description: null,
      idempotencyKey: null,
      writtenBy: null,
    });
  }
  await committer.drain();
});
afterAll(async () => h?.close());

it('lists, exports and verifies a tenant holding a 2,000-level event', async () => {
  const page = await fetch(`${url}/events?tenant_id=t-legacy`);
  expect(page.status).toBe(200);
  const body = (await page.json()) as { total: number; events: { event_data: unknown }[] };
  expect(body.total).toBe(3);
  expect(body.events[0]!.event_data).toEqual({ before: true });
  expect(body.events[2]!.event_data).toEqual({ after: true });
  const csv = await fetch(`${url}/export?tenant_id=t-legacy`);
  expect(csv.status).toBe(200);
  expect((await csv.text()).split('\r\n').filter(Boolean)).toHaveLength(4);
  expect(await (await fetch(`${url}/verify?tenant_id=t-legacy`)).json()).toEqual({
    valid: true,
    total_events: 3,
    error: null,
  });
  const gql = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-tenant-id': 't-legacy' },
    body: JSON.stringify({ query: '{ ledgerEvents(first: 5) { nodes { seq eventType } } }' }),
  });
  expect(((await gql.json()) as { data: { ledgerEvents: { nodes: unknown[] } } }).data.ledgerEvents.nodes).toHaveLength(
    3,
  );
});
