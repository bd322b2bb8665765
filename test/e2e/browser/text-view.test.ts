import { describe, expect, it } from 'vitest';
import { useBrowser } from './browser.ts';

const b = useBrowser();

describe('the Text tab in Chromium', () => {
  it('says when the text is the HTML rendered as text, and shows the codes and links found', async () => {
    const id = await b.send({
      recipient: 'derived@example.com',
      subject: 'HTML only',
      body: '<h1>Confirm your email</h1><p>Your verification code is <b>482 913</b>.</p><p><a href="https://app.example/confirm?t=abc&amp;u=1">Confirm your email</a> or paste https://app.example/confirm/manual into your browser.</p>',
      use_account_template: false,
    });
    for (const [width, scheme] of [
      [1280, 'light'],
      [375, 'dark'],
      [375, 'light'],
      [1280, 'dark'],
    ] as const) {
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width, colorScheme: scheme });
      await page.getByRole('tab', { name: 'Text' }).click();
      const panel = page.getByRole('tabpanel');
      await panel.getByRole('note').getByText('This email has no plain-text part: this is its HTML rendered as text.').waitFor();
      const found = panel.getByRole('region', { name: 'Codes and links found' });
      expect(await found.locator('code').allInnerTexts()).toEqual(['482913']);
      const links = found.getByRole('link');
      expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
        'https://app.example/confirm?t=abc&u=1',
        'https://app.example/confirm/manual',
      ]);
      expect(await links.first().innerText()).toContain('Confirm your email');
      expect(await panel.locator('pre').innerText()).toContain('Confirm your email (https://app.example/confirm?t=abc&u=1)');
      // Nothing spills sideways on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
      await screenshot(`text-tab-derived-${width}-${scheme}`);
      expect(errors).toEqual([]);
    }
  });

  it('shows a real plain part without the note', async () => {
    const id = await b.send({
      recipient: 'plain@example.com',
      subject: 'Both parts',
      body: '<p>HTML part</p>',
      plain_body: 'The plain part, with no link.',
      use_account_template: false,
    });
    const { page, errors } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('tab', { name: 'Text' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByText('The plain part, with no link.').waitFor();
    expect(await panel.getByRole('note').count()).toBe(0);
    expect(await panel.getByRole('region', { name: 'Codes and links found' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
