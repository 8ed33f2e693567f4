// The console's Ingestion page (issue 32) in Debian's Chromium over a started platform
// (identity, ledger, ingestion, gateway): the tenant's pipelines; a pipeline's versions; its
// batches, where a batch pushed while the page is open appears and advances through the
// ingestionBatchProgress subscription (held mid-batch by the service's test stall, then let go);
// the quarantined records with their reasons, scrubbed; a batch quarantined for a source schema
// change, with where its approval stands; zero axe-core WCAG AA violations at 1280
// and 390 px; another tenant's GraphQL sees none of it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { gatewayService } from '../../services/gateway';
import { identityService } from '../../services/identity';
import { ingestionService } from '../../services/ingestion';
import { ledgerService } from '../../services/ledger';
import { call, customersPipeline, CUSTOMERS_CSV, push } from '../e2e/ingestion/ingestion.support';
import { TEST_ENV } from '../e2e/identity/identity.helpers';
import { gql, startPlatform, tenantToken, type Platform } from '../e2e/router/platform.support';
import { axeViolations, buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

let p: Platform;
let browser: Browser;
let built: ReturnType<typeof buildConsole>;
let dir: string;
let release: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingestion-browser-'));
  release = path.join(dir, 'release');
  built = buildConsole();
  browser = await launchChromium();
  p = await startPlatform(
    {
      ...TEST_ENV,
      CONSOLE_DIR: built.dir,
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
      // A batch holds after its third committed chunk until `release` exists (NODE_ENV=test only):
      // the page is seen with a batch mid-way. The first push (2 chunks) never reaches the hold.
      INGESTION_TEST_STALL_AFTER_CHUNKS: '3',
      INGESTION_TEST_STALL_UNTIL_FILE: release,
    },
    [identityService, ledgerService, ingestionService, gatewayService],
  );
});

afterAll(async () => {
  fs.writeFileSync(release, '');
  await browser?.close();
  await p?.close();
  built?.remove();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function seen(locator: Locator, text?: string | RegExp, timeout = 30_000): Promise<void> {
  try {
    await (text === undefined ? locator : locator.filter({ hasText: text })).first().waitFor({ timeout });
  } catch (err) {
    const shown = await locator
      .page()
      .locator('body')
      .innerText()
      .catch(() => '(no page)');
    throw new Error(`${(err as Error).message}\n--- the page showed:\n${shown.slice(0, 3000)}`, { cause: err });
  }
}

async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`page error: ${err.message}`));
  await page.goto(`${p.gateway}/console/ingestion`);
  await page.getByLabel('Username').fill(TEST_ENV.DEV_ADMIN_USERNAME);
  await page.getByLabel('Password').fill(TEST_ENV.DEV_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Ingestion' }).waitFor();
  return page;
}

