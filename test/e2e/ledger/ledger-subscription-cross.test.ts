// Two ledger instances on one PostgreSQL (as two processes would be): a subscription held on one
// sees appends taken by the other, through the event bus (NOTIFY, or NATS when NATS_URL is set).
// PGlite is single-process, so this runs on PostgreSQL only.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { ledgerService } from '../../../services/ledger';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, type Harness } from '../../support/service-harness';
import { repeatUntil, until } from '../../support/waiting';

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
    client = createClient({
      url: first.services.ledger!.url.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-tenant-id': 'cross' },
      retryAttempts: 0,
    });
    const received: { seq: number; eventType: string; eventData: { n?: number; probe?: number } }[] = [];
    client.subscribe(
      { query: 'subscription { ledgerEventAppended { seq eventType eventData } }' },
      {
        next: (v) => received.push((v.data as { ledgerEventAppended: (typeof received)[number] }).ledgerEventAppended),
        error: () => {},
        complete: () => {},
      },
    );
    const append = async (type: string, data: Record<string, number>) => {
      const r = await fetch(`${second.services.ledger!.url}/append`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tenant_id: 'cross', event_type: type, event_data: data }),
      });
      expect(r.status).toBe(200);
    };
    // graphql-ws never acknowledges a subscribe: probes through the other instance until one
    // arrives prove the subscription (and the bus between the instances) is live.
    let probe = 0;
    await repeatUntil(
      () => append('probe', { probe: ++probe }),
      () => received.length > 0,
      'the subscription to be live',
    );
    for (let n = 1; n <= 3; n++) await append('x', { n });
    const real = () => received.filter((e) => e.eventType === 'x');
    await until(() => real().length >= 3, 'three appends from the other instance');
    // In order, right after the probes in the chain.
    expect(real().map((e) => [e.seq, e.eventData.n])).toEqual([1, 2, 3].map((n) => [probe + n, n]));
  });
});
