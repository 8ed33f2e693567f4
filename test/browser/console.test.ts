// The reviewer console (issue 25) in Debian's Chromium over the whole started platform: the
// router serves it with a strict CSP; a reviewer signs in, approves a pending workflow and
// watches the saga complete; the requester sees no decide buttons on their own request; another
// tenant's reviewer sees none of it; an OCR correction made in the page is what GET /jobs/{id}
// serves; a pack is certified by a reviewer who is not its author; hostile markup in a workflow
// payload, an OCR job, a pack description and a ledger event shows as text and never runs; every
// page has zero axe-core WCAG 2.1 AA violations at 1280 px and 390 px; a subscription's dead letter
// (killed by nacks through the gateway's REST routes) is inspected with its markup shown as text,
// redriven from the page and is back on the queue, and another tenant sees none; a session whose access
// token expires is refreshed without losing the page; sign-out revokes the refresh token.
// CONSOLE_SCREENSHOTS=1 (npm run console:screenshots) also writes docs/console/*.png.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../platform/project-root';
import { invoicePage } from '../fixtures/ocr/invoice-pages';
import { TEST_ENV } from '../e2e/identity/identity.helpers';
import { settled, upload, call } from '../e2e/ocr/ocr.support';
import { samplePack } from '../e2e/rulepack-registry/rulepack.support';
import { gql, startPlatform, type Platform } from '../e2e/router/platform.support';
import { axeViolations, buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

// No double quote: JSON shows it escaped, and the point is to find the markup as written.
const HOSTILE = `<img src=x onerror=window.__pwned='img'><script>window.__pwned='script'</script>`;
// A file name loses everything up to its last slash, so this one has none.
const HOSTILE_FILE = `<img src=x onerror=window.__pwned='ocr'>.png`;
const PEOPLE = {
  root: { username: TEST_ENV.DEV_ADMIN_USERNAME, password: TEST_ENV.DEV_ADMIN_PASSWORD },
  paula: { username: 'paula', password: 'paula-password-1' },
  operator: {
    username: TEST_ENV.PLATFORM_ADMIN_USERNAME,
    password: TEST_ENV.PLATFORM_ADMIN_PASSWORD,
    tenant: 'platform',
  },
  rita: { username: 'rita', password: 'rita-password-1' },
  bravo: { username: 'bravo', password: 'bravo-password-1', tenant: 'tenant-b' },
};
type Person = { username: string; password: string; tenant?: string };
const VIEWPORTS = [
  { width: 1280, height: 900 },
  { width: 390, height: 844 },
];
const SCREENSHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? path.join(PROJECT_ROOT, 'docs/console') : undefined;

let p: Platform;
let browser: Browser;
let built: ReturnType<typeof buildConsole>;
const contexts: BrowserContext[] = [];
let workflowId: string;
let ocrJobId: string;
/** The dead letters of `console-billing` (positions), made in beforeAll. */
let deadPositions: number[];

/** The events service's REST routes through the gateway (/api/events/...), as a person's token. */
async function events(person: Person, method: string, route: string, body?: unknown): Promise<any> {
  const res = await fetch(`${p.gateway}/api/events${route}`, {
    method,
    headers: {
      authorization: `Bearer ${await token(person)}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`events ${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function token(person: Person): Promise<string> {
  return p.login(person.username, person.password, person.tenant);
}

async function api(person: Person, query: string, variables?: Record<string, unknown>): Promise<any> {
  const res = await gql(p.gateway, query, { token: await token(person), variables });
  if (res.body.errors) throw new Error(`setup call failed: ${JSON.stringify(res.body.errors)}`);
  return res.body.data;
}

/** A signed-in page in a fresh browser context (its own cookies), on the given console page. */
async function signedIn(person: Person, pagePath = 'approvals', viewport = VIEWPORTS[0]!): Promise<Page> {
  const context = await browser.newContext({ viewport });
  contexts.push(context);
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${p.gateway}/console/${pagePath}`);
  await page.getByLabel('Username').fill(person.username);
  await page.getByLabel('Password').fill(person.password);
  if (person.tenant) await page.getByLabel('Tenant').fill(person.tenant);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor();
  return page;
}

async function open(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
}

/** Waits until the locator (holding the text, when given) is on the page; jest's expect has no web-first assertions. */
async function seen(locator: Locator, text?: string | RegExp, timeout = 30_000): Promise<void> {
  try {
    await (text === undefined ? locator : locator.filter({ hasText: text })).first().waitFor({ timeout });
  } catch (err) {
    // Say what the page showed instead: a failure here is otherwise only a timeout.
    const shown = await locator
      .page()
      .locator('body')
      .innerText()
      .catch(() => '(no page)');
    throw new Error(`${(err as Error).message}\n--- the page showed:\n${shown.slice(0, 3000)}`, { cause: err });
  }
}

async function expectNothingRan(page: Page): Promise<void> {
  expect(await page.evaluate('window.__pwned')).toBeUndefined();
  expect(await page.locator('img[src="x"]').count()).toBe(0);
}

beforeAll(async () => {
  built = buildConsole();
  browser = await launchChromium();
  p = await startPlatform({
    ...TEST_ENV,
    WORKFLOW_POLL_MS: '50',
    CONSOLE_DIR: built.dir,
    ACCESS_TOKEN_EXPIRE_MINUTES: '1',
    LOGIN_MAX_FAILURES: '1000',
  });

  // People: a tenant role `reviewer` in `default` (rita) and in tenant-b (bravo).
  await api(PEOPLE.root, `mutation { createRole(name: "reviewer", scopes: ["read", "write"]) { name } }`);
  await api(PEOPLE.root, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
    input: { username: 'rita', password: PEOPLE.rita.password, roles: ['reviewer'] },
  });
  // paula starts workflows (scope write) and reviews nothing.
  await api(PEOPLE.root, `mutation { createRole(name: "requester", scopes: ["read", "write"]) { name } }`);
  await api(PEOPLE.root, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
    input: { username: 'paula', password: PEOPLE.paula.password, roles: ['requester'] },
  });
  await api(PEOPLE.operator, `mutation { createTenant(id: "tenant-b", name: "Tenant B") { id } }`);
  await api(
    PEOPLE.operator,
    `mutation { createRole(name: "reviewer", scopes: ["read", "write"], tenantId: "tenant-b") { name } }`,
  );
  await api(PEOPLE.operator, `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`, {
    input: { username: 'bravo', password: PEOPLE.bravo.password, tenantId: 'tenant-b', roles: ['reviewer'] },
  });

  // paula's workflow waits for a reviewer; its payload carries markup.
  const run = await api(
    PEOPLE.paula,
    `mutation($input: ExecuteWorkflowInput!) { executeWorkflow(input: $input) { workflowId status } }`,
    { input: { workflowType: 'legal', payload: { property: 'CONSOLE-1', note: HOSTILE } } },
  );
  expect(run.executeWorkflow.status).toBe('PENDING_APPROVAL');
  workflowId = run.executeWorkflow.workflowId;

  // A ledger event whose description is markup.
  await api(PEOPLE.root, `mutation($input: AppendLedgerEventInput!) { appendLedgerEvent(input: $input) { seq } }`, {
    input: { eventType: 'console.test', eventData: { html: HOSTILE }, description: HOSTILE },
  });

  // Rule pack 1.0.0 certified (so 1.1.0 has a previous version to diff against); 1.1.0 by root awaits review.
  const submit = `mutation($pack: JSON) { submitRulePack(pack: $pack) { id version } }`;
  const review = `mutation($id: ID!, $version: String!) { submitRulePackForReview(id: $id, version: $version) { status } }`;
  const described = (version: string) => {
    const pack = samplePack('console-pack', version) as { metadata: Record<string, unknown>; rules: unknown[] };
    return { ...pack, metadata: { ...pack.metadata, description: `Payment checks ${HOSTILE}` } };
  };
  await api(PEOPLE.root, submit, { pack: described('1.0.0') });
  await api(PEOPLE.root, review, { id: 'console-pack', version: '1.0.0' });
  await api(PEOPLE.rita, `mutation { certifyRulePack(id: "console-pack", version: "1.0.0") { status } }`);
  const next = described('1.1.0');
  await api(PEOPLE.root, submit, {
    pack: {
      ...next,
      rules: [
        ...next.rules,
        {
          rule_id: 'currency-known',
          type: 'WARNING',
          field: 'currency',
          operator: 'in',
          value: ['EUR', 'USD'],
          error_message: 'unknown currency',
        },
      ],
    },
  });
  await api(PEOPLE.root, review, { id: 'console-pack', version: '1.1.0' });

  // A doubtful scan waits for review; its file name is markup.
  const scan = invoicePage(3, { fontPx: 8, width: 300 });
  const rootToken = await token(PEOPLE.root);
  const accepted = await upload(p.urls.ocr!, scan.png, { token: rootToken, filename: HOSTILE_FILE, type: 'image/png' });
  expect([200, 202]).toContain(accepted.status);
  ocrJobId = accepted.body.job_id;
  expect((await settled(p.urls.ocr!, ocrJobId, rootToken)).status).toBe('review');

  // Two messages of a subscription die (two deliveries each, nacked), through the gateway's REST routes.
  await events(PEOPLE.root, 'POST', '/topics', {
    name: 'console.orders',
    schema: { type: 'object', required: ['order'], properties: { order: { type: 'string' } } },
  });
  await events(PEOPLE.root, 'POST', '/subscriptions', {
    name: 'console-billing',
    topic: 'console.orders',
    from_position: 0,
    max_deliveries: 2,
    backoff_ms: 0,
  });
  for (const order of ['A-1', 'A-2'])
    await events(PEOPLE.root, 'POST', '/publish', {
      topic: 'console.orders',
      subject: order,
      data: { order, note: HOSTILE },
    });
  for (let round = 0; round < 2; round++) {
    const { messages } = await events(PEOPLE.root, 'POST', '/subscriptions/console-billing/pull', { max: 10 });
    expect(messages).toHaveLength(2);
    for (const m of messages)
      await events(PEOPLE.root, 'POST', '/subscriptions/console-billing/nack', {
        lease_id: m.lease_id,
        error: `refused ${m.event.subject} <b>${HOSTILE}</b>`,
      });
  }
  const { dead_letters } = await events(PEOPLE.root, 'GET', '/subscriptions/console-billing/dlq');
  deadPositions = dead_letters.map((d: { position: number }) => d.position);
  expect(deadPositions).toHaveLength(2);
  // tenant-b has a topic and a subscription of the same names, and no dead letter.
  await events(PEOPLE.bravo, 'POST', '/topics', { name: 'console.orders', schema: { type: 'object' } });
  await events(PEOPLE.bravo, 'POST', '/subscriptions', { name: 'console-billing', topic: 'console.orders' });
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
});

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await p?.close();
  built?.remove();
});

test('the router serves the console with a strict CSP, hashed assets cached for good, index.html never cached, no inline script', async () => {
  const index = await fetch(`${p.gateway}/console/`);
  expect(index.status).toBe(200);
  const csp = index.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(index.headers.get('cache-control')).toBe('no-cache');
  const html = await index.text();
  expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
  expect(html).not.toMatch(/https?:\/\//);
  const asset = /\/console\/assets\/[^"]+\.js/.exec(html)![0];
  const js = await fetch(`${p.gateway}${asset}`, { headers: { 'accept-encoding': 'gzip' } });
  expect(js.status).toBe(200);
  expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  // A page path is the app's too.
  expect((await fetch(`${p.gateway}/console/ledger`)).headers.get('content-security-policy')).toBe(csp);
  // Session routes: no cookie, no session; another origin is refused before identity is asked.
  expect((await fetch(`${p.gateway}/console/session/refresh`, { method: 'POST' })).status).toBe(401);
  const foreign = await fetch(`${p.gateway}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify(PEOPLE.rita),
  });
  expect(foreign.status).toBe(403);
  const wrong = await fetch(`${p.gateway}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'rita', password: 'nope' }),
  });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get('set-cookie')).toBeNull();
  const malformed = await fetch(`${p.gateway}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'rita' }),
  });
  expect(malformed.status).toBe(422);
});

