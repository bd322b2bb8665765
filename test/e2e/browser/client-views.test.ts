import { readFileSync } from 'node:fs';
import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { violations } from './axe.ts';
import { useBrowser } from './browser.ts';

const b = useBrowser();
const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/emails/views/${name}`, import.meta.url), 'utf8');

async function frameTitled(page: Page, title: string): Promise<Frame> {
  const element = await page.getByTitle(title, { exact: true }).elementHandle();
  return (await element!.contentFrame())!;
}

describe('client views in Chromium', () => {
  for (const [label, options] of [
    ['desktop, light', { width: 1440, height: 900, colorScheme: 'light' as const }],
    ['phone, dark', { width: 390, height: 844, colorScheme: 'dark' as const }],
  ] as const) {
    it(`(${label}) shows Outlook's view under the preview policy, its fidelity and removals, each opening its check finding`, async () => {
      const id = await b.send({ recipient: 'designer@example.com', subject: 'Layouts', body: fixture('flex-grid.html'), use_account_template: false });
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, ...options });
      await page.getByTestId('client-select').selectOption('outlook-windows');
      const note = page.getByTestId('client-view-note');
      await note.getByText('Approximation · low fidelity').waitFor();
      const frame = await frameTitled(page, 'HTML preview as Outlook (Windows, 2019) (approximation)');
      // The server's preview page of the view, under the preview's policy header like every preview.
      const src = await page.getByTitle('HTML preview as Outlook (Windows, 2019) (approximation)', { exact: true }).getAttribute('src');
      expect(src).toBe(`/api/messages/${id}/html?mode=${options.colorScheme === 'dark' ? 'styles' : 'light'}&client=outlook-windows`);
      const policy = (await fetch(`${b.server.url}${src}`)).headers.get('content-security-policy') ?? '';
      expect(policy).toContain("script-src 'none'");
      expect(policy).toContain('sandbox allow-popups');
      expect(await frame.evaluate(() => getComputedStyle(document.querySelector('.row')!).display)).toBe('block');
      await page.getByTestId('client-view-removed').click();
      expect(await page.getByTestId('client-view-removed').innerText()).toContain('8 removals of 5 kinds');
      await screenshot(`client-view-outlook-${options.width}-${options.colorScheme}`);
      // The selector, the fidelity label and the removals meet WCAG 2.1 A and AA (axe-core).
      expect(await violations(page)).toEqual([]);
      // The same email as sent keeps its flex row.
      await page.getByTestId('client-select').selectOption('');
      const sent = await frameTitled(page, options.colorScheme === 'dark' ? "HTML preview, dark (the email's own styles)" : 'HTML preview');
      await expect
        .poll(() => sent.evaluate(() => (document.querySelector('.row') ? getComputedStyle(document.querySelector('.row')!).display : '')))
        .toBe('flex');
      // A removal opens its finding in the Check tab.
      await page.getByTestId('client-select').selectOption('gmail-web');
      await page.getByTestId('client-view-removed').click();
      await page.getByRole('button', { name: 'See the check finding' }).first().click();
      const finding = page.locator('[id="finding-compatibility/css-grid-template"] details');
      await finding.waitFor();
      await expect.poll(() => finding.evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true);
      expect(errors).toEqual([]);
    });
  }

  it('Check tab: template findings with their fix, caniemail notes as code and links, and the findings copied as a prompt', async () => {
    // A full document with a merge tag, sent with the account template on (the default).
    const body = fixture('newsletter.html').replace('This week at Acme', 'Hello {{first_name}}, this week at Acme');
    const id = await b.send({ recipient: 'designer@example.com', subject: 'Digest', body }, 'test-key');
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width: 1440, height: 900 });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('tab', { name: 'Check' }).click();
    const template = page.getByRole('region', { name: 'Template' });
    await template.waitFor();
    expect(await template.innerText()).toContain('Fix: Send only the body (what goes inside <body>), or set use_account_template to false in the send.');
    expect(await template.innerText()).toContain('The merge tag {{first_name}} was left unfilled');
    // caniemail's note for !important in Gmail: "(See [email-bugs#13](https://github.com/...))" as a link, `code` as code.
    const important = page.locator('[id="finding-compatibility/css-important"]');
    await important.locator('summary').click();
    const link = important.getByRole('link', { name: 'email-bugs#13' }).first();
    expect(await link.getAttribute('href')).toBe('https://github.com/hteumeuleu/email-bugs/issues/13');
    expect(await important.innerText()).not.toContain('](');
    await screenshot('check-template-findings-1440-light');
    await page.getByTestId('copy-for-ai').click();
    await page.getByText('Copied for an AI assistant').waitFor();
    const prompt = await page.evaluate(() => navigator.clipboard.readText());
    expect(prompt).toMatch(/^Fix the problems below in my HTML email\./);
    expect(prompt).toContain('[template (merge-tag)] The merge tag {{first_name}} was left unfilled');
    expect(prompt).toMatch(/line \d+: <h1>Hello \{\{first_name\}\}, this week at Acme<\/h1>/);
    expect(errors).toEqual([]);
  });
});
