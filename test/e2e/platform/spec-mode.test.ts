// The spec's trust-the-gateway mode end to end: the whole platform started with REQUIRE_AUTH=false
// and no other auth switch, every service's main path called with X-Tenant-ID only (no
// Authorization) on its REST port: ledger append/verify, validation with an inline pack, the
// registries' reads, a registry workflow pack (validation and ai steps) through approval, AI
// inference with retrieval context, a retrieval upload and query, an OCR extract handed to
// retrieval. Each service-to-service call made for such a caller carries the calling service's
// tenant-scoped identity (platform/auth/service-identity.ts), never the caller's absence: the
// packs-registry call that used to answer 401 (and the workflow 503) is the regression here.
// Also: two tenants by header see only their own data; a service identity cannot reach another
// tenant; a per-service switch (LEDGER_REQUIRE_AUTH=true, RAG_REQUIRE_AUTH=true) still answers
// 401 without a token while its callers keep working through the service identity; the gateway
// stays the authenticating edge.
import { startOutboxTask } from '../../../launcher/outbox-task';
import { registryOf, SERVICES } from '../../../launcher/registry';
import { AccessTokens } from '../../../platform/auth/jwt';
import { ServiceIdentity, TENANT_DELEGATE_ROLE } from '../../../platform/auth/service-identity';
import { createLogger } from '../../../platform/logging/logger';
import { aiBrokerService } from '../../../services/ai-broker';
import { ledgerService } from '../../../services/ledger';
import { packsRegistryService } from '../../../services/packs-registry';
import { ragService } from '../../../services/rag';
import { workflowService } from '../../../services/workflow';
import { invoicePage } from '../../fixtures/ocr/invoice-pages';
import { startServices, TEST_JWT_SECRET, type Harness } from '../../support/service-harness';
import { freePort, until } from '../../support/waiting';
import { POLICY_MD } from '../rag/rag.support';
import { startPlatform, type Platform } from '../router/platform.support';
import { GOOD_RECORD, KYC_PACK } from '../validation/support/packs';

jest.setTimeout(300_000);

const A = 'spec-a';
const B = 'spec-b';

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

async function send(
  url: string,
  init: {
    method?: string;
    tenant?: string;
    token?: string;
    body?: unknown;
    form?: FormData;
    headers?: Record<string, string>;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.tenant) headers['x-tenant-id'] = init.tenant;
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined && !init.form ? 'GET' : 'POST'),
    headers,
    body: init.form ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

function fileForm(
  file: { content: string | Buffer; filename: string; type: string },
  fields: Record<string, string> = {},
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append(
    'file',
    new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)], { type: file.type }),
    file.filename,
  );
  return form;
}

const issue = (username: string, tenantId: string, roles: string[]) =>
  new AccessTokens(TEST_JWT_SECRET, 3600).issue({ username, tenantId, roles, scopes: ['read', 'write'] });