test('the sign-in page has no WCAG AA violation at 1280 and 390 px, and a wrong password says so', async () => {
  for (const viewport of VIEWPORTS) {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${p.gateway}/console/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    if (SCREENSHOTS)
      await page.screenshot({ path: path.join(SCREENSHOTS, `sign-in-${viewport.width}.png`), fullPage: true });
    await page.getByLabel('Username').fill('rita');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await seen(page.getByRole('alert'), 'Wrong username, password or tenant');
  }
});

test('the requester sees their own request without decide buttons', async () => {
  const page = await signedIn(PEOPLE.paula);
  const task = page.getByTestId('approval-task').filter({ hasText: workflowId });
  await seen(task, 'This is your own request');
  expect(await task.getByRole('button', { name: 'Approve' }).count()).toBe(0);
});

test("a reviewer signs in, approves the pending workflow and watches the saga complete; the payload's markup shows as text", async () => {
  const page = await signedIn(PEOPLE.rita);
  const task = page.getByTestId('approval-task').filter({ hasText: workflowId });
  await seen(task, HOSTILE);
  await expectNothingRan(page);
  await task.getByLabel('Notes').fill('checked by the console test');
  await task.getByRole('button', { name: 'Approve' }).click();
  await seen(page.getByTestId('saga-status'), /^COMPLETED$/, 60_000);
  const after = await api(
    PEOPLE.root,
    `query($id: ID!) { workflowExecution(id: $id) { status approvalTasks { status reviewer notes } } }`,
    { id: workflowId },
  );
  expect(after.workflowExecution).toMatchObject({
    status: 'COMPLETED',
    approvalTasks: [{ status: 'approved', reviewer: 'rita', notes: 'checked by the console test' }],
  });
});

