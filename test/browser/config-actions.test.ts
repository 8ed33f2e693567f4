// The console's Configuration page acting (issue 30) in Debian's Chromium over a started platform
// (identity, ledger, schema registry, workflow, config, gateway): publish a bundle from the page
// (a bad JSON content is refused before any request), request its promotion, which waits for a
// second person (the requester's own approval is refused by the workflow; another admin approves
// it), publish and promote a second version the same way, then roll back to the first from the
// bundles table; zero axe-core WCAG AA violations with the forms on the page.
import type { Browser, Page } from 'playwright-core';
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

const issue = (username: string) =>
  tokens.issue({ username, tenantId: 'default', roles: ['admin', 'user'], scopes: ['read', 'write'] });

const decide = (token: string, taskId: string) =>
  gql(p.gateway, `mutation ($id: ID!) { decideApproval(taskId: $id, decision: "approve") { message } }`, {
    token,
    variables: { id: taskId },
  });

/** Publishes `content` to ai_broker from the page; resolves with the status line. */
async function publish(page: Page, content: string): Promise<string> {
  await page.getByLabel('Namespace').fill('ai_broker');
  await page.getByLabel('Content (JSON object)').fill(content);
  await page.getByRole('button', { name: 'Publish' }).click();
  const status = page.getByRole('status').filter({ hasText: 'Published ai_broker' });
  await status.waitFor();
  return status.innerText();
}

/** Requests a promotion of the bundle the form holds; resolves with the approval task id. */
async function requestPromotion(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Request promotion' }).click();
  const link = page.getByRole('link', { name: 'Open its approval task' });
  await link.waitFor();
  const href = (await link.getAttribute('href'))!;
  expect(href).toMatch(/^\/console\/approvals#task-/);
  return href.slice('/console/approvals#task-'.length);
}

test('publish, request a promotion approved by a second person, and roll back, from the page', async () => {
  const requester = await issue(TEST_ENV.DEV_ADMIN_USERNAME);
  const bob = await issue('bob');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${p.gateway}/console/config`);
  await page.getByLabel('Username').fill(TEST_ENV.DEV_ADMIN_USERNAME);
  await page.getByLabel('Password').fill(TEST_ENV.DEV_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Configuration' }).waitFor();

  // Not JSON: refused on the page, nothing published.
  await page.getByLabel('Namespace').fill('ai_broker');
  await page.getByLabel('Content (JSON object)').fill('{ requests_per_minute: 30');
  await page.getByRole('button', { name: 'Publish' }).click();
  await page.getByRole('alert').filter({ hasText: 'The content is not JSON' }).waitFor();
  expect(await page.getByText('No bundle published.').count()).toBe(1);

  expect(await publish(page, '{"requests_per_minute": 30}')).toMatch(
    /Published ai_broker v1 \(tenant\), SHA-256 [0-9a-f]{12}/,
  );
  // The promotion form now holds the bundle just published.
  expect(await page.getByLabel('Bundle', { exact: true }).locator('option:checked').innerText()).toBe(
    'ai_broker v1 (tenant)',
  );
  const task1 = await requestPromotion(page);
  await page.getByTestId('config-rollout').filter({ hasText: 'pending approval' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);

  // Four-eyes: the requester cannot approve it; a second admin can.
  const own = await decide(requester, task1);
  expect(own.body.errors?.length).toBeGreaterThan(0);
  expect((await decide(bob, task1)).body.errors).toBeUndefined();
  // configChanged refetches the page once it is applied.
  const provenance = page.getByTestId('config-provenance');
  await provenance.locator('tr', { hasText: '/ai_broker/requests_per_minute' }).waitFor({ timeout: 60_000 });
  expect(await provenance.innerText()).toMatch(/\/ai_broker\/requests_per_minute\s+tenant\s+v1/);

  expect(await publish(page, '{"requests_per_minute": 60}')).toContain('Published ai_broker v2 (tenant)');
  const task2 = await requestPromotion(page);
  expect((await decide(bob, task2)).body.errors).toBeUndefined();
  await until(async () => /requests_per_minute\s+tenant\s+v2/.test(await provenance.innerText()), 'v2 in force', {
    tries: 2400,
  });
  expect(await page.getByRole('region', { name: 'Effective configuration', exact: true }).innerText()).toContain(
    '"requests_per_minute": 60',
  );

  // Roll back to v1 from the bundles table: in force again at once, no approval needed.
  await page.getByRole('button', { name: 'Roll back to ai_broker v1 (tenant)' }).click();
  await page.getByRole('status').filter({ hasText: 'ai_broker v1 (tenant) is back in force for everyone' }).waitFor();
  await until(async () => /requests_per_minute\s+tenant\s+v1/.test(await provenance.innerText()), 'v1 back', {
    tries: 2400,
  });
  expect(await page.getByRole('region', { name: 'Effective configuration', exact: true }).innerText()).toContain(
    '"requests_per_minute": 30',
  );
  // Rolling back to the version already in force is refused with the service's reason.
  await page.getByRole('button', { name: 'Roll back to ai_broker v1 (tenant)' }).click();
  await page.getByRole('alert').filter({ hasText: 'already in force' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
});
