// Issue 12's "PII never reaches the logs" and "no raw PII in any error message": the broker runs
// at LOG_LEVEL=TRACE while requests carry PII in every field (prompt, system, template variables,
// retrieved context, a model id, a template id), through success, failover, every-vendor-down,
// streaming and bad input; no captured log line and no error body contains a value.
import { defineAiBrokerService } from '../../../services/ai-broker';
import { startServices, type Harness } from '../../support/service-harness';
import { startVendor, type VendorStandIn } from '../../support/vendors/vendor-stand-in';
import { until } from '../../support/waiting';
import { tenantToken } from '../router/platform.support';
import {
  client,
  PII,
  PII_VALUES,
  schemaRegistryStub,
  startRetrieval,
  type RetrievalStandIn,
} from './support/broker.support';

jest.setTimeout(120_000);

let h: Harness;
let openai: VendorStandIn;
let rag: RetrievalStandIn;
let token: string;
let call: ReturnType<typeof client>;
const logged: string[] = [];
// Under jest, pino's destination writes through process.stdout; capture it (and stderr), pass nothing on.
const capture = (data: unknown) => {
  logged.push(Buffer.isBuffer(data) ? data.toString('utf8') : String(data));
  return true;
};

beforeAll(async () => {
  jest.spyOn(process.stdout, 'write').mockImplementation(capture as typeof process.stdout.write);
  jest.spyOn(process.stderr, 'write').mockImplementation(capture as typeof process.stderr.write);
  openai = await startVendor('openai');
  rag = await startRetrieval();
  h = await startServices([defineAiBrokerService({ schemas: schemaRegistryStub() })], {
    LOG_LEVEL: 'TRACE',
    OPENAI_API_KEY: 'sk-oai-test',
    OPENAI_BASE_URL: openai.url,
    RAG_SERVICE_URL: rag.url,
    AI_HEALTH_PROBE_SECONDS: '1',
    AI_REQUEST_TIMEOUT_SECONDS: '2',
  });
  call = client(h.services['ai-broker']!.url);
  token = await tenantToken('tenant-logs');
  await until(
    async () =>
      (await call('GET', '/api/ai/models', { token })).body.models.some(
        (m: any) => m.provider === 'openai' && m.status === 'available',
      ),
    'the probe to find the vendor answering',
  );
});
afterAll(async () => {
  await h?.close();
  await Promise.all([openai?.close(), rag?.close()]);
  jest.restoreAllMocks();
});

test('PII in every field, through every path, reaches no log line and no error message', async () => {
  rag.chunks = [
    {
      content: `Holder ${PII.email}, phone ${PII.phone}.`,
      document_title: `Note on ${PII.ssn}`,
      score: 0.9,
      heading: PII.address,
    },
  ];
  openai.reply = () => `The SSN is ${PII.ssn}, card ${PII.card}.`;
  const created = await call('POST', '/api/ai/prompts', {
    token,
    body: { template_id: 'kyc', template: 'Check {{name}}', variables: ['name'] },
  });
  expect(created.status).toBe(201);
  const bodies: { status: number; text: string }[] = [];
  const infer = async (body: unknown) => {
    const r = await call('POST', '/api/ai/inference', { token, body });
    bodies.push(r);
    return r;
  };
  const everyField = {
    prompt: `Card ${PII.card} at ${PII.address}`,
    system: `Serve ${PII.email}`,
    template_id: 'kyc',
    variables: { name: PII.ssn },
    use_rag: true,
  };
  expect((await infer(everyField)).status).toBe(200);
  expect((await infer({ ...everyField, stream: true })).status).toBe(200);
  // Bad input that carries PII in the offending field: the error names the field, not the value.
  expect((await infer({ prompt: 'hi', model: PII.ssn })).status).toBe(404);
  expect((await infer({ prompt: 'hi', model: PII.email })).status).toBe(404);
  expect((await infer({ template_id: PII.ssn, variables: { name: PII.email } })).status).toBe(404);
  expect((await infer({ template_id: 'kyc', variables: { other: PII.email } })).status).toBe(422);
  expect((await infer({ prompt: `x ${PII.ssn}`, max_tokens: PII.phone })).status).toBe(422);
  const status = await call('GET', `/api/ai/models/${encodeURIComponent(PII.ssn)}/status`, { token });
  expect(status.status).toBe(404);
  bodies.push(status);
  const tmpl = await call('GET', `/api/ai/prompts/${encodeURIComponent(PII.ssn)}`, { token });
  expect(tmpl.status).toBe(404);
  bodies.push(tmpl);
  // Failover and every vendor down: errors are logged, values are not.
  openai.behaviour = 'overloaded';
  expect((await infer({ prompt: `Card ${PII.card}`, model: 'gpt-4' })).status).toBeGreaterThanOrEqual(200);
  openai.behaviour = 'ok';

  for (const b of bodies) for (const v of PII_VALUES) expect(b.text).not.toContain(v);
  const text = logged.join('');
  expect(text).toMatch(/"url":"\/api\/ai\/inference"|"path":"\/api\/ai\/inference"/); // the capture does see the request logs
  for (const v of PII_VALUES) expect(text).not.toContain(v);
});