test("another tenant's reviewer sees none of it", async () => {
  const page = await signedIn(PEOPLE.bravo);
  await page.getByLabel('Status').selectOption('');
  await seen(page.getByText('No approval tasks here.'));
  await open(page, 'Workflows', 'Workflows');
  await seen(page.getByText('No workflow execution here.'));
  await open(page, 'OCR review', 'OCR review');
  await seen(page.getByText('No document is waiting for review.'));
  await open(page, 'Rule packs', 'Rule packs');
  await seen(page.getByText('No rule pack is waiting.'));
  await open(page, 'Ledger', 'Ledger');
  await page.locator('table, .empty').first().waitFor();
  expect(await page.content()).not.toContain('console.test');
  expect(await page.content()).not.toContain(workflowId);
});

test("an OCR correction made in the page is what GET /jobs/{id} serves; the file name's markup shows as text", async () => {
  const page = await signedIn(PEOPLE.rita, 'ocr');
  const form = page.locator('form.ocr').filter({ hasText: 'Pages as read' }).first();
  await seen(form.getByRole('heading', { level: 2 }), HOSTILE_FILE);
  expect(await form.getByRole('heading', { level: 2 }).textContent()).toBe(HOSTILE_FILE);
  await expectNothingRan(page);
  await seen(form, 'low confidence');
  await form.getByLabel('Corrected text').fill('INVOICE INV-2026-CONSOLE corrected in the console');
  await form.getByRole('button', { name: 'Submit correction' }).click();
  await seen(page.getByText('Saved: the job is completed.'));
  const job = await call(p.urls.ocr!, 'GET', `/jobs/${ocrJobId}`, { token: await token(PEOPLE.root) });
  expect(job.body).toMatchObject({
    status: 'completed',
    extracted_text: 'INVOICE INV-2026-CONSOLE corrected in the console',
    review: { reviewer_id: 'rita' },
  });
});

