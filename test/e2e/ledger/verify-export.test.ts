// The independent verifier (bench/verify-export.ts, spec rules only) against a real export.
import { verifyExport, type ExportedEvent } from '../../../bench/verify-export';
import { ledgerService } from '../../../services/ledger';
import { startServices, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);

let h: Harness;
let csv: string;
let events: ExportedEvent[];

beforeAll(async () => {
  h = await startServices([ledgerService], { LEDGER_REQUIRE_AUTH: 'false' }); // anonymous gateway traffic, as the spec's default
  const url = h.services.ledger!.url;
  const bodies = [
    {
      event_type: 'rag_query',
      event_data: { query: 'naïve "café", 日本', results_count: 2, confidence: 0.93, hierarchy_levels: ['a'] },
      user_id: 'alice',
      correlation_id: 'c-1',
    },
    {
      event_type: 'gtas_reconciliation',
      event_data: { total_amount: 1234567.89, voucher_count: 12, discrepancies: [{ b: 2, a: 1 }] },
      description: '=HYPERLINK("x")\r\nsecond line',
    },
    {
      event_type: 'title_search',
      event_data: { nested: { deep: [1e21, -0.5, null, true] } },
      user_id: '-dash',
      correlation_id: '@at',
    },
  ];
  for (const b of bodies) {
    const r = await fetch(`${url}/append`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tenant_id: 'audited', ...b }),
    });
    expect(r.status).toBe(200);
  }
  csv = await (await fetch(`${url}/export?tenant_id=audited`)).text();
  events = ((await (await fetch(`${url}/events?tenant_id=audited`)).json()) as { events: ExportedEvent[] }).events;
});
afterAll(async () => h?.close());

it('accepts an untouched export', () => {
  expect(verifyExport(csv, events)).toEqual({ valid: true, events: 3, csvRows: 3, errors: [] });
});

it('finds edited event data, a reordered chain and a doctored CSV row', () => {
  const edited = events.map((e, i) => (i === 1 ? { ...e, event_data: { ...e.event_data, total_amount: 1 } } : e));
  expect(verifyExport(csv, edited).errors).toEqual([expect.stringMatching(/^event 2 .*content_hash/)]);
  const swapped = [events[1]!, events[0]!, events[2]!];
  expect(verifyExport(csv, swapped).valid).toBe(false);
  const doctored = csv.replace(events[2]!.chain_hash, 'f'.repeat(64));
  expect(verifyExport(doctored, events).errors).toEqual([expect.stringMatching(/^CSV row 3: chain_hash/)]);
});