test('pipelines, versions, a batch advancing live by subscription, quarantine with reasons; zero axe violations; another tenant sees none', async () => {
  const root = await p.login(TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD);
  const ingestion = p.urls.ingestion!;
  const created = await call(ingestion, root, 'POST', '/api/ingestion/pipelines', {
    definition: customersPipeline('console-customers'),
  });
  expect(created.status).toBe(201);
  const id = created.body.id as string;
  const v2 = await call(ingestion, root, 'PUT', `/api/ingestion/pipelines/${id}`, {
    definition: customersPipeline('console-customers', { batch_size: 2, description: 'second version' }),
  });
  expect(v2.body.version).toBe(2);
  const first = await push(ingestion, root, id, CUSTOMERS_CSV, { sourceName: 'customers-november.csv' });
  expect(first.body).toMatchObject({ status: 'completed', progress: { rows_quarantined: 1 } });

  const page = await signedIn({ width: 1280, height: 900 });
  await seen(page.getByTestId('ingestion-pipeline'), 'console-customers');
  await page
    .getByTestId('ingestion-pipeline')
    .filter({ hasText: 'console-customers' })
    .getByRole('button', { name: 'Versions and batches' })
    .click();
  await seen(page.getByTestId('ingestion-version'), 'v2');
  expect(await page.getByTestId('ingestion-version').count()).toBe(2);
  await seen(page.getByTestId('ingestion-batch'), 'customers-november.csv');
  expect(await page.getByTestId('ingestion-batch').first().innerText()).toMatch(
    /completed[\s\S]*4 read, 3 staged, 1 quarantined/,
  );

  // A second source pushed while the page is open: 10 records in chunks of 2 hold after the
  // third chunk. The page learns of the batch and its counts through the subscription only.
  const rows = Array.from(
    { length: 10 },
    (_, i) => `${i + 10},F${i},L${i},f${i}@example.com,123-45-678${i},+1 202 555 01${i},${i}`,
  );
  const csv = ['id,first,last,email,ssn,phone,balance', ...rows, ''].join('\n');
  const pushing = push(ingestion, root, id, csv, { sourceName: 'customers-december.csv' });
  const december = page.getByTestId('ingestion-batch').filter({ hasText: 'customers-december.csv' });
  await seen(december, /running[\s\S]*6 read, 6 staged, 0 quarantined/);
  await seen(page.getByTestId('ingestion-live'), 'A batch is running');
  expect(await page.getByRole('progressbar', { name: 'Progress of customers-december.csv' }).count()).toBe(1);
  expect(await axeViolations(page)).toEqual([]);

  fs.writeFileSync(release, '');
  expect((await pushing).body.status).toBe('completed');
  await seen(december, /completed[\s\S]*10 read, 10 staged, 0 quarantined/);
  expect(await page.getByRole('progressbar', { name: 'Rows of customers-december.csv staged' }).count()).toBe(1);

  // The first batch's quarantined record, with its reason; the raw values never reach the page.
  await page
    .getByTestId('ingestion-batch')
    .filter({ hasText: 'customers-november.csv' })
    .getByRole('button', { name: 'Quarantined records' })
    .click();
  await seen(page.getByTestId('ingestion-quarantined'), 'target schema: balance must be >= 0');
  const shown = await page.locator('body').innerText();
  for (const raw of ['111-22-3333', 'grace@example.com', 'Hopper']) expect(shown).not.toContain(raw);
  expect(await axeViolations(page)).toEqual([]);
  await page.context().close();

  // A source with a new column is quarantined whole; no workflow service runs here, so the page
  // says no approval could be requested and a new pipeline version accepts it.
  const changed = csv.replace('phone,balance', 'phone,mobile,balance').replace(/,(\d+)$/gm, ',x,$1');
  const quarantined = await push(ingestion, root, id, changed, { sourceName: 'customers-mobile.csv' });
  expect(quarantined.body.status).toBe('quarantined');

  const phone = await signedIn({ width: 390, height: 844 });
  await seen(phone.getByTestId('ingestion-pipeline'), 'console-customers');
  await phone.getByRole('button', { name: 'Versions and batches' }).first().click();
  await seen(phone.getByTestId('ingestion-batch'), 'customers-december.csv');
  await seen(
    phone
      .getByTestId('ingestion-batch')
      .filter({ hasText: 'customers-mobile.csv' })
      .getByTestId('ingestion-schema-change'),
    /added mobile; removed none\): no approval could be requested/,
  );
  expect(await axeViolations(phone)).toEqual([]);
  await phone.context().close();

  // Another tenant, through the same router: no pipeline, and this one's id answers null.
  const other = await tenantToken('tenant-elsewhere');
  const theirs = await gql(
    p.gateway,
    `query ($id: ID!) { ingestionPipelines { id } ingestionPipeline(id: $id) { id versions { version } } }`,
    { token: other, variables: { id } },
  );
  expect(theirs.body.errors).toBeUndefined();
  expect(theirs.body.data).toEqual({ ingestionPipelines: [], ingestionPipeline: null });
});