test("a pack is certified by a reviewer who is not its author; the author gets no certify button; the description's markup shows as text", async () => {
  const author = await signedIn(PEOPLE.root, 'rule-packs');
  const mine = author.getByTestId('rule-pack').filter({ hasText: 'console-pack 1.1.0' });
  await seen(mine, 'You wrote this pack');
  expect(await mine.getByRole('button', { name: 'Certify' }).count()).toBe(0);

  const page = await signedIn(PEOPLE.rita, 'rule-packs');
  const card = page.getByTestId('rule-pack').filter({ hasText: 'console-pack 1.1.0' });
  await seen(card, `Payment checks ${HOSTILE}`);
  await card.getByText('Changes against the previous version').click();
  await seen(card.locator('.diff .added'), 'currency-known');
  await expectNothingRan(page);
  await card.getByRole('button', { name: 'Certify' }).click();
  // Certified, it leaves the open list; every version shows its signature and key id.
  await page.getByLabel('Show').selectOption('all');
  const certified = page.getByTestId('rule-pack').filter({ hasText: 'console-pack 1.1.0' });
  await seen(certified.getByTestId('pack-status'), /^CERTIFIED$/);
  expect(await certified.getByTestId('pack-signature').textContent()).toMatch(/^[A-Za-z0-9_-]{40,}$/);
  const stored = await api(
    PEOPLE.root,
    `{ rulePack(id: "console-pack", version: "1.1.0") { status author reviewers signature keyId } }`,
  );
  expect(stored.rulePack).toMatchObject({
    status: 'CERTIFIED',
    author: PEOPLE.root.username,
    reviewers: ['rita'],
    signature: expect.any(String),
    keyId: expect.any(String),
  });
});

