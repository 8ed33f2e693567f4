// The attacks from the "hostile input" report, against the real ledger on its real database:
// each is a 422 naming the field, nothing is written, and the ledger keeps serving.
import { ledgerService } from '../../../services/ledger';
import { startServices, type Harness } from '../../support/service-harness';

jest.setTimeout(60_000);

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startServices([ledgerService], { LEDGER_REQUIRE_AUTH: 'false' }); // anonymous gateway traffic, as the spec's default
  url = h.services.ledger!.url;
});
afterAll(async () => h?.close());

async function append(body: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${url}/append`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, body: await res.json() };
}

const event = (eventData: string) => `{"tenant_id":"t-hostile","event_type":"x","event_data":${eventData}}`;

it.each([
  [
    'event_data nested 7,000 levels (pinned the embedded database)',
    event('{"a":'.repeat(7000) + '1' + '}'.repeat(7000)),
    'json_too_deep',
  ],
  ['event_data nested 100,000 levels', event('['.repeat(100_000) + ']'.repeat(100_000)), 'json_too_deep'],
  ['a NUL in event_data', event('{"a":{"b":"\\u0000"}}'), 'string_unicode'],
  ['a lone surrogate in event_data', event('{"a":{"b":"\\ud800"}}'), 'string_unicode'],
  ['-1e400 in event_data', event('{"a":{"b":-1e400}}'), 'finite_number'],
])('%s → 422, nothing written', async (_label, body, type) => {
  const res = await append(body);
  expect(res.status).toBe(422);
  expect(res.body.detail[0].type).toBe(type);
  expect(res.body.detail[0].loc.slice(0, 3)).toEqual(['body', 'event_data', expect.anything()]);
  const events = (await (await fetch(`${url}/events?tenant_id=t-hostile`)).json()) as { total: number };
  expect(events.total).toBe(0);
});

it('names the exact field of a bad value', async () => {
  expect((await append(event('{"a":{"b":"\\ud800"}}'))).body.detail[0].loc).toEqual(['body', 'event_data', 'a', 'b']);
});

it('still appends ordinary events, 64 levels deep included', async () => {
  const res = await append(event('{"a":'.repeat(63) + '1' + '}'.repeat(63))); // the body's own object is level 1
  expect(res.status).toBe(200);
  expect(((await (await fetch(`${url}/events?tenant_id=t-hostile`)).json()) as { total: number }).total).toBe(1);
});
