// Idempotency-Key on POST /api/ai/inference (docs/ai-broker.md): the same key with the same body
// is answered once by the model and then replayed (header idempotent-replayed, one usage event);
// another body under the key is 422, a key still running is 409, a bad key is 422; keys are per
// tenant, so another tenant's same key runs on its own; detokenize requests are never stored.
import { defineAiBrokerService } from '../../../services/ai-broker';
import { startServices, type Harness } from '../../support/service-harness';
import { tenantToken } from '../router/platform.support';
import { brokerEvents, client, schemaRegistryStub } from './support/broker.support';

jest.setTimeout(120_000);

let h: Harness;
let call: ReturnType<typeof client>;
let tokenA: string;
let tokenB: string;

beforeAll(async () => {
  h = await startServices([defineAiBrokerService({ schemas: schemaRegistryStub() })], {});
  call = client(h.services['ai-broker']!.url);
  tokenA = await tenantToken('idem-a');
  tokenB = await tenantToken('idem-b');
});
afterAll(async () => {
  await h?.close();
});

const ask = (token: string, key: string | undefined, body: Record<string, unknown>) =>
  call('POST', '/api/ai/inference', { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });
const usage = async (tenant: string) =>
  (await brokerEvents(h)).filter((e) => e.tenant_id === tenant && e.event_type === 'ai_inference');

test("a retried request with the same key and body is answered once and replayed; another tenant's same key runs on its own", async () => {
  const body = { prompt: 'Summarise: invoices are kept for ten years.' };
  const first = await ask(tokenA, 'step-1', body);
  expect(first.status).toBe(200);
  expect(first.headers.get('idempotent-replayed')).toBeNull();
  const again = await ask(tokenA, 'step-1', body);
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(await usage('idem-a')).toHaveLength(1);

  const theirs = await ask(tokenB, 'step-1', body);
  expect(theirs.status).toBe(200);
  expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  expect(theirs.body.correlation_id).not.toBe(first.body.correlation_id);
  expect(await usage('idem-b')).toHaveLength(1);

  // Without a key every request runs.
  await ask(tokenA, undefined, body);
  await ask(tokenA, undefined, body);
  expect(await usage('idem-a')).toHaveLength(3);
});

test('the key with another body is 422; a key still running is 409; a malformed key is 422', async () => {
  await ask(tokenA, 'step-2', { prompt: 'first question' });
  const other = await ask(tokenA, 'step-2', { prompt: 'another question' });
  expect(other.status).toBe(422);
  expect(other.body.detail[0].loc).toEqual(['header', 'idempotency-key']);

  // The first request with the key is still being answered (its claim is running).
  await h.db.sql.query(
    `UPDATE ai_idempotent_replies SET status = 'running', response = NULL WHERE tenant_id = 'idem-a' AND idempotency_key = 'step-2'`,
  );
  const busy = await ask(tokenA, 'step-2', { prompt: 'first question' });
  expect(busy.status).toBe(409);
  expect(busy.body.detail).toMatch(/still being answered/);

  const bad = await ask(tokenA, 'has space', { prompt: 'x' });
  expect(bad.status).toBe(422);
  expect(bad.body.detail[0].loc).toEqual(['header', 'idempotency-key']);
});

test('an expired key is claimed afresh', async () => {
  const body = { prompt: 'Summarise: travel is booked in economy.' };
  await ask(tokenA, 'step-4', body);
  await h.db.sql.query(
    `UPDATE ai_idempotent_replies SET expires_at = now() - interval '1 second' WHERE tenant_id = 'idem-a' AND idempotency_key = 'step-4'`,
  );
  const after = await ask(tokenA, 'step-4', body);
  expect(after.status).toBe(200);
  expect(after.headers.get('idempotent-replayed')).toBeNull();
});