test("ledger: the event's markup shows as text; the chain verifies; workflows show the saga; charts draw", async () => {
  const page = await signedIn(PEOPLE.rita, 'ledger');
  await page.getByLabel('Event type').fill('console.test');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await seen(page.locator('table'), HOSTILE);
  await seen(page.locator('caption'), /^1 events, newest first$/);
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await seen(page.getByTestId('ledger-verification'), 'Chain verified');
  await expectNothingRan(page);
  await open(page, 'Workflows', 'Workflows');
  await seen(page.getByTestId('workflow').filter({ hasText: workflowId }), 'COMPLETED');
  expect(await page.content()).toContain('&lt;script&gt;window.__pwned');
  await expectNothingRan(page);
  await open(page, 'Charts', 'Charts');
  await seen(page.locator('.chart canvas').nth(2));
  expect(await page.locator('.chart canvas').count()).toBe(3);
});

test("dead letters: inspected with the payload's markup as text, one redriven from the page is back on the queue", async () => {
  const page = await signedIn(PEOPLE.rita, 'dead-letters');
  await page.getByRole('heading', { level: 1, name: 'Dead letters' }).waitFor();
  const rows = page.getByTestId('dead-letter');
  await seen(rows, 'A-1');
  // The tenant's only subscription is chosen on arrival.
  expect(await page.getByLabel('Subscription').inputValue()).toBe('console-billing');
  expect(await rows.count()).toBe(2);
  const [first, second] = deadPositions as [number, number];
  await page.getByRole('button', { name: `Inspect the dead letter at position ${first}` }).click();
  const detail = page.getByTestId('dead-letter-detail');
  await seen(detail.getByRole('region', { name: `Data of the dead letter at position ${first}` }), HOSTILE);
  expect(await detail.getByTestId('dead-letter-error').textContent()).toBe(`refused A-1 <b>${HOSTILE}</b>`);
  await seen(detail, /Attempts\s*2/);
  await expectNothingRan(page);
  expect(await axeViolations(page)).toEqual([]);

  await page.getByLabel(`Select the dead letter at position ${first}`).check();
  await page.getByRole('button', { name: 'Redrive selected (1)' }).click();
  await seen(page.getByRole('status'), `Redriven: 1 message back on the queue (position ${first})`);
  await seen(page.locator('caption'), /^1 dead letter, oldest first$/);
  // By REST: the redriven message left the queue of the dead and is delivered again, a first attempt.
  const { dead_letters } = await events(PEOPLE.root, 'GET', '/subscriptions/console-billing/dlq');
  expect(dead_letters.map((d: { position: number }) => d.position)).toEqual([second]);
  const { messages } = await events(PEOPLE.root, 'POST', '/subscriptions/console-billing/pull', { max: 10 });
  expect(messages.map((m: any) => [m.event.position, m.attempt, m.event.data.order])).toEqual([[first, 1, 'A-1']]);
  await events(PEOPLE.root, 'POST', '/subscriptions/console-billing/ack', { lease_ids: [messages[0].lease_id] });

  // Replay from a position: the page says where the subscription resumes.
  await page.getByLabel('After position').fill(String(first - 1));
  await page.getByRole('button', { name: 'Replay', exact: true }).click();
  await seen(page.getByRole('status'), `resumes after position ${first - 1}`);
  await expectNothingRan(page);
});

