import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { test } from '../../support/fixtures.ts';
import { CHROMIUM, CHROMIUM_FLAGS } from '../../../bench/lib/chromium.ts';
import { ARTIFACTS, launchChromium, row } from './browser.ts';

/**
 * The inbox where the browser blocks site data: a Chromium profile with cookies blocked for
 * every site (the content setting behind "Block third-party and first-party cookies"), where
 * reading `window.localStorage` throws a SecurityError, as it does for users who chose that.
 */

/**
 * `blockedContext()`: Chromium on a profile of its own (made once for the file) that blocks
 * cookies and site data for every site; closed after the test. `send(subject)`: a /v1 send to
 * the file's app, its id.
 */
const it = test
  .extend('profile', { scope: 'file' }, async ({}, { onCleanup }) => {
    const profile = await mkdtemp(path.join(tmpdir(), 'pigeonhole-blocked-profile-'));
    onCleanup(() => rm(profile, { recursive: true, force: true }));
    await mkdir(path.join(profile, 'Default'));
    await writeFile(path.join(profile, 'Default', 'Preferences'), JSON.stringify({ profile: { default_content_setting_values: { cookies: 2 } } }));
    return profile;
  })
  .extend('blockedContext', async ({ profile }, { onCleanup }) => {
    const contexts: BrowserContext[] = [];
    onCleanup(async () => {
      for (const context of contexts) await context.close();
    });
    return async () => {
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        args: CHROMIUM_FLAGS,
        viewport: { width: 1280, height: 800 },
      });
      contexts.push(context);
      return context;
    };
  })
  .extend('send', { scope: 'file' }, ({ app }) => async (subject: string): Promise<string> => {
    const response = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'storage@example.com', subject, body: `<h1>${subject}</h1>`, plain_body: subject }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { id: string }).id;
  });

/** Every uncaught error and console error of the page. */
function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()}`)));
  return problems;
}

const frameWidth = async (page: Page) => Math.round((await page.getByTitle('HTML preview').boundingBox())!.width);
const editor = (page: Page) => page.getByRole('textbox', { name: 'HTML body' });

describe('the inbox with browser storage blocked', () => {
  it('loads, lists, opens, switches tabs and views, and remembers nothing, with no error', async ({ app, blockedContext, send }) => {
    const first = await send('Stored nowhere');
    const second = await send('Also stored nowhere');
    const context = await blockedContext();
    context.setDefaultTimeout(5000);
    const page = context.pages()[0] ?? (await context.newPage());
    const problems = watch(page);
    await page.goto(`${app.url}/`);
    // Really blocked, the way such a browser blocks it.
    expect(
      await page.evaluate(() => {
        try {
          return typeof window.localStorage;
        } catch (error) {
          return `${(error as Error).name}: ${(error as Error).message}`;
        }
      }),
    ).toBe("SecurityError: Failed to read the 'localStorage' property from 'Window': Access is denied for this document.");

    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await row(page, first).waitFor();
    await row(page, second).waitFor();
    await row(page, first).click();
    await page.locator('#message-subject').getByText('Stored nowhere').waitFor();
    // The preview width is kept for this visit: across tabs and messages.
    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    expect(await frameWidth(page)).toBe(375);
    for (const tab of ['Text', 'Headers', 'Source', 'API record', 'HTML']) {
      await page.getByRole('tab', { name: tab }).click();
      await expect(page.getByRole('tab', { name: tab }).getAttribute('aria-selected')).resolves.toBe('true');
    }
    await row(page, second).click();
    await page.locator('#message-subject').getByText('Also stored nowhere').waitFor();
    expect(await frameWidth(page)).toBe(375);

    // The other views, and the template draft kept while moving between them.
    await page.getByRole('link', { name: 'Recipients' }).click();
    await page.getByRole('row').filter({ hasText: 'storage@example.com' }).waitFor();
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.getByRole('heading', { name: 'Flow subscriptions' }).waitFor();
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await editor(page).fill('<p>A draft with nowhere to go</p>');
    // Kept once the editor's 250 ms pause is over: the preview shows it then.
    const preview = await (await page.getByTitle('Preview, desktop').elementHandle())!.contentFrame();
    await preview!.getByText('A draft with nowhere to go').waitFor();
    await page.getByRole('link', { name: /Inbox/ }).click();
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await expect.poll(() => editor(page).innerText()).toBe('<p>A draft with nowhere to go</p>');
    const again = await (await page.getByTitle('Preview, desktop').elementHandle())!.contentFrame();
    await again!.getByText('A draft with nowhere to go').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}storage-blocked-templates.png` });

    // A new visit remembers nothing: the sample draft and the desktop width.
    await page.reload();
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await expect.poll(() => editor(page).innerText()).toContain('Welcome aboard, Ada!');
    await page.goto(`${app.url}/#/m/${first}`);
    await page.locator('#message-subject').getByText('Stored nowhere').waitFor();
    await expect(page.getByRole('button', { name: 'Desktop', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(await page.getByTestId('notice').count()).toBe(0);
    expect(problems).toEqual([]);
  });

  it('where storage works, the same visit is remembered (what the blocked browser goes without)', async ({ app, send }) => {
    const id = await send('Remembered');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const problems = watch(page);
      await page.goto(`${app.url}/#/m/${id}`);
      await page.locator('#message-subject').getByText('Remembered').waitFor();
      await page.getByRole('button', { name: 'Tablet', exact: true }).click();
      await page.getByRole('link', { name: 'Templates', exact: true }).click();
      await editor(page).fill('<p>A draft kept in localStorage</p>');
      // The draft is stored after the editor's 250 ms pause.
      await expect.poll(() => page.evaluate(() => localStorage.getItem('pigeonhole.templateDraft'))).toBe('<p>A draft kept in localStorage</p>');
      await page.reload();
      await expect.poll(() => editor(page).innerText()).toBe('<p>A draft kept in localStorage</p>');
      await page.goto(`${app.url}/#/m/${id}`);
      // A hash change only: the Templates page (with a Tablet button of its own) may still be up.
      await page.locator('#message-subject').getByText('Remembered').waitFor();
      await expect(page.getByRole('button', { name: 'Tablet', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
    // Three page loads and the editor's lazy chunk: 10-15 s here, past 30 s once in CI on a loaded machine.
  }, 90_000);
});
