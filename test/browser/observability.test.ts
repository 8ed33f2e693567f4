// The console's observability page (issue 31) in Debian's Chromium over a started platform
// (identity, config, ledger, observability, the router): an alert rule of the tenant fires (the service's
// own evaluation loop, every second here) and shows as firing; it is silenced from its row with a
// justification, and the silence lists who and why; a trace posted over OTLP is found by the
// span search and opens as a waterfall of its spans; the tenant's request rate, from metric
// samples posted over OTLP, is drawn on the dashboards; no axe-core WCAG AA violation.
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { TEST_ENV } from '../e2e/identity/identity.helpers';
import { gql, startPlatform, type Platform } from '../e2e/router/platform.support';
import { until } from '../support/waiting';
import { configService } from '../../services/config';
import { gatewayService } from '../../services/gateway';
import { identityService } from '../../services/identity';
import { ledgerService } from '../../services/ledger';
import { observabilityService } from '../../services/observability';
import { axeViolations, buildConsole, launchChromium } from './browser.support';

jest.setTimeout(300_000);

let p: Platform;
let browser: Browser;
let context: BrowserContext;
let built: ReturnType<typeof buildConsole>;
let rootToken: string;
const traceId = randomBytes(16).toString('hex');

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

function otlpSpan(spanId: string, name: string, startMs: number, ms: number, parent?: string) {
  return {
    traceId,
    spanId,
    parentSpanId: parent,
    name,
    startTimeUnixNano: String(BigInt(startMs) * 1_000_000n),
    endTimeUnixNano: String(BigInt(startMs + ms) * 1_000_000n),
    attributes: [{ key: 'platform.tenant_id', value: { stringValue: 'default' } }],
    status: { code: name.includes('fail') ? 2 : 0 },
  };
}

beforeAll(async () => {
  built = buildConsole();
  browser = await launchChromium();
  p = await startPlatform(
    // The platform's own metrics are not recorded here: the dashboard draws the series posted below only.
    { ...TEST_ENV, CONSOLE_DIR: built.dir, OBSERVABILITY_ALERT_EVAL_MS: '1000', OBSERVABILITY_RECORD_MS: '0' },
    [identityService, configService, ledgerService, observabilityService, gatewayService],
  );
  rootToken = await p.login(TEST_ENV.DEV_ADMIN_USERNAME, TEST_ENV.DEV_ADMIN_PASSWORD);
  // The tenant's own request count (tenant_requests_total{tenant="default"}): the sign-in made it at least 1.
  const rule = await gql(p.gateway, `mutation($input: AlertRuleInput!) { createAlertRule(input: $input) { id } }`, {
    token: rootToken,
    variables: {
      input: {
        name: 'default tenant busy',
        kind: 'threshold',
        metric: 'tenant_requests_total',
        op: '>=',
        threshold: 1,
        severity: 'page',
        summary: 'Any request at all',
      },
    },
  });
  expect(rule.body.errors).toBeUndefined();
  const now = Date.now() - 5_000;
  const posted = await fetch(`${p.urls.observability}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'console-demo' } }] },
          scopeSpans: [
            {
              spans: [
                otlpSpan('aaaaaaaaaaaaaaa1', 'POST /graphql', now, 120),
                otlpSpan('aaaaaaaaaaaaaaa2', 'ledger append', now + 20, 40, 'aaaaaaaaaaaaaaa1'),
                otlpSpan('aaaaaaaaaaaaaaa3', 'ai step fail', now + 70, 30, 'aaaaaaaaaaaaaaa1'),
              ],
            },
          ],
        },
      ],
    }),
  });
  expect(posted.status).toBe(200);
  // The tenant's request counter at two minutes: 60, then 180 a minute later (2 requests/s).
  const minute = Math.floor(Date.now() / 60_000) * 60_000;
  const metrics = await fetch(`${p.urls.observability}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      resourceMetrics: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'console-demo' } }] },
          scopeMetrics: [
            {
              metrics: [
                {
                  name: 'tenant_requests_total',
                  sum: {
                    isMonotonic: true,
                    aggregationTemporality: 2,
                    dataPoints: [
                      [minute - 180_000, 60],
                      [minute - 120_000, 180],
                    ].map(([t, v]) => ({
                      attributes: [{ key: 'tenant', value: { stringValue: 'default' } }],
                      timeUnixNano: String(BigInt(t!) * 1_000_000n),
                      asDouble: v,
                    })),
                  },
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  expect(metrics.status).toBe(200);
  // The loop evaluates every second: wait for the firing state by the API before the page looks.
  await until(
    async () => {
      const r = await gql(p.gateway, `{ observabilityAlerts(firing: true) { state } }`, { token: rootToken });
      return r.body.data?.observabilityAlerts?.length === 1;
    },
    'the rule to fire',
    { tries: 600, everyMs: 100 },
  );
});

afterAll(async () => {
  await context?.close().catch(() => undefined);
  await browser?.close();
  await p?.close();
  built?.remove();
});

test('alerts fire and are silenced with a reason; a trace is found and opens as a waterfall', async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page: Page = await context.newPage();
  await page.goto(`${p.gateway}/console/observability`);
  await page.getByLabel('Username').fill(TEST_ENV.DEV_ADMIN_USERNAME);
  await page.getByLabel('Password').fill(TEST_ENV.DEV_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Observability' }).waitFor();

  // Dashboards: the tenant's request rate from the stored series; the platform's are for operators.
  const dashboards = page.getByTestId('dashboards');
  await seen(dashboards, 'Your requests per second');
  await seen(dashboards, 'Latest minute: 2.00 requests/s');
  await seen(dashboards, 'for platform operators');
  expect(await dashboards.locator('canvas').count()).toBeGreaterThan(0);

  await seen(page.getByTestId('alert-state'), 'firing');
  await seen(page.getByTestId('alerts'), 'default tenant busy');
  await page.getByLabel('Why silence (required to silence)').fill('known load test');
  await page.getByRole('button', { name: 'Silence 1 h' }).click();
  await seen(page.getByTestId('silences'), /alertname.*default tenant busy.*root: known load test/);

  await page.getByLabel('Service').fill('console-demo');
  await page.getByRole('button', { name: 'Search' }).click();
  await seen(page.locator('table'), 'ledger append');
  await page
    .getByRole('button', { name: `${traceId.slice(0, 8)}…` })
    .first()
    .click();
  const waterfall = page.getByTestId('waterfall');
  await seen(waterfall, '3 spans over 120.0 ms');
  expect(await waterfall.getByTestId('waterfall-span').count()).toBe(3);
  await seen(waterfall, 'ai step fail (30.0 ms) ⚠ error');
  expect(await axeViolations(page)).toEqual([]);
});