test("dead letters: another tenant's reviewer sees only its own subscription of the same name, with no dead letter", async () => {
  const page = await signedIn(PEOPLE.bravo, 'dead-letters');
  await seen(page.getByText('No dead letter in this subscription.'));
  expect(await page.getByLabel('Subscription').inputValue()).toBe('console-billing');
  expect(await page.getByTestId('dead-letter').count()).toBe(0);
  const shown = await page.content();
  expect(shown).not.toContain('A-1');
  expect(shown).not.toContain('refused');
  // Asking for tenant default's dead letter by position finds nothing either.
  const other = await gql(
    p.gateway,
    `query($pos: Float!) { deadLetter(subscription: "console-billing", position: $pos) { position } }`,
    { token: await token(PEOPLE.bravo), variables: { pos: deadPositions[1] } },
  );
  expect(other.body.data?.deadLetter ?? null).toBeNull();
});

test('dataflow: a reconciliation run with breaks shows its breaks and its evidence hash', async () => {
  const rootToken = await token(PEOPLE.root);
  const stage = async (dataset: string, records: unknown[]) => {
    const res = await fetch(`${p.urls.dataflow}/api/dataflow/datasets/${dataset}/records`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rootToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ records }),
    });
    expect(res.status).toBe(200);
  };
  await stage('trial_balance', [
    { key: '1010', data: { account: '1010', amount: 150, trial_balance_id: 'TB-C' } },
    { key: '2020', data: { account: '2020', amount: 80, trial_balance_id: 'TB-C' } },
  ]);
  await stage('vouchers', [
    { key: 'v1', data: { account: '1010', amount: 150 } },
    { key: 'v2', data: { account: '2020', amount: 75 } },
  ]);
  const ran = await api(
    PEOPLE.root,
    `mutation { runDataflowPack(input: { packId: "builtin.gtas-reconciliation", idempotencyKey: "console-1" }) { id status evidence { sha256 } } }`,
  );
  expect(ran.runDataflowPack.status).toBe('FAILED');
  const page = await signedIn(PEOPLE.rita, 'dataflow');
  await seen(page.getByTestId('dataflow-run'), 'builtin.gtas-reconciliation');
  await page.getByTestId('dataflow-run').first().getByRole('button', { name: 'Breaks and evidence' }).click();
  await seen(page.getByTestId('dataflow-break'), '2020');
  await seen(page.getByTestId('dataflow-evidence-sha'), ran.runDataflowPack.evidence.sha256);
  expect(await page.getByRole('link', { name: 'open the ledger' }).getAttribute('href')).toBe('/console/ledger');
});

test('every page: zero axe-core WCAG AA violations at 1280 and 390 px', async () => {
  const pages = [
    ['Approvals', 'Approvals inbox', 'approvals'],
    ['OCR review', 'OCR review', 'ocr'],
    ['Rule packs', 'Rule packs', 'rule-packs'],
    ['Ledger', 'Ledger', 'ledger'],
    ['Workflows', 'Workflows', 'workflows'],
    ['Dead letters', 'Dead letters', 'dead-letters'],
    ['Charts', 'Charts', 'charts'],
    ['DataFlow', 'DataFlow runs', 'dataflow'],
  ] as const;
  // A second doubtful scan, so the OCR page is seen with a job in it.
  const rootToken = await token(PEOPLE.root);
  const second = await upload(p.urls.ocr!, invoicePage(5, { fontPx: 8, width: 300 }).png, {
    token: rootToken,
    filename: 'scan-0042.png',
    type: 'image/png',
  });
  await settled(p.urls.ocr!, second.body.job_id, rootToken);
  const found: Record<string, unknown> = {};
  for (const viewport of VIEWPORTS) {
    const page = await signedIn(PEOPLE.rita, 'approvals', viewport);
    await page.getByLabel('Status').selectOption('');
    for (const [label, heading, file] of pages) {
      // The menu wraps on a phone; it stays reachable.
      await open(page, label, heading);
      await seen(page.locator('.card, .empty, .chart, table'));
      for (const summary of await page.locator('details > summary').all()) await summary.click();
      const violations = await axeViolations(page);
      if (violations.length) found[`${file}@${viewport.width}`] = violations;
      if (SCREENSHOTS)
        await page.screenshot({
          path: path.join(SCREENSHOTS, `${file}-${viewport.width}.png`),
          fullPage: viewport.width > 400,
        });
    }
  }
  expect(found).toEqual({});
});

