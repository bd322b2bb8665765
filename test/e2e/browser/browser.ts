import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../../bench/lib/chromium.ts';
import { startApp, type TestServer, type TestServerOptions } from '../../support/app.ts';

export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));
/** Debian's chromium, headless, with nothing running in the background (plus any `extraArgs`). */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_FLAGS, ...extraArgs],
  });
}

export interface BrowserHarness {
  server: TestServer;
  browser: Browser;
  /** A fresh page (own context) on the inbox; page errors fail the test that reads `errors`. */
  open(options?: { hash?: string; width?: number; height?: number; colorScheme?: 'light' | 'dark' }): Promise<InboxPage>;
  /** POST /v1/email/send/ as JSON; resolves with the capture id. */
  send(body: Record<string, unknown>, key?: string): Promise<string>;
}

interface InboxPage {
  page: Page;
  context: BrowserContext;
  errors: string[];
  screenshot(name: string): Promise<void>;
}

/**
 * The real app (HTTP, WebSocket, SMTP on port 0, started with `options`, or with what `options()`
 * resolves to when they depend on something started first) and one Chromium per test file.
 */
export function useBrowser(options: TestServerOptions | (() => Promise<TestServerOptions>) = {}): BrowserHarness {
  const harness = {} as BrowserHarness;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    await mkdir(ARTIFACTS, { recursive: true });
    harness.server = await startApp(typeof options === 'function' ? await options() : options);
    harness.browser = await launchChromium();
  });
  afterAll(async () => {
    await Promise.all(contexts.map((c) => c.close().catch(() => undefined)));
    await harness.browser?.close();
    await harness.server?.destroy();
  });
  harness.open = async ({ hash = '', width = 1280, height = 800, colorScheme = 'light' } = {}) => {
    const context = await harness.browser.newContext({ viewport: { width, height }, colorScheme });
    contexts.push(context);
    context.setDefaultTimeout(5000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${harness.server.url}/${hash}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 5000 });
    return {
      page,
      context,
      errors,
      screenshot: (name: string) => page.screenshot({ path: `${ARTIFACTS}${name}.png` }).then(() => undefined),
    };
  };
  harness.send = async (body, key = 'bulk-key') => {
    const response = await fetch(`${harness.server.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: `Api-Key ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { id?: string };
    if (response.status !== 200 || typeof json.id !== 'string') throw new Error(`send failed: ${response.status} ${JSON.stringify(json)}`);
    return json.id;
  };
  return harness;
}

/** The list row of one capture. */
export function row(page: Page, id: string) {
  return page.locator(`[role="listbox"][aria-label="Messages"] [role="option"][data-id="${id}"]`);
}

/** A page URL with capture `id` open, whatever view its hash's query names (`#/m/<id>?tab=…`). */
export function messageUrl(id: string): (url: URL) => boolean {
  return (url) => url.hash === `#/m/${id}` || url.hash.startsWith(`#/m/${id}?`);
}
