import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { startLinkSite, type LinkSite } from '../../support/link-servers.ts';
import { useBrowser } from './browser.ts';

const b = useBrowser();
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/emails/${name}`, import.meta.url), 'utf8');
let site: LinkSite;
beforeAll(async () => {
  site = await startLinkSite();
});
afterAll(() => site.close());

async function frameTitled(page: Page, title: string): Promise<Frame> {
  const element = await page.getByTitle(title, { exact: true }).elementHandle();
  return (await element!.contentFrame())!;
}

describe('the message check in Chromium', () => {
  it('shows the HTML size and Gmail clipping without opening the Check tab', async () => {
    const clipped = await b.send({ recipient: 'news@example.com', subject: 'Big newsletter', body: fixture('gmail-clipped-newsletter.html') });
    const small = await b.send({ recipient: 'news@example.com', subject: 'Small receipt', body: fixture('table-receipt.html') });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${clipped}` });
    const line = page.getByTestId('size-line');
    await line.getByText('Clipped by Gmail (over 102 KB)').waitFor();
    expect(await line.innerText()).toMatch(/HTML 16\d(\.\d)? KB/);
    await screenshot('check-size-line-clipped');
    await page.goto(`${b.server.url}/#/m/${small}`);
    await page.getByTestId('size-line').getByText('not clipped by Gmail').waitFor();
    expect(errors).toEqual([]);
  });

  for (const [label, options] of [
    ['desktop, light', { width: 1400, height: 900, colorScheme: 'light' as const }],
    ['phone, dark', { width: 375, height: 800, colorScheme: 'dark' as const }],
  ] as const) {
    it(`Check tab (${label}): the score first, warnings by severity, clients and lines, the line highlighted in the source`, async () => {
      const html = fixture('outlook-unsupported.html');
      const id = await b.send({ recipient: 'designer@example.com', subject: 'Weekly summary', body: html, plain_body: 'Your weekly summary' });
      const api = (await (await fetch(`${b.server.url}/api/messages/${id}/check`)).json()) as { html: { score: number; market_score: number } };
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, ...options });
      await page.getByRole('tab', { name: 'Check' }).click();
      const score = page.getByTestId('check-score');
      await score.waitFor();
      await screenshot(`check-tab-top-${options.width}-${options.colorScheme}`);
      expect(await score.innerText()).toBe(api.html.score.toFixed(1));
      expect(await page.getByTestId('check-market-score').innerText()).toBe(api.html.market_score.toFixed(1));
      // The score comes before everything else in the panel.
      const order = await page
        .getByRole('tabpanel')
        .evaluate((panel) => [...panel.querySelectorAll('[data-testid="check-score"], h3')].map((e) => e.textContent));
      expect(order[0]).toBe(api.html.score.toFixed(1));
      expect(order.slice(1, 3)).toEqual(['Size', 'Email clients']);
      const errorsGroup = page.getByRole('region', { name: 'Not supported by some clients' });
      const partialGroup = page.getByRole('region', { name: 'Partly supported' });
      await errorsGroup.waitFor();
      await partialGroup.waitFor();
      expect(
        await page
          .getByRole('tabpanel')
          .evaluate((panel) => [...panel.querySelectorAll('section[aria-label] > h4')].map((h) => h.firstChild?.textContent?.trim())),
      ).toEqual(['Not supported by some clients', 'Partly supported']);

      const flex = errorsGroup.locator('details').filter({ hasText: 'display:flex' });
      await flex.locator('summary').click();
      await flex.getByText('Outlook Windows', { exact: false }).first().waitFor();
      expect(
        await flex
          .locator('li[data-support="no"]')
          .filter({ hasText: /Outlook Windows(?! Mail)/ })
          .count(),
      ).toBe(1);
      const flexLine = html.slice(0, html.indexOf('display: flex')).split('\n').length;
      await flex.getByRole('button', { name: `Show line ${flexLine} in the HTML source` }).click();
      const current = page.locator('[data-line][aria-current="true"]');
      await current.waitFor();
      expect(await current.getAttribute('data-line')).toBe(String(flexLine));
      expect(await current.innerText()).toContain('display: flex');
      await screenshot(`check-tab-${options.width}-${options.colorScheme}`);

      await page.getByRole('region', { name: 'Accessibility' }).getByText('click here').first().waitFor();
      await page.getByRole('tabpanel').getByText('The spam check is off.', { exact: false }).waitFor();
      expect(errors).toEqual([]);
    });
  }

  it('checks the links behind a button, each row as its answer arrives', async () => {
    const body = `<p><a href="${site.url}/ok">Fast</a> <a href="${site.url}/slow/1500">Slow</a> <a href="${site.url}/missing">Gone</a> <a href="mailto:a@b.example">Mail</a></p>`;
    const id = await b.send({ recipient: 'links@example.com', subject: 'Links to check', body });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('tab', { name: 'Check' }).click();
    await page.getByTestId('check-score').waitFor();
    expect(site.requests).toEqual([]);
    await page.getByRole('button', { name: 'Check links' }).click();
    const status = page.getByRole('status').filter({ hasText: 'checked' });
    // Live: the fast answers are shown while the slow link is still being checked.
    await status.getByText('2 of 3 checked, 1 broken', { exact: false }).waitFor();
    expect(await page.getByTestId('links-table').locator('tbody tr').count()).toBe(2);
    await page.getByTestId('links-table').scrollIntoViewIfNeeded();
    await screenshot('check-links-running');
    await status.getByText('3 of 3 checked, 1 broken', { exact: false }).waitFor({ timeout: 5000 });
    expect(await status.innerText()).toContain('1 other URLs');
    expect(await page.getByTestId('links-table').locator('tr[data-broken]').innerText()).toContain('404');
    await page.getByRole('button', { name: 'Check links again' }).waitFor();
    expect(site.requests.map((r) => r.path).sort()).toEqual(['/missing', '/ok', '/slow/1500']);
    expect(errors).toEqual([]);
  });

  it("previews the two dark modes: the email's own dark styles (Apple Mail) and forced inversion (Gmail apps, Outlook.com)", async () => {
    const id = await b.send({ recipient: 'dark@example.com', subject: 'Dark receipt', body: fixture('table-receipt.html') });
    for (const colorScheme of ['light', 'dark'] as const) {
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width: colorScheme === 'light' ? 1400 : 375, colorScheme });
      // The preview starts as the system is; Light is a light client's rendering even when the
      // system prefers dark.
      expect(await page.getByRole('button', { name: colorScheme === 'light' ? 'Light' : 'Dark: own styles', exact: true }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      await page.getByRole('button', { name: 'Light', exact: true }).click();
      await page.getByTitle('HTML preview', { exact: true }).waitFor();
      const light = await eventually(async () => {
        const frame = await (await page.getByTitle('HTML preview', { exact: true }).elementHandle())?.contentFrame();
        return frame && (await frame.getByText('Thanks for your order, Ada').count()) > 0 ? frame : undefined;
      });
      // Every mode is the server's page for that mode, under its policy header.
      expect(light.url()).toBe(`${b.server.url}/api/messages/${id}/html?mode=light`);
      const bodyBackground = (frame: Frame) => frame.locator('body').evaluate((b) => getComputedStyle(b).backgroundColor);
      expect(await bodyBackground(light)).toBe('rgb(243, 244, 246)');

      await page.getByRole('button', { name: 'Dark: own styles' }).click();
      const styles = await frameTitled(page, "HTML preview, dark (the email's own styles)");
      await expect.poll(() => styles.url()).toBe(`${b.server.url}/api/messages/${id}/html?mode=styles`);
      await styles.getByText('Thanks for your order, Ada').waitFor();
      expect(await bodyBackground(styles)).toBe('rgb(17, 24, 39)');
      expect(
        await styles
          .locator('.text')
          .first()
          .evaluate((e) => getComputedStyle(e).color),
      ).toBe('rgb(229, 231, 235)');
      await screenshot(`dark-mode-styles-${colorScheme}`);

      await page.getByRole('button', { name: 'Dark: inverted' }).click();
      const inverted = await frameTitled(page, 'HTML preview, dark (inverted)');
      await inverted.getByText('Thanks for your order, Ada').waitFor();
      expect(await inverted.locator('html').evaluate((e) => getComputedStyle(e).filter)).toBe('invert(1) hue-rotate(180deg)');
      // Inverting clients do not read prefers-color-scheme: the light design is what is inverted.
      expect(await bodyBackground(inverted)).toBe('rgb(243, 244, 246)');
      expect(
        await inverted
          .locator('img')
          .first()
          .evaluate((e) => getComputedStyle(e).filter),
      ).toBe('invert(1) hue-rotate(180deg)');
      // The inverted page keeps the preview's rules: no scripts, no remote images unless asked.
      await expect.poll(() => inverted.url()).toBe(`${b.server.url}/api/messages/${id}/html?mode=invert`);
      expect(await page.getByTitle('HTML preview, dark (inverted)').getAttribute('sandbox')).not.toContain('allow-scripts');
      expect(
        await inverted
          .locator('img')
          .first()
          .evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth),
      ).toBe(0);
      await screenshot(`dark-mode-inverted-${colorScheme}`);
      await page.getByRole('button', { name: 'Light', exact: true }).click();
      await page.getByTitle('HTML preview', { exact: true }).waitFor();
      expect(errors).toEqual([]);
    }
  });
});