test('an expired session refreshes before expiry without losing the page, and sign-out revokes the refresh token', async () => {
  const page = await signedIn(PEOPLE.rita, 'ledger');
  const cookie = (await page.context().cookies()).find((c) => c.name === 'console_refresh')!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console/session' });
  expect(await page.evaluate('document.cookie')).toBe('');
  // Unsaved input on the page: a reload or a sign-in form would lose it.
  await page.getByLabel('Correlation id').fill('kept-while-refreshing');
  // Tokens live one minute here (ACCESS_TOKEN_EXPIRE_MINUTES=1); the page refreshes halfway.
  const refreshed = await page.waitForResponse(
    (r) => r.url().endsWith('/console/session/refresh') && r.request().method() === 'POST',
    { timeout: 120_000 },
  );
  expect(refreshed.status()).toBe(200);
  const rotated = (await page.context().cookies()).find((c) => c.name === 'console_refresh')!;
  expect(rotated.value).not.toBe(cookie.value);
  expect(await page.getByLabel('Correlation id').inputValue()).toBe('kept-while-refreshing');
  await page.getByRole('button', { name: 'Verify chain' }).click();
  await seen(page.getByTestId('ledger-verification'), 'Chain verified');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in' }).waitFor();
  expect((await page.context().cookies()).find((c) => c.name === 'console_refresh')).toBeUndefined();
  const reuse = await fetch(`${p.identity}/v1/auth/refresh`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ refresh_token: decodeURIComponent(rotated.value) }),
  });
  expect(reuse.status).toBe(401);
});

