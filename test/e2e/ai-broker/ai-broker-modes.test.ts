// Spec 02's redaction switches as the operator sets them: REDACTION_MODE=hash sends keyed SHA-256
// digests (the same value, the same digest), REDACTION_MODE=remove sends nothing in its place, and
// ENABLE_PII_REDACTION=false sends the prompt as written (the operator's choice) while the audit
// events still carry no value and say the mode was off.
import { defineAiBrokerService } from '../../../services/ai-broker';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { startServices, type Harness } from '../../support/service-harness';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';
import { until } from '../../support/waiting';
import { tenantToken } from '../router/platform.support';
import { brokerEvents, client, PII, schemaRegistryStub } from './support/broker.support';

jest.setTimeout(120_000);

let db: TestDatabase;
let openai: VendorStandIn;
let token: string;
beforeAll(async () => {
  db = await createTestDatabase();
  openai = await startVendor('openai');
  openai.reply = () => 'Noted.';
  token = await tenantToken('tenant-modes');
});
afterAll(async () => {
  await openai?.close();
  await db?.drop();
});

async function withBroker(
  env: Record<string, string>,
  work: (h: Harness, call: ReturnType<typeof client>) => Promise<void>,
) {
  const h = await startServices(
    [defineAiBrokerService({ schemas: schemaRegistryStub() })],
    { OPENAI_API_KEY: 'sk-oai-test', OPENAI_BASE_URL: openai.url, AI_HEALTH_PROBE_SECONDS: '1', ...env },
    { db },
  );
  try {
    const call = client(h.services['ai-broker']!.url);
    await until(
      async () => (await call('GET', '/api/ai/models/gpt-4/status', { token })).body.status === 'available',
      'the probe to find the vendor answering',
    );
    await work(h, call);
  } finally {
    await h.close();
  }
}
const prompt = `Customer ${PII.email}, SSN ${PII.ssn}; again ${PII.email}.`;
const lastSent = () => openai.completions().at(-1)!.body;

test('REDACTION_MODE=hash: keyed digests reach the vendor, one per distinct value', async () => {
  await withBroker({ REDACTION_MODE: 'hash' }, async (_h, call) => {
    const r = await call('POST', '/api/ai/inference', { token, body: { prompt, model: 'gpt-4' } });
    expect(r.status).toBe(200);
    const sent = lastSent();
    expect(sent).not.toContain(PII.email);
    expect(sent).not.toContain(PII.ssn);
    const digests = sent.match(/\[email:sha256:[0-9a-f]+\]/g)!;
    expect(digests).toHaveLength(2);
    expect(digests[0]).toBe(digests[1]);
    expect(sent).toMatch(/\[ssn:sha256:[0-9a-f]+\]/);
  });
});

test('REDACTION_MODE=remove: the values are gone, with no placeholder', async () => {
  await withBroker({ REDACTION_MODE: 'remove' }, async (_h, call) => {
    const r = await call('POST', '/api/ai/inference', { token, body: { prompt, model: 'gpt-4' } });
    expect(r.status).toBe(200);
    const sent = lastSent();
    for (const v of [PII.email, PII.ssn, '***', 'sha256']) expect(sent).not.toContain(v);
    expect(r.body.redactions.input).toMatchObject({ email: 2, ssn: 1 });
  });
});

test('ENABLE_PII_REDACTION=false: the prompt goes as written; the audit still holds no value and says the mode was off', async () => {
  await withBroker({ ENABLE_PII_REDACTION: 'false' }, async (h, call) => {
    const r = await call('POST', '/api/ai/inference', { token, body: { prompt, model: 'gpt-4' } });
    expect(r.status).toBe(200);
    expect(lastSent()).toContain(PII.ssn);
    const events = (await brokerEvents(h)).filter((e) => e.correlation_id === r.body.correlation_id);
    expect(events.map((e) => e.event_type)).toEqual(['ai_inference']);
    expect(events[0]!.event_data).toMatchObject({ redaction_mode: 'off' });
    expect(JSON.stringify(events)).not.toContain(PII.ssn);
  });
});
