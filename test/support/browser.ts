// A real Chromium for console tests, driven by playwright-core. Without a Chromium the tests skip
// with a visible reason, unless GANTRY_TEST_BROWSER_REQUIRED=1 (CI), where they fail instead.
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before } from 'node:test';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CONSOLE_DIR } from '../../src/http/console.js';
import type { Live } from './live.js';
import { startedInBefore } from './started-in-before.js';

export const CHROMIUM = process.env.GANTRY_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Why browser tests cannot run here, or undefined when they can; throws when they must run. */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no Chromium at ${CHROMIUM} (set GANTRY_TEST_CHROMIUM, or install Debian's chromium)`;
  if (process.env.GANTRY_TEST_BROWSER_REQUIRED === '1') throw new Error(`browser tests are required but ${reason}`);
  process.stdout.write(`# SKIPPED browser tests: ${reason}\n`);
  return reason;
}

/** Builds the console when this checkout has no build of it yet (CI builds it before the tests). */
export function ensureConsoleBuilt(): void {
  if (existsSync(join(CONSOLE_DIR, 'index.html'))) return;
  const res = spawnSync(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'console/vite.config.ts', '--logLevel', 'warn'],
    {
      encoding: 'utf8',
    },
  );
  if (res.status !== 0) throw new Error(`console build failed: ${res.stderr}`);
}

export interface TestBrowser {
  /** A context of the fresh profile; each new page has a sessionStorage of its own. */
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'gantry-chromium-'));
  // Playwright takes the profile directory itself (it refuses --user-data-dir among the args).
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 860 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** How long one step of a page (a click, a wait for text) may take before the test fails. */
export const STEP_MS = 20_000;

export interface ConsoleInBrowser {
  g: Live;
  browser: TestBrowser;
  /** A page of `browser`, signed in to the console when asked. */
  page: Page;
}

/**
 * The console of a live Gantry (`start` makes it) in a fresh Chromium, for the file's tests:
 * started before them unless `skip` (the console built first when this checkout has none),
 * closed after them. With `signIn` the page opens the console and signs in with the admin key.
 */
export function useConsoleInBrowser(skip: string | undefined, start: () => Promise<Live>, { signIn = false } = {}): ConsoleInBrowser {
  const live = startedInBefore<Live>('the Gantry of the console tests');
  const browser = startedInBefore<TestBrowser>('the browser');
  const page = startedInBefore<Page>('the browser page');
  before(async () => {
    if (skip) return;
    ensureConsoleBuilt();
    const g = await start();
    live.set(g);
    browser.set(await launchBrowser());
    page.set(await browser.proxy.context.newPage());
    page.proxy.setDefaultTimeout(STEP_MS);
    if (!signIn) return;
    await page.proxy.goto(`${g.url}/console/`);
    await page.proxy.getByLabel('API key').fill(g.adminKey);
    await page.proxy.getByRole('button', { name: 'Sign in' }).click();
    await page.proxy.getByRole('heading', { name: 'Endpoints' }).waitFor();
  });
  after(async () => {
    await browser.current?.close();
    await live.current?.close();
  });
  return { g: live.proxy, browser: browser.proxy, page: page.proxy };
}

/** Screenshots land in docs/images only when asked, so test runs do not change the tree. */
export function screenshotPath(name: string): string | undefined {
  if (process.env.GANTRY_UPDATE_SCREENSHOTS !== '1') return undefined;
  const dir = new URL('../../docs/images/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