describe('compliance reports page', () => {
  const CATALOG = path.join(PROJECT_ROOT, 'platform/contracts/oscal/fixtures/nist-800-53-rev5-subset.catalog.json');

  test('a report is generated and submitted by its author, who sees no sign-off; a reviewer signs it off; markup stays text; another tenant sees none; zero axe violations', async () => {
    const { readFileSync } = await import('node:fs');
    const catalog = JSON.parse(readFileSync(CATALOG, 'utf8')) as { catalog: { metadata: { title: string } } };
    catalog.catalog.metadata.title = `Controls ${HOSTILE}`;
    await api(
      PEOPLE.root,
      `mutation($input: ComplianceImportInput!) { importOscalCatalog(input: $input) { created } }`,
      {
        input: { framework: 'console-800-53', document: catalog },
      },
    );
    await api(
      PEOPLE.root,
      `mutation($input: ComplianceAddEvidenceInput!) { addComplianceEvidence(input: $input) { id } }`,
      {
        input: {
          controls: [{ framework: 'console-800-53', controlId: 'ac-2' }],
          content: { note: HOSTILE },
          source: HOSTILE,
          collectedAt: '2026-08-15T00:00:00Z',
        },
      },
    );

    const author = await signedIn(PEOPLE.root, 'reports');
    await author.getByRole('heading', { level: 1, name: 'Compliance reports' }).waitFor();
    await author.getByLabel('Framework').selectOption('console-800-53');
    await author.getByLabel('Quarter').fill('2026-Q3');
    await author.getByRole('button', { name: 'Generate report' }).click();
    await seen(author.getByTestId('report-status'), 'generated');
    await seen(author.getByTestId('report-result'), /partial: 1 of 20/);
    await author.getByRole('button', { name: 'Submit for review' }).click();
    await seen(author.getByTestId('report-status'), 'pending review');
    await seen(author.getByText('You generated this report'));
    expect(await author.getByRole('button', { name: 'Sign off' }).count()).toBe(0);
    // The sign-off task's state in the workflow, linked to the approvals inbox.
    await seen(author.getByTestId('report-approval-state'), 'pending');
    await seen(author.getByTestId('report-approval-task'), /role reviewer/);
    const inbox = await author.getByRole('link', { name: 'Open in the approvals inbox' }).getAttribute('href');
    expect(inbox).toMatch(/^\/console\/approvals#task-[0-9a-f-]{36}$/);
    await expectNothingRan(author);

    const reviewer = await signedIn(PEOPLE.rita, 'reports');
    await reviewer.getByRole('button', { name: 'View console-800-53 2026-Q3' }).click();
    await seen(reviewer.getByTestId('report-status'), 'pending review');
    expect(await axeViolations(reviewer)).toEqual([]);
    await reviewer.getByLabel('Review notes').fill(`checked ${HOSTILE}`);
    await reviewer.getByRole('button', { name: 'Sign off' }).click();
    await seen(reviewer.getByTestId('report-status'), 'signed off');
    await seen(reviewer.getByTestId('report-ledger-entry'), /^[0-9a-f-]{36}$/);
    await seen(reviewer.getByTestId('report-approval-state'), 'approved');
    await expectNothingRan(reviewer);
    if (SCREENSHOTS) await reviewer.screenshot({ path: path.join(SCREENSHOTS, 'reports-1280.png'), fullPage: true });

    const other = await signedIn(PEOPLE.bravo, 'reports');
    await seen(other.getByText('No reports yet'));
    expect(await other.getByTestId('report-list').count()).toBe(0);
  });
});

describe('compliance scanner page', () => {
  test('shows findings and a suppression awaiting a second person, linked to the approvals inbox; markup stays text; zero axe violations', async () => {
    const { readFileSync } = await import('node:fs');
    const pack = JSON.parse(
      readFileSync(path.join(PROJECT_ROOT, 'subgraphs/compliance-scanner/baseline.pack.json'), 'utf8'),
    ) as Record<string, unknown>;
    await api(
      PEOPLE.root,
      `mutation($input: SubmitScannerPackInput!) { submitScannerPack(input: $input) { status } }`,
      {
        input: { pack },
      },
    );
    await api(PEOPLE.rita, `mutation { certifyScannerPack(packId: "platform-baseline", version: "1.0.0") { status } }`);
    const target = await api(
      PEOPLE.root,
      `mutation($input: CreateScannerTargetInput!) { createScannerTarget(input: $input) { id } }`,
      { input: { name: 'production', kind: 'configuration', settings: { NODE_ENV: 'production', CORS_ORIGINS: '*' } } },
    );
    await api(PEOPLE.root, `mutation($input: RunScanInput!) { runScan(input: $input) { status } }`, {
      input: { targetId: target.createScannerTarget.id, packId: 'platform-baseline' },
    });
    const { scannerFindings } = await api(PEOPLE.root, `{ scannerFindings(status: OPEN) { ruleId fingerprint } }`);
    const cors = scannerFindings.find((f: { ruleId: string }) => f.ruleId === 'settings.cors-any-origin');
    await api(
      PEOPLE.root,
      `mutation($input: RequestScannerSuppressionInput!) { requestScannerSuppression(input: $input) { status } }`,
      {
        input: {
          scope: 'FINGERPRINT',
          fingerprint: cors.fingerprint,
          owner: 'root',
          justification: `Staging only until Q4 ${HOSTILE}`,
          expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
        },
      },
    );

    const reviewer = await signedIn(PEOPLE.rita, 'scanner');
    await reviewer.getByRole('heading', { level: 1, name: 'Compliance scanner' }).waitFor();
    await seen(reviewer.getByTestId('scanner-findings'), 'settings.cors-any-origin');
    await seen(reviewer.getByTestId('pending-suppression'), `Staging only until Q4 ${HOSTILE}`);
    await expectNothingRan(reviewer);
    expect(await axeViolations(reviewer)).toEqual([]);
    await reviewer.getByRole('link', { name: 'approvals inbox' }).first().click();
    await reviewer.getByRole('heading', { level: 1, name: 'Approvals' }).waitFor();
    await seen(reviewer.getByTestId('approval-task'), 'scanner_suppression');

    const other = await signedIn(PEOPLE.bravo, 'scanner');
    await seen(other.getByText('No suppression is waiting for approval.'));
    await seen(other.getByText('No findings here.'));
  });
});
