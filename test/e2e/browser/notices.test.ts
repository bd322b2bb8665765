import type { Browser, BrowserContext, Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { browserPolicy } from '../../../server/http/browser-guard.ts';
import { nodeFs, type Fs } from '../../../server/storage/disk/fs.ts';
import type { TestServer } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { ARTIFACTS, launchChromium, row } from './browser.ts';

/**
 * What the inbox says when an action fails on the server for real: a read-only data directory
 * (the store's file-system seam answering EROFS, as a disk remounted read-only does) makes the
 * sandbox answer 507, and a stopped server answers nothing.
 */

const NOT_STORED =
  /^The sandbox answered 507: Not stored: the file system is read-only \(.+\)\. Make the data directory writable; Pigeonhole picks it up by itself\.$/;

/** Node's file system, or one that refuses every write with EROFS while `readOnly` is set. */
function switchableDisk() {
  let readOnly = false;
  const refuse = () => {
    if (readOnly) throw Object.assign(new Error('EROFS: read-only file system'), { code: 'EROFS' });
  };
  const fs: Fs = {
    ...nodeFs,
    open: async (file, flags) => {
      if (flags !== 'r') refuse();
      const handle = await nodeFs.open(file, flags);
      const truncate = handle.truncate.bind(handle);
      handle.truncate = async (length?: number) => {
        refuse();
        return truncate(length);
      };
      return handle;
    },
    writeFile: async (file, data) => {
      refuse();
      return nodeFs.writeFile(file, data);
    },
    writeAt: async (handle, buffers, position) => {
      refuse();
      return nodeFs.writeAt(handle, buffers, position);
    },
    rename: async (from, to) => {
      refuse();
      return nodeFs.rename(from, to);
    },
    unlink: async (file) => {
      refuse();
      return nodeFs.unlink(file);
    },
    rm: async (target) => {
      refuse();
      return nodeFs.rm(target);
    },
  };
  return { fs, set: (value: boolean) => void (readOnly = value) };
}

async function send(server: TestServer, subject: string): Promise<string> {
  const response = await fetch(`${server.url}/v1/email/send/`, {
    method: 'POST',
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'notice@example.com', subject, body: `<h1>${subject}</h1><p>Body.</p>` }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

/**
 * `browser`: one Chromium for the file. `open(server, hash, options?)`: a new browser context on
 * the inbox at `hash`, once it is live, with the page's errors recorded; closed after the test.
 */
const it = test
  .extend('browser', { scope: 'file' }, async ({}, { onCleanup }) => {
    const browser: Browser = await launchChromium();
    onCleanup(() => browser.close());
    return browser;
  })
  .extend('open', async ({ browser }, { onCleanup }) => {
    const contexts: BrowserContext[] = [];
    onCleanup(async () => {
      await Promise.all(contexts.map((c) => c.close()));
    });
    return async (server: TestServer, hash: string, options: { width?: number; height?: number; colorScheme?: 'light' | 'dark' } = {}) => {
      const viewport = { width: options.width ?? 1280, height: options.height ?? 800 };
      const context = await browser.newContext({ viewport, colorScheme: options.colorScheme ?? 'light' });
      contexts.push(context);
      context.setDefaultTimeout(5000);
      const page = await context.newPage();
      const pageErrors: string[] = [];
      const consoleErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => void (message.type() === 'error' && consoleErrors.push(message.text())));
      await page.goto(`${server.url}/${hash}`);
      await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
      return { page, pageErrors, consoleErrors };
    };
  });

const notices = (page: Page) => page.getByTestId('notice');
const notice = (page: Page, title: string) => page.getByRole('group', { name: title });
/** Until the notices' entrance animation is over (boxes and screenshots are final). */
const settled = (page: Page) => page.waitForFunction(() => document.getAnimations().length === 0);

describe('a failed action in Chromium', () => {
  it('a read-only data directory: mark-read, delete and clear each say why in a notice that stays until dismissed or the action works', async ({
    apps,
    open,
  }) => {
    const disk = switchableDisk();
    const server = await apps.start({ store: { fs: disk.fs, probeIntervalMs: 50, log: () => undefined } });
    const first = await send(server, 'First capture');
    const second = await send(server, 'Second capture');
    const third = await send(server, 'Third capture');
    const json = { 'Content-Type': 'application/json' };
    const marked = await fetch(`${server.url}/api/messages/${second}`, { method: 'PATCH', headers: json, body: '{"read":true}' });
    expect(marked.status).toBe(200);
    const { page, pageErrors, consoleErrors } = await open(server, '');
    await row(page, third).waitFor();
    expect(await notices(page).count()).toBe(0);
    disk.set(true);

    // Opening an unread message marks it read: refused, and said so with the server's words.
    await row(page, first).click();
    const markRead = notice(page, 'Could not mark the message as read.');
    await markRead.waitFor();
    expect(await markRead.getByTestId('notice-detail').innerText()).toMatch(NOT_STORED);
    // The server's detail already says what to do: nothing is added to it.
    expect(await markRead.getByTestId('notice-advice').count()).toBe(0);
    await page.getByRole('button', { name: 'Mark read' }).waitFor();
    await markRead.getByRole('button', { name: 'Dismiss' }).click();
    await markRead.waitFor({ state: 'detached' });
    expect(await notices(page).count()).toBe(0);

    // The button: refused, said so, and the button goes back to what it was.
    await row(page, second).click();
    await page.locator('#message-subject').getByText('Second capture').waitFor();
    await page.getByRole('button', { name: 'Mark unread' }).click();
    const markUnread = notice(page, 'Could not mark the message as unread.');
    await markUnread.waitFor();
    expect(await markUnread.getByTestId('notice-detail').innerText()).toMatch(NOT_STORED);
    await page.getByRole('button', { name: 'Mark unread' }).waitFor();
    // Once the disk is writable again, the same action works and its notice goes with the failure.
    disk.set(false);
    await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status).toBe(200);
    await page.getByRole('button', { name: 'Mark unread' }).click();
    await markUnread.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Mark read' }).waitFor();
    expect(await notices(page).count()).toBe(0);

    // Delete: refused; the message stays open. Notices of different actions stack, oldest first.
    disk.set(true);
    await row(page, third).click();
    await notice(page, 'Could not mark the message as read.').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const deleteFailed = notice(page, 'Could not delete the message.');
    await deleteFailed.waitFor();
    expect(await deleteFailed.getByTestId('notice-detail').innerText()).toMatch(NOT_STORED);
    expect(new URL(page.url()).hash.split('?')[0]).toBe(`#/m/${third}`);
    await page.locator('#message-subject').getByText('Third capture').waitFor();

    // Clear all: refused too.
    await page.getByRole('button', { name: 'Clear all' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete all' }).click();
    await notice(page, 'Could not delete the messages.').waitFor();
    expect(await notices(page).getByTestId('notice-title').allInnerTexts()).toEqual([
      'Could not mark the message as read.',
      'Could not delete the message.',
      'Could not delete the messages.',
    ]);
    await settled(page);
    await page.screenshot({ path: `${ARTIFACTS}notices-desktop-light.png` });
    for (let left = 3; left > 0; left--) {
      await notices(page).first().getByRole('button', { name: 'Dismiss' }).click();
      await expect.poll(() => notices(page).count()).toBe(left - 1);
    }
    disk.set(false);

    expect(pageErrors).toEqual([]);
    // Chromium logs each refused request itself; nothing else was logged.
    expect(consoleErrors.length).toBeGreaterThan(0);
    for (const text of consoleErrors) expect(text).toBe('Failed to load resource: the server responded with a status of 507 (Insufficient Storage)');
  });

  it('a stopped server: a delete says the sandbox cannot be reached, once, beside the connection indicator', async ({ apps, open }) => {
    const server = await apps.start();
    const id = await send(server, 'Before the stop');
    const { page, pageErrors } = await open(server, `#/m/${id}`);
    await page.locator('#message-subject').getByText('Before the stop').waitFor();
    await server.close();
    await page.getByRole('status').filter({ hasText: 'Offline, retrying…' }).waitFor();

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const failed = notice(page, 'Could not delete the message.');
    await failed.waitFor();
    expect(await failed.getByTestId('notice-detail').innerText()).toBe('The sandbox cannot be reached: Pigeonhole may have stopped, or the network is down.');
    expect(await failed.getByTestId('notice-advice').innerText()).toBe('Try again once it is back; the inbox reconnects by itself.');
    // The outage itself is the indicator's to show: the one notice is the delete's.
    expect(await notices(page).count()).toBe(1);
    expect(new URL(page.url()).hash.split('?')[0]).toBe(`#/m/${id}`);
    // Pressing Delete again replaces the notice with a new one rather than stacking a copy.
    const before = await failed.getAttribute('aria-labelledby');
    await page.keyboard.press('Delete');
    await expect.poll(() => failed.getAttribute('aria-labelledby')).not.toBe(before);
    expect(await notices(page).count()).toBe(1);
    await failed.getByRole('button', { name: 'Dismiss' }).click();
    await failed.waitFor({ state: 'detached' });
    expect(pageErrors).toEqual([]);
  });

  it('a copy the browser cannot make (a page on a LAN host name, not a secure context) says what to do instead', async ({ apps, open }) => {
    // A sandbox other machines reach by name: plain http:// there has no clipboard API.
    const server = await apps.start({ access: { policy: browserPolicy({ hosts: ['pigeonhole.lan'] }), login: null } });
    const lan = await launchChromium(['--host-resolver-rules=MAP pigeonhole.lan 127.0.0.1']);
    try {
      const page = await lan.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`http://pigeonhole.lan:${new URL(server.url).port}/`);
      await page.getByRole('heading', { name: 'No email captured yet' }).waitFor();
      expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      const refused = notice(page, 'Could not copy the command.');
      await refused.waitFor();
      expect(await refused.getByTestId('notice-detail').innerText()).toBe('This browser allows copying only on https:// or localhost pages.');
      expect(await refused.getByTestId('notice-advice').innerText()).toBe('Select the command and copy it by hand.');
      expect(await page.getByRole('button', { name: 'Copy', exact: true }).isVisible()).toBe(true);
      expect(pageErrors).toEqual([]);
    } finally {
      await lan.close();
    }
    // On 127.0.0.1 (a secure context) the same button copies.
    const { page, pageErrors } = await open(server, '');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain('/v1/email/send/');
    expect(await notices(page).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });

  it('a clock move the sandbox refuses (400) says why, and goes once a move works', async ({ apps, open }) => {
    const server = await apps.start();
    const { page, pageErrors } = await open(server, '#/subscriptions');
    const clock = page.getByRole('complementary', { name: 'Sandbox clock' });
    await clock.getByRole('textbox', { name: /Advance by/ }).fill('zz');
    await clock.getByRole('button', { name: 'Advance' }).click();
    const refused = notice(page, 'Could not move the sandbox clock.');
    await refused.waitFor();
    expect(await refused.getByTestId('notice-detail').innerText()).toBe(
      'The sandbox answered 400: "zz" is not a duration like "30s", "15m", "2h", "1d" or "1d12h".',
    );
    await clock.getByRole('textbox', { name: /Advance by/ }).fill('2h');
    await clock.getByRole('button', { name: 'Advance' }).click();
    await refused.waitFor({ state: 'detached' });
    await clock.getByText('ahead by 2h').waitFor();
    expect(pageErrors).toEqual([]);
  });

  it('looks right at 375 px and on the desktop, light and dark (screenshots in test-artifacts/)', async ({ apps, open }) => {
    const disk = switchableDisk();
    const server = await apps.start({ store: { fs: disk.fs, probeIntervalMs: 50, log: () => undefined } });
    for (const [name, width, height, colorScheme] of [
      ['notices-phone-light', 375, 740, 'light'],
      ['notices-phone-dark', 375, 740, 'dark'],
      ['notices-desktop-dark', 1280, 800, 'dark'],
    ] as const) {
      disk.set(false);
      await expect.poll(async () => (await fetch(`${server.url}/readyz`)).status).toBe(200);
      const id = await send(server, 'A capture whose deletion is refused');
      disk.set(true);
      const { page, pageErrors } = await open(server, `#/m/${id}`, { width, height, colorScheme });
      await notice(page, 'Could not mark the message as read.').waitFor();
      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      await notice(page, 'Could not delete the message.').waitFor();
      await settled(page);
      const box = (await notices(page).last().boundingBox())!;
      // Inside the window, clear of its edges.
      expect(box.x).toBeGreaterThanOrEqual(8);
      expect(box.x + box.width).toBeLessThanOrEqual(width - 8);
      expect(box.y + box.height).toBeLessThanOrEqual(height - 8);
      // On a phone the older notice shows its title only; the newest says everything.
      expect(await notices(page).first().getByTestId('notice-detail').isVisible()).toBe(width > 600);
      expect(await notices(page).last().getByTestId('notice-detail').isVisible()).toBe(true);
      await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
      expect(pageErrors).toEqual([]);
    }
    disk.set(false);
  });
});
