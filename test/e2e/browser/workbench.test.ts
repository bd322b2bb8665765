import { readFile } from 'node:fs/promises';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { launchChromium, messageUrl, useBrowser } from './browser.ts';

const b = useBrowser();

/** A newsletter in two versions: the second rewords a line, adds an item and lays a row out with flex. */
const ARCHIVE = Array.from({ length: 12 }, (_, i) => `<p>From the archive, issue ${i + 1}</p>`).join('');
const NEWSLETTER_V1 = `<h1>November news</h1><p>Hello Ada, here is what happened.</p><p style="color:#555">Item one</p>${ARCHIVE}`;
const NEWSLETTER_V2 = `<h1>November news</h1><p>Hello Ada, here is what happened this month.</p><div style="display:flex;gap:8px"><p style="color:#555">Item one</p><p>Item two</p></div>${ARCHIVE}`;

/** The width and height a PNG's header gives. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** The pressed button of a segmented control. */
const pressed = (page: Page, group: string) => page.getByRole('group', { name: group }).locator('[aria-pressed="true"]').innerText();

describe('the designer workbench in Chromium: room for the email, shareable views, compare two', () => {
  it('at 1440 × 900 the email starts in the top third; a phone preview is the whole email, not a scroll box', async () => {
    const rows = Array.from({ length: 40 }, (_, i) => `<p>Row ${i + 1} of a long receipt</p>`).join('');
    const id = await b.send({ recipient: 'room@example.com', subject: 'A long receipt', body: `<h1>Receipt</h1>${rows}`, use_account_template: false });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}?tab=html&width=desktop&mode=light`, width: 1440, height: 900 });
    const frame = page.getByTitle('HTML preview', { exact: true });
    await frame.waitFor();
    expect((await frame.boundingBox())!.y).toBeLessThan(900 / 3);
    await screenshot('workbench-room-1440');

    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    const content = (await (await frame.elementHandle())!.contentFrame())!;
    await content.getByText('Row 40 of a long receipt').waitFor();
    const inner = await content.evaluate(() => document.documentElement.scrollHeight);
    expect(inner).toBeGreaterThan(900);
    // The frame is as tall as its email: nothing scrolls inside it, the page scrolls instead.
    await expect.poll(async () => Math.round((await frame.boundingBox())!.height)).toBe(inner);
    expect(await content.evaluate(() => document.documentElement.scrollHeight - document.documentElement.clientHeight)).toBe(0);
    expect(errors).toEqual([]);
  });

  it('at 390 px every message tab is on screen and opens', async () => {
    const id = await b.send({ recipient: 'narrow@example.com', subject: 'Narrow', body: '<p>Narrow screen</p>', use_account_template: false });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width: 390, height: 844 });
    const tabs = page.getByRole('tablist', { name: 'Message parts' }).getByRole('tab');
    await tabs.first().waitFor();
    expect(await tabs.count()).toBe(7);
    for (const tab of await tabs.all()) {
      const box = (await tab.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      await tab.click({ trial: true });
    }
    await page.getByRole('tab', { name: 'API record' }).click();
    await page.getByRole('rowheader', { name: 'Email id' }).waitFor();
    await screenshot('workbench-tabs-390');
    expect(errors).toEqual([]);
  });

  it('a copied link reopens the same tab, width, mode and compare pair in a fresh browser', async () => {
    const first = await b.send({ recipient: 'share@example.com', subject: 'Shared view', body: '<p>One</p>' });
    const second = await b.send({ recipient: 'share@example.com', subject: 'Shared view', body: '<p>Two</p>' });
    const { page, context, errors } = await b.open({ hash: `#/m/${first}` });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Tablet', exact: true }).click();
    await page.getByRole('button', { name: 'Dark: inverted', exact: true }).click();
    await page.getByTitle('HTML preview, dark (inverted)').waitFor();
    await page.getByRole('button', { name: 'Copy link' }).click();
    await page.getByRole('button', { name: 'Link copied' }).waitFor();
    const messageLink = await page.evaluate(() => navigator.clipboard.readText());
    expect(new URL(messageLink).hash).toBe(`#/m/${first}?tab=html&width=tablet&mode=inverted`);
    // "Open in new tab" is the render URL at the same width and mode.
    const rendered = await page.getByRole('link', { name: 'Open in new tab' }).getAttribute('href');
    expect(rendered).toBe(`/preview/${first}?width=tablet&mode=inverted`);
    expect((await fetch(`${b.server.url}${rendered}`)).status).toBe(200);

    await page.goto(`${b.server.url}/#/m/${second}`);
    await page.getByRole('button', { name: 'Compare with previous' }).click();
    await page.waitForURL((url) => url.hash.startsWith(`#/compare/${first}/${second}?`));
    await page.getByRole('button', { name: 'Difference', exact: true }).click();
    await page.getByRole('button', { name: 'Desktop', exact: true }).click();
    await page.getByRole('button', { name: 'Dark: own styles', exact: true }).click();
    await page.getByRole('button', { name: 'Copy link' }).click();
    const compareLink = await page.evaluate(() => navigator.clipboard.readText());
    expect(new URL(compareLink).hash).toBe(`#/compare/${first}/${second}?width=desktop&mode=dark&view=diff`);
    expect(errors).toEqual([]);

    // A browser of its own: no storage, nothing remembered but what the link says.
    const fresh = await launchChromium();
    try {
      const other = await fresh.newPage({ viewport: { width: 1280, height: 800 } });
      await other.goto(messageLink);
      await other.getByTitle('HTML preview, dark (inverted)').waitFor();
      expect(await other.getByRole('tab', { name: 'HTML' }).getAttribute('aria-selected')).toBe('true');
      expect(await pressed(other, 'Preview width')).toBe('Tablet');
      expect(await pressed(other, 'Colour scheme')).toBe('Dark: inverted');
      expect(Math.round((await other.getByTitle('HTML preview, dark (inverted)').boundingBox())!.width)).toBe(768);
      await other.goto(compareLink);
      await other.getByTestId('diff-stat').waitFor();
      expect(await pressed(other, 'Comparison view')).toBe('Difference');
      expect(await pressed(other, 'Preview width')).toBe('Desktop');
      expect(await pressed(other, 'Colour scheme')).toBe('Dark: own styles');
      expect(await other.getByText('Before').first().isVisible()).toBe(true);
      expect(new URL(other.url()).hash).toBe(`#/compare/${first}/${second}?width=desktop&mode=dark&view=diff`);
    } finally {
      await fresh.close();
    }
  });

  it('a copied link with a client view reopens that view in a fresh browser; "Open in new tab" shows it alone', async () => {
    const body = await readFile(new URL('../../../fixtures/emails/views/flex-grid.html', import.meta.url), 'utf8');
    const id = await b.send({ recipient: 'client-link@example.com', subject: 'Layouts', body, use_account_template: false });
    const { page, context, errors, screenshot } = await b.open({ hash: `#/m/${id}?mode=light`, width: 1440, height: 900 });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    await page.getByTestId('client-select').selectOption('outlook-windows');
    const title = 'HTML preview as Outlook (Windows, 2019) (approximation)';
    await page.getByTitle(title, { exact: true }).waitFor();
    // Choosing the client writes it into the address at once.
    await page.waitForURL((url) => url.hash === `#/m/${id}?tab=html&width=phone&mode=light&client=outlook-windows`);
    await page.getByRole('button', { name: 'Copy link' }).click();
    const link = await page.evaluate(() => navigator.clipboard.readText());
    expect(new URL(link).hash).toBe(`#/m/${id}?tab=html&width=phone&mode=light&client=outlook-windows`);
    await screenshot('workbench-client-link-1440');
    const rendered = await page.getByRole('link', { name: 'Open in new tab' }).getAttribute('href');
    expect(rendered).toBe(`/preview/${id}?width=phone&mode=light&client=outlook-windows`);
    // Back to the email as sent: the client leaves the address and the render URL.
    await page.getByTestId('client-select').selectOption('');
    await page.waitForURL((url) => url.hash === `#/m/${id}?tab=html&width=phone&mode=light`);
    expect(await page.getByRole('link', { name: 'Open in new tab' }).getAttribute('href')).toBe(`/preview/${id}?width=phone&mode=light`);
    expect(errors).toEqual([]);

    const rowDisplay = (frame: Frame) => frame.evaluate(() => getComputedStyle(document.querySelector('.row')!).display);
    const fresh = await launchChromium();
    try {
      const other = await fresh.newPage({ viewport: { width: 1280, height: 800 } });
      await other.goto(link);
      const frame = other.getByTitle(title, { exact: true });
      await frame.waitFor();
      expect(await other.getByTestId('client-select').inputValue()).toBe('outlook-windows');
      await other.getByTestId('client-view-note').getByText('Approximation · low fidelity').waitFor();
      expect(await pressed(other, 'Preview width')).toBe('Phone');
      expect(Math.round((await frame.boundingBox())!.width)).toBe(375);
      // Outlook's view: the flex row is a block; the render URL shows the same view alone.
      const content = (await (await frame.elementHandle())!.contentFrame())!;
      await expect.poll(() => rowDisplay(content)).toBe('block');
      await other.goto(`${b.server.url}${rendered}`);
      const alone = (await (await other.locator('iframe').elementHandle())!.contentFrame())!;
      await expect.poll(() => rowDisplay(alone)).toBe('block');
      await other.goto(`${b.server.url}/preview/${id}?width=phone&mode=light`);
      const asSent = (await (await other.locator('iframe').elementHandle())!.contentFrame())!;
      await expect.poll(() => rowDisplay(asSent)).toBe('flex');
    } finally {
      await fresh.close();
    }
  });

  it('prints the email alone: the print stylesheet hides the inbox around it', async () => {
    const id = await b.send({ recipient: 'print@example.com', subject: 'Print me', body: '<h1>On paper</h1>', use_account_template: false });
    const { page, errors } = await b.open({ hash: `#/m/${id}?width=phone` });
    const frame = page.getByTitle('HTML preview', { exact: true });
    await frame.waitFor();
    await page.emulateMedia({ media: 'print' });
    // CSS locators: what print hides leaves the accessibility tree, where getByRole looks.
    for (const hidden of [page.locator('nav[aria-label="Main"]'), page.locator('[role="listbox"][aria-label="Messages"]'), page.locator('#message-subject')])
      expect(await hidden.evaluate((e) => getComputedStyle(e).visibility)).toBe('hidden');
    expect(await frame.evaluate((e) => getComputedStyle(e).visibility)).toBe('visible');
    const box = (await frame.boundingBox())!;
    expect(box.y).toBe(0);
    expect(Math.round(box.width)).toBe(375);
    expect((await page.pdf()).subarray(0, 5).toString()).toBe('%PDF-');
    expect(errors).toEqual([]);
  });

  it('a PNG of the preview is the email at the chosen width, drawn with none of its scripts run', async () => {
    const hostile = [
      '<body onload="window.top.pwned = \'onload\'">',
      '<h1 id="visible">Hostile but harmless</h1>',
      '<script>window.top.pwned = "script"; window.parent.document.title = "PWNED";</script>',
      '<img src="/nonexistent.png" onerror="window.top.pwned = \'onerror\'">',
      '</body>',
    ].join('');
    const id = await b.send({ recipient: 'png@example.com', subject: 'Picture me', body: hostile, use_account_template: false });
    const { page, errors } = await b.open({ hash: `#/m/${id}?width=phone&mode=light` });
    await page.getByTitle('HTML preview', { exact: true }).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'PNG', exact: true }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`${id}-phone-light.png`);
    const size = pngSize(await readFile((await file.path())!));
    expect(size.width).toBe(375);
    expect(size.height).toBeGreaterThan(20);
    expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
    expect(await page.title()).not.toContain('PWNED');
    expect(errors).toEqual([]);
  });

  it('two versions of a newsletter: side by side with tied scrolling, the pixel difference, the HTML diff and the new warnings', async () => {
    const v1 = await b.send({ recipient: 'news@example.com', subject: 'Monthly newsletter', body: NEWSLETTER_V1 });
    const v2 = await b.send({ recipient: 'news@example.com', subject: 'Monthly newsletter', body: NEWSLETTER_V2 });
    const { page, errors, screenshot } = await b.open({ hash: `#/compare/${v1}/${v2}?view=side&width=phone&mode=light`, width: 1440, height: 600 });
    await page.getByTitle('Before', { exact: true }).waitFor();
    await page.getByTitle('After', { exact: true }).waitFor();
    const before = page.getByTestId('pane-before');
    const after = page.getByTestId('pane-after');
    await expect.poll(async () => before.evaluate((e) => e.scrollHeight - e.clientHeight)).toBeGreaterThan(40);
    await before.evaluate((e) => {
      e.scrollTop = 40;
    });
    await expect.poll(() => after.evaluate((e) => e.scrollTop)).toBe(40);
    await screenshot('workbench-compare-side');

    await page.getByRole('button', { name: 'Difference', exact: true }).click();
    const stat = page.getByTestId('diff-stat');
    await expect.poll(() => stat.innerText(), { timeout: 10_000 }).toMatch(/^[\d,]+ of [\d,]+ pixels differ/);
    const differing = Number((await stat.innerText()).split(' ')[0]!.replace(/,/g, ''));
    expect(differing).toBeGreaterThan(100);
    await screenshot('workbench-compare-diff');

    await page.getByRole('button', { name: 'HTML diff', exact: true }).click();
    const diff = page.getByTestId('html-diff');
    await diff.waitFor();
    expect(await diff.innerText()).toContain('+ ');
    expect(await diff.innerText()).toContain('Item two');
    await page.getByRole('button', { name: 'Findings', exact: true }).click();
    const added = page.getByTestId('findings-new');
    await added.getByText('display:flex').waitFor();
    expect(await page.getByTestId('findings-gone').innerText()).toContain('None gone.');
    await screenshot('workbench-compare-findings');

    // The same capture on both sides: not one pixel differs.
    await page.goto(`${b.server.url}/#/compare/${v1}/${v1}?view=diff&width=phone&mode=light`);
    await expect.poll(() => page.getByTestId('diff-stat').innerText(), { timeout: 10_000 }).toBe('No pixel differs.');
    expect(errors).toEqual([]);
  });

  it('"Compare with previous" finds the newest earlier capture with the same subject from the same sender', async () => {
    const old = await b.send({ recipient: 'prev@example.com', subject: 'Weekly digest', body: '<p>Week 1</p>' });
    await b.send({ recipient: 'prev@example.com', subject: 'Weekly digest (draft)', body: '<p>Other subject</p>' });
    await b.send({ recipient: 'prev@example.com', subject: 'Weekly digest', body: '<p>Other sender</p>' }, 'test-key');
    const latest = await b.send({ recipient: 'prev@example.com', subject: 'Weekly digest', body: '<p>Week 2</p>' });
    const { page, errors } = await b.open({ hash: `#/m/${latest}` });
    await page.getByRole('button', { name: 'Compare with previous' }).click();
    await page.waitForURL((url) => url.hash.startsWith(`#/compare/${old}/${latest}?`));
    await page.goto(`${b.server.url}/#/m/${old}`);
    await page.waitForURL(messageUrl(old));
    await page.getByRole('button', { name: 'Compare with previous' }).click();
    await page.getByRole('button', { name: 'No previous version' }).waitFor();
    expect(errors).toEqual([]);
  });
});
