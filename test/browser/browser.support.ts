// The reviewer console in a real browser: Debian's Chromium (apt packages chromium and
// chromium-driver; never a browser a tool downloads) driven by playwright-core, headless, as root
// without the sandbox, background networking off; each launch gets a fresh temporary profile.
// The console is built by Vite into a temporary folder the gateway serves (CONSOLE_DIR), so the
// suite always tests the current source. axe-core is evaluated in the page through the DevTools
// protocol, which the page's CSP does not govern (an injected <script> would be refused by it).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { PROJECT_ROOT } from '../../platform/project-root';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium chromium-driver (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-dev-shm-usage',
    ],
  });
}

/** Builds the console into a fresh temporary folder; the caller removes it. */
export function buildConsole(): { dir: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'console-'));
  execFileSync(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      'console/vite.config.mts',
      '--outDir',
      dir,
      '--emptyOutDir',
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production', VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
    },
  );
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** WCAG 2.0/2.1 A and AA violations on the page as it is now. */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(axe.source);
  // A string, not a function: this project's test types have no DOM.
  return page.evaluate(`(async () => {
    const result = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  })()`) as Promise<AxeViolation[]>;
}