describe("REQUIRE_AUTH=false alone: the whole platform trusts the gateway's X-Tenant-ID", () => {
  let platform: Platform;
  let url: Record<string, string>;
  let relay: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    // Nothing but REQUIRE_AUTH=false about authentication; the rest only makes the test cheaper.
    platform = await startPlatform({
      REQUIRE_AUTH: 'false',
      PASSWORD_SCRYPT_LOG_N: '10',
      OCR_WORKERS: '1',
      WORKFLOW_POLL_MS: '50',
    });
    url = platform.urls;
    relay = startOutboxTask({
      running: SERVICES,
      registry: registryOf(),
      db: platform.db,
      env: platform.env,
      logger: createLogger('ERROR', 'relay'),
      jwtSecret: TEST_JWT_SECRET,
    });
  });
  afterAll(async () => {
    for (const r of relay) await r.stop();
    await platform?.close();
  });

  const retrieve = async (tenant: string, query: string): Promise<any[]> => {
    const r = await send(`${url.rag}/retrieve`, { tenant, body: { query, top_k: 5 } });
    expect(r.status).toBe(200);
    return r.body.chunks as any[];
  };

  test('ledger: append and verify by header, and another tenant sees none of it', async () => {
    const appended = await send(`${url.ledger}/append`, {
      tenant: A,
      body: { tenant_id: A, event_type: 'spec_mode_check', event_data: { n: 1 } },
    });
    expect(appended.status).toBe(200);
    const verified = await send(`${url.ledger}/verify?tenant_id=${A}`, { tenant: A });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ valid: true });
    expect(verified.body.total_events).toBeGreaterThanOrEqual(1);
    const mine = await send(`${url.ledger}/events?event_type=spec_mode_check`, { tenant: A });
    expect(mine.body.events.map((e: any) => e.id)).toContain(appended.body.id);
    const theirs = await send(`${url.ledger}/events?event_type=spec_mode_check`, { tenant: B });
    expect(theirs.status).toBe(200);
    expect(theirs.body.events).toEqual([]);
    // Naming A while the gateway pinned B is refused, not answered.
    expect((await send(`${url.ledger}/events?tenant_id=${A}`, { tenant: B })).status).toBe(403);
  });

  test('validation with an inline pack', async () => {
    const r = await send(`${url.validation}/validate`, {
      tenant: A,
      body: { rule_pack: KYC_PACK, payload: GOOD_RECORD },
    });
    expect(r.status).toBe(200);
    expect(r.body.result.valid).toBe(true);
  });

  test("the registries' reads answer by header; their writes still need a token (they name a person)", async () => {
    const schemas = await send(`${url['schema-registry']}/schemas`, { tenant: A });
    expect(schemas.status).toBe(200);
    expect(schemas.body.schemas.length).toBeGreaterThan(0); // the built-in platform schemas
    expect((await send(`${url['rulepack-registry']}/rulepacks`, { tenant: A })).status).toBe(200);
    expect((await send(`${url['packs-registry']}/packs`, { tenant: A })).status).toBe(200);
    expect((await send(`${url['rulepack-registry']}/rulepacks`, { tenant: A, body: { pack: KYC_PACK } })).status).toBe(
      401,
    );
    expect(
      (
        await send(`${url['packs-registry']}/packs`, {
          tenant: A,
          body: {
            artifact: { metadata: { pack_id: 'x', version: '1.0.0', workflow_type: 'operational' }, steps: [] },
            format: 'json',
          },
        })
      ).status,
    ).toBe(401);
  });

  test('a workflow whose pack id the packs registry does not hold runs the built-in pack through approval (the registry call that answered 401)', async () => {
    const r = await send(`${url.workflow}/execute`, {
      tenant: A,
      body: { workflow_pack_id: 'legacy-title-pack', workflow_type: 'legal', payload: { property: 'P-9' } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'pending_approval', pack_source: 'builtin', requires_human_approval: true });
    // Another tenant cannot decide A's task.
    expect(
      (
        await send(`${url.workflow}/approve/${r.body.approval_task_id}`, {
          tenant: B,
          body: { decision: 'approve' },
          headers: { 'x-user-id': 'mallory' },
        })
      ).status,
    ).toBe(404);
    const d = await send(`${url.workflow}/approve/${r.body.approval_task_id}`, {
      tenant: A,
      body: { decision: 'approve', notes: 'checked' },
      headers: { 'x-user-id': 'bob' },
    });
    expect(d.status).toBe(200);
    expect(d.body).toMatchObject({ reviewer: 'bob', workflow_status: 'completed' });
  });

  test('a registry pack with validation and ai steps runs through approval for a caller with no token', async () => {
    // Setup with tokens (submitting and certifying name people in either mode).
    const author = await issue('spec-author', A, ['user']);
    const reviewer = await issue('spec-reviewer', A, ['reviewer']);
    const rulePack = {
      metadata: { pack_id: 'spec-amounts', version: '1.0.0', name: 'Amounts' },
      rules: [
        {
          rule_id: 'positive',
          type: 'FATAL',
          field: 'amount',
          operator: '>',
          value: 0,
          error_message: 'amount must be positive',
        },
      ],
    };
    const rp = url['rulepack-registry'];
    expect((await send(`${rp}/rulepacks`, { token: author, body: { pack: rulePack } })).status).toBe(201);
    expect((await send(`${rp}/rulepacks/spec-amounts/versions/1.0.0/submit`, { token: author, body: {} })).status).toBe(
      200,
    );
    expect(
      (await send(`${rp}/rulepacks/spec-amounts/versions/1.0.0/certify`, { token: reviewer, body: {} })).status,
    ).toBe(200);
    const artifact = {
      metadata: { pack_id: 'spec-flow', version: '1.0.0', workflow_type: 'legal', name: 'Spec mode flow' },
      steps: [
        { step: 'check', type: 'validation', rule_pack_id: 'spec-amounts', rule_pack_version: '1.0.0' },
        {
          step: 'summarise',
          type: 'ai',
          model: 'extractive',
          prompt: 'Summarise the transfer of {{property}}.',
          output_field: 'summary',
        },
      ],
    };
    expect(
      (await send(`${url['packs-registry']}/packs`, { token: author, body: { artifact, format: 'json' } })).status,
    ).toBe(201);
    const certified = await send(`${url['packs-registry']}/packs/spec-flow/versions/1.0.0/certify`, {
      method: 'POST',
      token: reviewer,
    });
    if (certified.status !== 200) throw new Error(`certify: ${certified.status} ${JSON.stringify(certified.body)}`);

    const r = await send(`${url.workflow}/execute`, {
      tenant: A,
      body: { workflow_pack_id: 'spec-flow', workflow_type: 'legal', payload: { property: 'P-10', amount: 5 } },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'pending_approval', pack_source: 'registry' });
    const d = await send(`${url.workflow}/approve/${r.body.approval_task_id}`, {
      tenant: A,
      body: { decision: 'approve' },
      headers: { 'x-user-id': 'bob' },
    });
    // The decision answers once the run settles or its sync wait ends (a loaded machine): either way
    // the run goes on to completion, which /status shows.
    expect(['running', 'completed']).toContain(d.body.workflow_status);
    let status = await send(`${url.workflow}/status/${r.body.workflow_id}`, { tenant: A });
    await until(
      async () => {
        status = await send(`${url.workflow}/status/${r.body.workflow_id}`, { tenant: A });
        return status.body.status !== 'running';
      },
      'the approved run to finish',
      { tries: 1200, everyMs: 100 },
    );
    expect(status.status).toBe(200);
    expect(status.body.status).toBe('completed');
    const steps = Object.fromEntries(status.body.steps.map((s: any) => [s.step, s]));
    expect(steps.check).toMatchObject({ status: 'completed' });
    expect(steps.summarise).toMatchObject({ status: 'completed' });
    // The run's audit reaches A's ledger through the outbox, and nothing of it B's.
    await until(
      async () =>
        (await send(`${url.ledger}/events?event_type=workflow_execution`, { tenant: A })).body.events.some(
          (e: any) => e.event_data.workflow_id === r.body.workflow_id && e.event_data.status === 'completed',
        ),
      "the workflow_execution event in A's ledger",
    );
    expect((await send(`${url.ledger}/events?event_type=workflow_execution`, { tenant: B })).body.events).toEqual([]);
  });

  test('retrieval: upload and query by header; AI inference with retrieval context; another tenant finds nothing', async () => {
    const up = await send(`${url.rag}/documents/upload`, {
      tenant: A,
      form: fileForm(
        { content: POLICY_MD, filename: 'travel.md', type: 'text/markdown' },
        { title: 'Travel policy', level: 'platform' },
      ),
    });
    expect(up.status).toBe(200);
    expect(
      (await retrieve(A, 'hotel nights reimbursed in capital cities')).some(
        (c) => c.document_title === 'Travel policy',
      ),
    ).toBe(true);
    expect(
      (await retrieve(B, 'hotel nights reimbursed in capital cities')).some(
        (c) => c.document_title === 'Travel policy',
      ),
    ).toBe(false);
    // retrieval -> AI broker for the answer.
    const answer = await send(`${url.rag}/query`, {
      tenant: A,
      body: { query: 'How much are hotel nights reimbursed in capital cities?' },
    });
    expect(answer.status).toBe(200);
    // AI broker -> retrieval for context.
    const inference = await send(`${url['ai-broker']}/api/ai/inference`, {
      tenant: A,
      body: { prompt: 'How much are hotel nights reimbursed in capital cities?', model: 'extractive', use_rag: true },
    });
    expect(inference.status).toBe(200);
    expect(inference.body).toMatchObject({ model_used: 'extractive', rag_unavailable: false });
  });

  test('OCR: an extract by header, handed to retrieval under the same tenant', async () => {
    const page = invoicePage(47);
    const r = await send(`${url.ocr}/extract`, {
      tenant: A,
      form: fileForm({ content: page.png, filename: 'spec-scan.png', type: 'image/png' }, { index_in_rag: 'true' }),
    });
    expect(r.status).toBe(202);
    let job: any;
    await until(
      async () => {
        job = (await send(`${url.ocr}/jobs/${r.body.job_id}`, { tenant: A })).body;
        return !['pending', 'processing'].includes(job.status);
      },
      'the OCR job to finish',
      { tries: 1200, everyMs: 100 },
    );
    expect(job.status).toBe('completed');
    expect((await send(`${url.ocr}/jobs/${r.body.job_id}`, { tenant: B })).status).toBe(404);
    let found: any[] = [];
    await until(
      async () => {
        found = (await retrieve(A, 'ACME Supplies invoice Harbour Street')).filter(
          (c) => c.document_title === 'spec-scan.png',
        );
        return found.length > 0;
      },
      'the OCR text in retrieval',
      { tries: 600, everyMs: 100 },
    );
    expect(
      (await retrieve(B, 'ACME Supplies invoice Harbour Street')).some((c) => c.document_title === 'spec-scan.png'),
    ).toBe(false);
  });

  test('the service identity is tenant-scoped: it cannot reach another tenant', async () => {
    const identity = new ServiceIdentity(TEST_JWT_SECRET, 'workflow');
    const token = await identity.tokenFor(A);
    const claims = await new AccessTokens(TEST_JWT_SECRET, 60).authenticate(token);
    expect(claims).toMatchObject({ tenantId: A, roles: [TENANT_DELEGATE_ROLE], isService: false });
    expect((await send(`${url.ledger}/events?tenant_id=${B}`, { token })).status).toBe(403);
    expect((await send(`${url.ledger}/events`, { token, tenant: B })).status).toBe(403);
    expect(
      (
        await send(`${url.validation}/validate`, {
          token,
          tenant: B,
          body: { rule_pack: KYC_PACK, payload: GOOD_RECORD },
        })
      ).status,
    ).toBe(403);
    expect((await send(`${url['packs-registry']}/packs`, { token, tenant: B })).status).toBe(403);
    expect((await send(`${url.rag}/retrieve`, { token, tenant: B, body: { query: 'hotel' } })).status).toBe(403);
    expect(
      (await send(`${url.workflow}/execute`, { token, tenant: B, body: { workflow_type: 'operational', payload: {} } }))
        .status,
    ).toBe(403);
    expect((await send(`${url.ledger}/verify?tenant_id=${B}`, { token })).status).toBe(403);
    expect(
      (await send(`${url.ledger}/append`, { token, body: { tenant_id: B, event_type: 'forged', event_data: {} } }))
        .status,
    ).toBe(403);
    // Its own tenant is open to it, as to the caller it stands for.
    expect((await send(`${url.ledger}/verify?tenant_id=${A}`, { token })).status).toBe(200);
  });

  test("the router's REST gateway stays the authenticating edge: no token is 401; a token is verified and its tenant forwarded", async () => {
    const anonymous = await send(`${platform.gateway}/api/v1/ledger/append`, {
      tenant: A,
      body: { event_type: 'through_gateway', event_data: {} },
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const token = await issue('gateway-user', A, ['user']);
    const appended = await send(`${platform.gateway}/api/v1/ledger/append`, {
      token,
      body: { event_type: 'through_gateway', event_data: {} },
    });
    expect(appended.status).toBe(200);
    expect(
      (
        await send(`${platform.gateway}/api/v1/ledger/append`, {
          token,
          tenant: B,
          body: { event_type: 'through_gateway', event_data: {} },
        })
      ).status,
    ).toBe(403);
    const run = await send(`${platform.gateway}/api/v1/workflows/execute`, {
      token,
      body: { workflow_pack_id: 'legacy-ops-pack', workflow_type: 'operational', payload: {} },
    });
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ status: 'completed', pack_source: 'builtin' });
    expect((await send(`${url.ledger}/events?event_type=through_gateway`, { tenant: A })).body.events).toHaveLength(1);
  });
});

