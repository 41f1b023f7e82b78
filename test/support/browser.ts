// A real Chromium for console tests, driven by playwright-core. Without a Chromium the tests skip
// with a visible reason, unless GANTRY_TEST_BROWSER_REQUIRED=1 (CI), where they fail instead.
import { existsSync, mkdtempSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { chromium, type BrowserContext } from 'playwright-core';
import { CONSOLE_DIR } from '../../src/http/console.js';

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

/** Screenshots land in docs/images only when asked, so test runs do not change the tree. */
export function screenshotPath(name: string): string | undefined {
  if (process.env.GANTRY_UPDATE_SCREENSHOTS !== '1') return undefined;
  const dir = new URL('../../docs/images/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  return join(dir, name);
}
