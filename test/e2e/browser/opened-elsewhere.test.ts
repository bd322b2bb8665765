import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { createLogin } from '../../../server/http/basic-auth.ts';
import { browserPolicy } from '../../../server/http/browser-guard.ts';
import { startApp, type TestServer } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { test } from '../../support/fixtures.ts';
import { launchChromium } from './browser.ts';

/**
 * Issue 28 #7 in real Chromium: a page of another site (127.0.0.2: another site than 127.0.0.1,
 * and both potentially trustworthy, so Chromium sends fetch metadata and applies COOP) links to
 * or opens `#/m/<id>`. It can neither mark the message read nor learn whether the id exists.
 */
const SITE_PAGE = `<!doctype html><body><a id="link" href="">open</a><script>
const target = new URLSearchParams(location.search).get('target');
document.getElementById('link').href = target;
/** Opens the inbox on a hash; read() says what this site can read of that window. */
window.probe = (hash) => { window.opened = window.open(target + hash); };
window.read = () => { const w = window.opened; let length; try { length = w.length; } catch (e) { length = 'error ' + e.name; } return { closed: w.closed, length }; };
</script></body>`;

const it = test
  .extend('site', { scope: 'file' }, async ({}, { onCleanup }) => {
    const sites: Server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end(SITE_PAGE));
    await new Promise<void>((resolve) => sites.listen(0, '127.0.0.2', resolve));
    onCleanup(() => new Promise<void>((resolve) => sites.close(() => resolve())));
    return `http://127.0.0.2:${(sites.address() as AddressInfo).port}`;
  })
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser: Browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
  .extend('login', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startApp({ access: { policy: browserPolicy(), login: createLogin({ user: 'team', password: 'box-password' }) } });
    onCleanup(() => app.destroy());
    return app;
  });

async function send(target: TestServer, subject: string): Promise<string> {
  const response = await fetch(`${target.url}/v1/email/send/`, {
    method: 'POST',
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'ada@example.com', subject, body: `<p id="body">${subject}</p>` }),
  });
  return ((await response.json()) as { id: string }).id;
}

/** The message view's preview has loaded: the view rendered, and would have marked the message read by now. */
async function previewShown(page: Page, id: string): Promise<void> {
  const frame = await eventually(() => page.frames().find((f) => f.url().includes(`/api/messages/${id}/html?`)));
  await frame.locator('#body').waitFor();
}

const readState = async (target: TestServer, id: string) => (await target.sandbox.messages.get(id))?.read;

describe('a message opened by another site', () => {
  it('a link from another site opens the message unread; the first click in the inbox marks it read', async ({ app, site, browser }) => {
    const id = await send(app, 'Linked from elsewhere');
    const page = await (await browser.newContext()).newPage();
    page.setDefaultTimeout(5000);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site}/?target=${encodeURIComponent(`${app.url}/#/m/${id}`)}`);
    const [inbox] = await Promise.all([page.waitForResponse(`${app.url}/`), page.click('#link')]);
    // What Chromium sent and what the inbox answered.
    expect(await inbox.request().headerValue('sec-fetch-site')).toBe('cross-site');
    expect(inbox.headers()['cross-origin-opener-policy']).toBe('same-origin');
    await previewShown(page, id);
    await page.getByRole('button', { name: 'Mark read' }).waitFor();
    expect(await readState(app, id)).toBe(false);
    await page.locator(`[role="option"][data-id="${id}"] [aria-label="Unread"]`).waitFor();

    await page.locator('#message-subject').click();
    await expect.poll(() => readState(app, id)).toBe(true);
    await page.getByRole('button', { name: 'Mark unread' }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('the same address typed in (no other site) marks the message read at once', async ({ app, browser }) => {
    const id = await send(app, 'Typed in');
    const page = await (await browser.newContext()).newPage();
    const [inbox] = await Promise.all([page.waitForResponse(`${app.url}/`), page.goto(`${app.url}/#/m/${id}`)]);
    expect(await inbox.request().headerValue('sec-fetch-site')).toBe('none');
    await previewShown(page, id);
    await expect.poll(() => readState(app, id)).toBe(true);
    await page.context().close();
  });

  it('window.open from another site gets a closed window: a real id and a made-up one look the same, and nothing is marked read', async ({
    app,
    site,
    browser,
  }) => {
    const id = await send(app, 'Probed');
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${site}/?target=${encodeURIComponent(app.url)}`);
    const open = async (hash: string) => (await Promise.all([context.waitForEvent('page'), page.evaluate((h) => (window as any).probe(h), hash)]))[0];
    const seen = () => page.evaluate(() => (window as any).read());
    // Each popup has rendered what it shows (Playwright may look; the opener may not) before the opener reads.
    const real = await open(`/#/m/${id}`);
    await previewShown(real, id);
    const realSeen = await seen();
    const fake = await open('/#/m/999999');
    await fake.getByText('This message does not exist').waitFor();
    expect(realSeen).toEqual({ closed: true, length: 0 });
    expect(await seen()).toEqual(realSeen);
    expect(await readState(app, id)).toBe(false);
    await context.close();
  });

  it('with the login: another site opening /auth/login#/m/<id> in a browser that logged in before marks nothing read', async ({ login, site, browser }) => {
    const id = await send(login, 'Behind the login');
    const context = await browser.newContext({ httpCredentials: { username: 'team', password: 'box-password' } });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    await page.goto(`${site}/?target=${encodeURIComponent(`${login.url}/auth/login#/m/${id}`)}`);
    const [signIn] = await Promise.all([page.waitForResponse(`${login.url}/auth/login`), page.click('#link')]);
    expect(await signIn.request().headerValue('sec-fetch-site')).toBe('cross-site');
    expect(signIn.headers()['cross-origin-opener-policy']).toBe('same-origin');
    await page.waitForURL(`${login.url}/#/m/${id}`);
    await previewShown(page, id);
    await page.getByRole('button', { name: 'Mark read' }).waitFor();
    expect(await readState(login, id)).toBe(false);
    await page.keyboard.press('Tab');
    await expect.poll(() => readState(login, id)).toBe(true);
    await context.close();
  });
});