describe('a per-service switch wins over REQUIRE_AUTH=false', () => {
  let h: Harness;

  beforeAll(async () => {
    const ports = {
      ledger: await freePort(),
      rag: await freePort(),
      'ai-broker': await freePort(),
      'packs-registry': await freePort(),
      workflow: await freePort(),
    };
    const urls = Object.fromEntries(
      Object.entries(ports).map(([name, port]) => [
        `${name.toUpperCase().replace(/-/g, '_')}_URL`,
        `http://127.0.0.1:${port}`,
      ]),
    );
    h = await startServices(
      [ledgerService, ragService, aiBrokerService, packsRegistryService, workflowService],
      {
        REQUIRE_AUTH: 'false',
        LEDGER_REQUIRE_AUTH: 'true',
        RAG_REQUIRE_AUTH: 'true',
        PACKS_REGISTRY_REQUIRE_AUTH: 'true',
        ...urls,
        OCR_URL: `http://127.0.0.1:${await freePort()}`,
      },
      { ports },
    );
  });
  afterAll(async () => h?.close());

  test('LEDGER_REQUIRE_AUTH=true: the ledger answers 401 without a token', async () => {
    const r = await send(`${h.services.ledger!.url}/append`, {
      tenant: A,
      body: { tenant_id: A, event_type: 'x', event_data: {} },
    });
    expect(r.status).toBe(401);
    expect(r.headers.get('www-authenticate')).toBe('Bearer');
    expect(r.body).toEqual({ detail: 'Not authenticated' });
    const token = await issue('writer', A, ['user']);
    expect(
      (
        await send(`${h.services.ledger!.url}/append`, {
          token,
          body: { tenant_id: A, event_type: 'x', event_data: {} },
        })
      ).status,
    ).toBe(200);
  });

  test('RAG_REQUIRE_AUTH=true: retrieval refuses a caller without a token, and the broker (open) still gets context through its own identity', async () => {
    const rag = h.services.rag!.url;
    expect((await send(`${rag}/retrieve`, { tenant: A, body: { query: 'hotel' } })).status).toBe(401);
    const token = await issue('uploader', A, ['user']);
    expect(
      (
        await send(`${rag}/documents/upload`, {
          token,
          form: fileForm(
            { content: POLICY_MD, filename: 'travel.md', type: 'text/markdown' },
            { title: 'Travel policy' },
          ),
        })
      ).status,
    ).toBe(200);
    const r = await send(`${h.services['ai-broker']!.url}/api/ai/inference`, {
      tenant: A,
      body: { prompt: 'How much are hotel nights reimbursed in capital cities?', model: 'extractive', use_rag: true },
    });
    expect(r.status).toBe(200);
    // Retrieval answered the broker (not 401): the call carried the broker's identity for tenant A.
    expect(r.body.rag_unavailable).toBe(false);
    const other = await send(`${h.services['ai-broker']!.url}/api/ai/inference`, {
      tenant: B,
      body: { prompt: 'How much are hotel nights reimbursed in capital cities?', model: 'extractive', use_rag: true },
    });
    expect(other.body).toMatchObject({ rag_unavailable: false, rag_chunks_used: 0 });
  });

  test('PACKS_REGISTRY_REQUIRE_AUTH=true: the registry refuses a caller without a token, and the open workflow still reaches it through its own identity', async () => {
    expect((await send(`${h.services['packs-registry']!.url}/packs`, { tenant: A })).status).toBe(401);
    // Before: 503 "The packs registry refused the workflow service's request" (the caller's absent token forwarded).
    const r = await send(`${h.services.workflow!.url}/execute`, {
      tenant: A,
      body: { workflow_pack_id: 'legacy-ops-pack', workflow_type: 'operational', payload: {} },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', pack_source: 'builtin' });
  });
});
