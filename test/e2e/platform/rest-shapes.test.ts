// The REST shapes existing clients read, across the whole platform (issue 22, part 3).
// Idempotency-Key through the gateway: a retried append is stored once and says it was replayed.
// Unknown members in REST bodies: FastAPI's default (pydantic's
// extra='ignore') ignores them, so every spec route here does too, through the service's own
// port and through the gateway; the member is neither stored nor echoed. The signed or certified
// artifacts' submissions (rule packs, workflow packs) and identity's admin writes still refuse
// them with 422 extra_forbidden (docs/decisions.md, "Unknown members"). The AI broker, ledger and
// OCR have their own cases in their suites (ai-broker-offline, ledger-rest, ocr-rest).
import { KYC_PACK, GOOD_RECORD } from '../validation/support/packs';
import { DEV, startPlatform, type Platform } from '../router/platform.support';

jest.setTimeout(180_000);

const MARK = 'zq81-unknown-member';
let platform: Platform;
let token: string;

beforeAll(async () => {
  platform = await startPlatform({ PASSWORD_SCRYPT_LOG_N: '10', WORKFLOW_POLL_MS: '50' });
  token = await platform.login(DEV.admin.username, DEV.admin.password);
});
afterAll(async () => platform?.close());

async function call(
  url: string,
  method: string,
  body?: unknown,
  auth = true,
): Promise<{ status: number; text: string; body: any }> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(auth ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, text, body: parsed };
}

it('identity: POST /v1/auth/login ignores an unknown member', async () => {
  const r = await call(
    `${platform.urls.identity}/v1/auth/login`,
    'POST',
    { username: DEV.admin.username, password: DEV.admin.password, tenant_id: 'default', remember_me: MARK },
    false,
  );
  expect(r.status).toBe(200);
  expect(r.body.access_token).toEqual(expect.any(String));
  expect(r.text).not.toContain(MARK);
});

it('validation: POST /validate ignores an unknown member', async () => {
  const r = await call(`${platform.urls.validation}/validate`, 'POST', {
    rule_pack: KYC_PACK,
    payload: GOOD_RECORD,
    callback_url: MARK,
  });
  expect(r.status).toBe(200);
  expect(r.body.result.valid).toBe(true);
  expect(r.text).not.toContain(MARK);
});

it('workflow: POST /execute, on its port and through the gateway, ignores an unknown member; the execution does not keep it', async () => {
  for (const url of [`${platform.urls.workflow}/execute`, `${platform.gateway}/api/v1/workflows/execute`]) {
    const r = await call(url, 'POST', { workflow_type: 'operational', payload: { x: 1 }, priority: MARK });
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(MARK);
    const status = await call(`${platform.urls.workflow}/status/${r.body.workflow_id}`, 'GET');
    expect(status.status).toBe(200);
    expect(status.text).not.toContain(MARK);
  }
});

it('retrieval: POST /retrieve ignores an unknown member', async () => {
  const r = await call(`${platform.urls.rag}/retrieve`, 'POST', { query: 'payment terms', top_k: 2, rerank: MARK });
  expect(r.status).toBe(200);
  expect(r.text).not.toContain(MARK);
});

it('schema registry: a registered schema ignores an unknown member of the request, not of the schema', async () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } } };
  const r = await call(`${platform.urls['schema-registry']}/schemas/unknown-members/versions`, 'POST', {
    version: '1.0.0',
    schema,
    note: MARK,
  });
  expect(r.status).toBe(201);
  const read = await call(`${platform.urls['schema-registry']}/schemas/unknown-members/versions/1.0.0`, 'GET');
  expect(read.status).toBe(200);
  expect(read.text).not.toContain(MARK);
});

it('the strict doors still refuse unknown members with 422 extra_forbidden: rule-pack and workflow-pack submissions, identity admin writes', async () => {
  const rulePack = await call(`${platform.urls['rulepack-registry']}/rulepacks`, 'POST', {
    pack: { ...KYC_PACK, metadata: { ...KYC_PACK.metadata, pack_id: 'strict-probe', version: '1.0.0' } },
    signature: MARK,
  });
  expect(rulePack.status).toBe(422);
  expect(rulePack.body.detail).toEqual([
    { loc: ['body', 'signature'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
  ]);

  const workflowPack = {
    metadata: { pack_id: 'strict-probe', version: '1.0.0', workflow_type: 'operational', name: 'Probe' },
    steps: [{ step: 'notify', type: 'action', action: 'notify' }],
  };
  const pack = await call(`${platform.urls['packs-registry']}/packs`, 'POST', {
    artifact: workflowPack,
    format: 'json',
    signature: MARK,
  });
  expect(pack.status).toBe(422);
  expect(pack.body.detail).toEqual([
    { loc: ['body', 'signature'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
  ]);
  // Inside the artifact the contract schema decides, as before.
  const inner = await call(`${platform.urls['packs-registry']}/packs`, 'POST', {
    artifact: { ...workflowPack, signature: MARK },
    format: 'json',
  });
  expect(inner.status).toBe(422);
  expect(inner.body.detail[0]).toMatchObject({ loc: ['body', 'artifact', 'signature'], type: 'extra_forbidden' });

  const user = await call(`${platform.urls.identity}/v1/users`, 'POST', {
    username: 'strict-probe',
    password: 'strict-probe-password',
    is_admin: true,
  });
  expect(user.status).toBe(422);
  expect(user.body.detail[0]).toMatchObject({ loc: ['body', 'is_admin'], type: 'extra_forbidden' });
});

it("the gateway's POST /api/v1/ledger/append with an Idempotency-Key retried: one event, the replay says so", async () => {
  const send = () =>
    fetch(`${platform.gateway}/api/v1/ledger/append`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': 'gateway-retry-1',
      },
      body: JSON.stringify({ event_type: 'retry_probe', event_data: { n: 1 } }),
    });
  const first = await send();
  expect(first.status).toBe(200);
  const again = await send();
  expect(again.status).toBe(200);
  expect(await again.json()).toEqual(await first.json());
  expect(again.headers.get('idempotent-replayed')).toBe('true');
  const events = await call(`${platform.gateway}/api/v1/ledger/events?event_type=retry_probe`, 'GET');
  expect(events.body.total).toBe(1);
});
