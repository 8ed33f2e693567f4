// Two ledger instances on one PostgreSQL (as two processes would be): a subscription held on one
// sees appends taken by the other, through the event bus (NOTIFY, or NATS when NATS_URL is set).
// PGlite is single-process, so this runs on PostgreSQL only.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { ledgerService } from '../../../subgraphs/ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);
const onPostgres = process.env.DATABASE_URL ? describe : describe.skip;

onPostgres('subscription across ledger instances', () => {
  let first: Harness;
  let second: Harness;
  let client: Client;
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase();
    // The harness's config does not name the throwaway database by itself; the NOTIFY bus needs its URL.
    const env = { NATS_URL: process.env.NATS_URL, DATABASE_URL: db.config.url, LEDGER_REQUIRE_AUTH: 'false' };
    first = await startServices([ledgerService], env, { db });
    second = await startServices([ledgerService], env, { db });
  });
  afterAll(async () => {
    await client?.dispose();
    await second?.close();
    await first?.close();
    await db?.drop();
  });

  it('delivers an append made on the other instance', async () => {
    client = createClient({ url: first.services.ledger!.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { 'x-tenant-id': 'cross' }, retryAttempts: 0 });
    const received: { seq: number; eventData: { n: number } }[] = [];
    await new Promise<void>((resolve) => {
      client.on('connected', () => setTimeout(resolve, 500));
      client.subscribe({ query: 'subscription { ledgerEventAppended { seq eventData } }' }, {
        next: (v) => received.push((v.data as { ledgerEventAppended: { seq: number; eventData: { n: number } } }).ledgerEventAppended),
        error: () => {}, complete: () => {},
      });
    });
    for (let n = 1; n <= 3; n++) {
      const r = await fetch(`${second.services.ledger!.url}/append`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tenant_id: 'cross', event_type: 'x', event_data: { n } }) });
      expect(r.status).toBe(200);
    }
    for (let i = 0; i < 200 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect(received.map((e) => [e.seq, e.eventData.n])).toEqual([[1, 1], [2, 2], [3, 3]]);
  });
});