describe('the live check on the Templates page', () => {
  it('updates the check as the designer types, once per pause', async () => {
    const { page, errors, screenshot } = await b.open({ hash: '#/preview', width: 1600, height: 1000 });
    await page.getByRole('combobox', { name: 'Sender' }).waitFor();
    const editor = page.getByRole('textbox', { name: 'HTML body' });
    const live = page.getByRole('region', { name: /Live check/ });
    await editor.fill('<p>Hello</p>');
    await live.getByText('up to date').waitFor();
    await live.getByTestId('check-score').waitFor();

    await editor.fill(fixture('outlook-unsupported.html'));
    await live.getByText('img-alt').waitFor({ timeout: 5000 });
    await live.getByText('up to date').waitFor();
    expect(await live.getByTestId('check-score').innerText()).not.toBe('100.0');
    await screenshot('template-live-check');

    // Typing in bursts with pauses longer than the 250 ms debounce refreshes the check after
    // each burst. How fast a key paints meanwhile is a figure of `npm run bench:typing`.
    await editor.press('End');
    const checks = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/check')).length);
    for (let burst = 0; burst < 6; burst++) {
      await editor.pressSequentially(`<p>Paragraph ${burst} with a <a href="https://a.example/${burst}">link</a></p>`, { delay: 15 });
      await page.waitForTimeout(300); // the user's pause between bursts, longer than the debounce
    }
    await live.getByText('up to date').waitFor();
    const after = await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/check')).length);
    expect(after - checks).toBeGreaterThanOrEqual(5);
    expect(await live.getByText('Paragraph 5').count()).toBe(0);
    expect(errors).toEqual([]);

    // On a phone, in dark: the check sits under the editor.
    const phone = await b.open({ hash: '#/preview', width: 375, height: 900, colorScheme: 'dark' });
    await phone.page.getByRole('combobox', { name: 'Sender' }).waitFor();
    await phone.page.getByRole('textbox', { name: 'HTML body' }).fill(fixture('outlook-unsupported.html'));
    const phoneLive = phone.page.getByRole('region', { name: /Live check/ });
    await phoneLive.getByText('img-alt').waitFor();
    await phoneLive.getByTestId('check-score').waitFor();
    expect(await phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await phoneLive.scrollIntoViewIfNeeded();
    await phone.screenshot('template-live-check-375-dark');
    expect(phone.errors).toEqual([]);
  });
});
