// VALIDATION_REQUIRE_AUTH=false, the spec's trust-the-gateway mode: an anonymous run acts in the
// tenant of X-Tenant-ID (and is audited there with no user); without that header it is a 422
// naming the header, never a run in some default tenant.
import { defineValidationService } from '../../../services/validation';
import { startServices, type Harness } from '../../support/service-harness';
import { GOOD_RECORD, KYC_PACK } from './support/packs';

jest.setTimeout(60_000);

let h: Harness;
let url: string;

beforeAll(async () => {
  h = await startServices([defineValidationService()], { VALIDATION_REQUIRE_AUTH: 'false' });
  url = h.services.validation!.url;
});
afterAll(async () => h?.close());

async function run(headers: Record<string, string>) {
  const res = await fetch(`${url}/validate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ rule_pack: KYC_PACK, payload: GOOD_RECORD }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

it("an anonymous run acts in X-Tenant-ID's tenant and is audited there without a user", async () => {
  const r = await run({ 'x-tenant-id': 'tenant-anon' });
  expect(r.status).toBe(200);
  const rows = await h.db.sql.query<{ tenant_id: string; user_id: string | null; correlation_id: string }>(
    `SELECT tenant_id, user_id, correlation_id FROM outbox_events WHERE service = 'validation'`,
  );
  expect(rows.rows).toEqual([{ tenant_id: 'tenant-anon', user_id: null, correlation_id: r.body.correlation_id }]);
});

it('without X-Tenant-ID an anonymous run is a 422 naming the header', async () => {
  const r = await run({});
  expect(r.status).toBe(422);
  expect(r.body.detail).toEqual([{ loc: ['header', 'x-tenant-id'], msg: 'Field required', type: 'missing' }]);
});
