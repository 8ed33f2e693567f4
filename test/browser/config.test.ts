// The console's Configuration page (issue 30) in Debian's Chromium over a started platform
// (identity, schema registry, workflow, config, gateway): the tenant's effective configuration with
// the provenance of each key, its bundles, its rollouts with their state, and a promotion waiting
// for a second person linking to its task in the approvals inbox; zero axe-core WCAG AA violations.
import type { Browser } from 'playwright-core';
import { AccessTokens } from '../../platform/auth/jwt';
import { configService } from '../../services/config';
import { gatewayService } from '../../services/gateway';
import { identityService } from '../../services/identity';
import { ledgerService } from '../../services/ledger';
import { schemaRegistryService } from '../../services/schema-registry';
import { workflowService } from '../../services/workflow';
import { TEST_ENV } from '../e2e/identity/identity.helpers';
import { gql, startPlatform, type Platform } from '../e2e/router/platform.support';
import { TEST_JWT_SECRET } from '../support/service-harness';
import { until } from '../support/waiting';
import { axeViolations, buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

let p: Platform;
let browser: Browser;
let built: ReturnType<typeof buildConsole>;
const tokens = new AccessTokens(TEST_JWT_SECRET, 3600);

beforeAll(async () => {
  built = buildConsole();
  browser = await launchChromium();
  p = await startPlatform(
    { ...TEST_ENV, WORKFLOW_POLL_MS: '50', CONFIG_ROLLOUT_POLL_MS: '100', CONSOLE_DIR: built.dir },
    [identityService, ledgerService, schemaRegistryService, workflowService, configService, gatewayService],
  );
});

afterAll(async () => {
  await browser?.close();
  await p?.close();
  built?.remove();
});

async function rest(token: string, path: string, body: unknown): Promise<any> {
  const res = await fetch(`${p.gateway}/api/v1/config${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

test('effective configuration with provenance, bundles, rollouts, and the pending approval linked to the inbox', async () => {
  const root = await tokens.issue({
    username: 'root',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['read', 'write'],
  });
  const bob = await tokens.issue({
    username: 'bob',
    tenantId: 'default',
    roles: ['admin', 'user'],
    scopes: ['read', 'write'],
  });
  const v1 = await rest(root, '/bundles', {
    layer: 'tenant',
    namespace: 'ai_broker',
    content: { requests_per_minute: 30 },
  });
  const r1 = await rest(root, `/rollouts/${v1.id}/promote`, {});
  const decided = await gql(
    p.gateway,
    `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve") { message } }`,
    {
      token: bob,
      variables: { id: r1.approval_task_id },
    },
  );
  expect(decided.body.errors).toBeUndefined();
  await until(async () => {
    const res = await fetch(`${p.gateway}/api/v1/config/rollouts/${r1.id}`, {
      headers: { authorization: `Bearer ${root}` },
    });
    return ((await res.json()) as { status: string }).status === 'applied';
  }, 'v1 applied');
  const v2 = await rest(root, '/bundles', {
    layer: 'tenant',
    namespace: 'ai_broker',
    content: { requests_per_minute: 60 },
  });
  const r2 = await rest(root, `/rollouts/${v2.id}/promote`, { percentage: 50 });

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${p.gateway}/console/config`);
  await page.getByLabel('Username').fill(TEST_ENV.DEV_ADMIN_USERNAME);
  await page.getByLabel('Password').fill(TEST_ENV.DEV_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();

  const provenance = page.getByTestId('config-provenance');
  await provenance.locator('tr', { hasText: '/ai_broker/requests_per_minute' }).waitFor();
  expect(await provenance.innerText()).toMatch(/\/ai_broker\/requests_per_minute\s+tenant\s+v1/);
  const rollouts = page.getByTestId('config-rollout');
  await rollouts.filter({ hasText: 'pending approval' }).waitFor();
  expect(await rollouts.filter({ hasText: 'applied' }).innerText()).toContain('ai_broker v1');
  expect(await page.getByTestId('config-bundles').innerText()).toMatch(/ai_broker\s+tenant default\s+v2/);
  const link = page.getByRole('link', { name: 'Decide in the approvals inbox' });
  expect(await link.getAttribute('href')).toBe(`/console/approvals#task-${r2.approval_task_id}`);
  expect(await axeViolations(page)).toEqual([]);

  await link.click();
  await page.getByRole('heading', { level: 1, name: 'Approvals inbox' }).waitFor();
  await page.locator(`[id="task-${r2.approval_task_id}"]`).waitFor();
  await context.close();
});
