import { mkdtempSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { capturedId, smtpClient } from '../../support/smtp.ts';
import { violations } from './axe.ts';
import { useBrowser } from './browser.ts';

// A --templates folder with one file, for the Templates page's Files section.
const templates = mkdtempSync(join(tmpdir(), 'pigeonhole-a11y-templates-'));
writeFileSync(join(templates, 'welcome.html'), '<h1>Welcome, {{name}}!</h1><p>Your plan is ready.</p>');
afterAll(() => rm(templates, { recursive: true, force: true }));
const b = useBrowser({ templates });

const SCHEMES = ['light', 'dark'] as const;

/** Screenshots the view (to look at), then expects no WCAG violation and no page error. */
async function passesAudit(view: Awaited<ReturnType<typeof b.open>>, name: string): Promise<void> {
  await view.screenshot(name);
  expect(await violations(view.page)).toEqual([]);
  expect(view.errors).toEqual([]);
}

describe('the inbox meets WCAG 2.1 A and AA (axe-core) in Chromium, light and dark', () => {
  // First, before anything is captured: the empty inbox shows how to get started.
  it.each(SCHEMES)('the empty inbox (%s)', async (colorScheme) => {
    const view = await b.open({ colorScheme });
    const { page } = view;
    await page.getByRole('heading', { name: 'No email captured yet' }).waitFor();
    await passesAudit(view, `a11y-empty-${colorScheme}`);
  });

  // A few messages with every kind of badge, captured once for the tests that need them
  // (whichever runs first, so each test also passes alone); resolves with the SMTP capture's id.
  let captured: Promise<string> | undefined;
  const capture = () => (captured ??= captureEveryBadge());
  async function captureEveryBadge(): Promise<string> {
    let id = '';
    const transport = smtpClient(b.server.smtpPort);
    try {
      const info = await transport.sendMail({
        from: '"Shop" <shop@example.com>',
        to: 'buyer+orders@example.com',
        subject: 'Your order, with the terms attached',
        html: '<p>Order confirmed</p>',
        text: 'Order confirmed (text part)',
        attachments: [{ filename: 'terms.txt', content: 'Terms and conditions', contentType: 'text/plain' }],
      });
      id = capturedId(info.response);
    } finally {
      transport.close();
    }
    await b.send({ recipient: 'bounce@simulator.amazonses.com', subject: 'Will bounce', body: '<p>x</p>' }, 'test-key');
    await b.send({ recipient: 'complaint@simulator.amazonses.com', subject: 'Will complain', body: '<p>x</p>' }, 'test-key');
    await b.send({ recipient: 'blocked@example.com', subject: 'Blocked', body: '<p>x</p>' }, 'test-key');
    await b.send({ recipient: 'customer@example.com', subject: 'Redirected', body: '<p>dev</p>' }, 'dev-key');
    await b.send({ recipient: 'ada@example.com', subject: 'Welcome', body: '<h1>Welcome, Ada</h1><p>Glad you are here.</p>' });
    const flagged = await fetch(`${b.server.url}/v1/recipients/flags/set/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'vip@example.com', flags: ['premium'] }),
    });
    expect(flagged.status).toBe(200);
    const subscribed = await fetch(`${b.server.url}/v1/flows/subscribe/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ flow_trigger: 'WELCOME_SIGNUP', email: 'timeline@example.com', first_name: 'Tim' }),
    });
    expect(subscribed.status).toBe(201);
    return id;
  }

  it.each(SCHEMES)('the list (%s)', async (colorScheme) => {
    await capture();
    const view = await b.open({ colorScheme });
    const { page } = view;
    await page.locator('[role="listbox"][aria-label="Messages"] [role="option"]').filter({ hasText: 'Redirected' }).waitFor();
    // The snippets read as text, entities decoded (a screen reader said "ampersand middot").
    await page
      .locator('[role="listbox"][aria-label="Messages"] [role="option"]')
      .filter({ hasText: 'Will bounce' })
      .getByText('Acme Inc. · You receive')
      .waitFor();
    await passesAudit(view, `a11y-list-${colorScheme}`);
  });

  it.each(SCHEMES)('a message open, each of its tabs (%s)', async (colorScheme) => {
    const id = await capture();
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, colorScheme });
    await page.getByRole('heading', { name: 'Your order, with the terms attached' }).waitFor();
    const found: Record<string, string[]> = {};
    const tabs = page.getByRole('tablist', { name: 'Message parts' }).getByRole('tab');
    await tabs.first().waitFor();
    for (const name of await tabs.allInnerTexts()) {
      await page.getByRole('tab', { name, exact: true }).click();
      const panel = page.getByRole('tabpanel');
      if (name === 'HTML') await panel.getByTitle(/^HTML preview/).waitFor();
      else if (name === 'Check') await panel.getByRole('heading', { name: 'Spam score' }).waitFor();
      else await panel.locator(':scope > *').first().waitFor();
      await screenshot(`a11y-message-${name.replace(/\W+/g, '-').toLowerCase()}-${colorScheme}`);
      found[name] = await violations(page);
    }
    expect(Object.keys(found)).toContain('HTML');
    // The panel scrolls and takes focus after its tab; there the arrows scroll it, not open the next message.
    await page.getByRole('tab', { name: 'API record' }).click();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('message-panel');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => location.hash.split('?')[0])).toBe(`#/m/${id}`);
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
    expect(errors).toEqual([]);
  });

  it.each(SCHEMES)('the template preview (%s)', async (colorScheme) => {
    const view = await b.open({ hash: '#/preview', width: 1600, height: 900, colorScheme });
    const { page } = view;
    await page.getByTitle('Preview, desktop').waitFor();
    await passesAudit(view, `a11y-preview-${colorScheme}`);
  });

  it.each(SCHEMES)('the recipients (%s)', async (colorScheme) => {
    await capture();
    const view = await b.open({ hash: '#/recipients', colorScheme });
    const { page } = view;
    await page.getByRole('row').filter({ hasText: 'vip@example.com' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'bounce@simulator.amazonses.com' }).getByText('blocked').waitFor();
    await passesAudit(view, `a11y-recipients-${colorScheme}`);
  });

  it.each(SCHEMES)('the flow subscriptions (%s)', async (colorScheme) => {
    await capture();
    const view = await b.open({ hash: '#/subscriptions', colorScheme });
    const { page } = view;
    await page.getByRole('article', { name: 'Welcome Signup Flow for timeline@example.com' }).waitFor();
    await page.getByRole('complementary', { name: 'Sandbox clock' }).getByText('real time', { exact: true }).waitFor();
    await passesAudit(view, `a11y-subscriptions-${colorScheme}`);
  });

  it.each(SCHEMES)('the Templates page: account template, its captures re-wrapped, and the files (%s)', async (colorScheme) => {
    await capture();
    const view = await b.open({ hash: '#/preview?section=account&sender=acme-main', width: 1440, height: 900, colorScheme });
    const { page } = view;
    await page.getByRole('textbox', { name: 'Account template' }).waitFor();
    await expect.poll(() => page.getByTestId('rewrapped').count()).toBeGreaterThan(0);
    await passesAudit(view, `a11y-templates-account-${colorScheme}`);
    await page.getByRole('button', { name: 'Files', exact: true }).click();
    await page.getByRole('textbox', { name: 'Sample data for welcome.html' }).waitFor();
    await page.getByTitle('Template file welcome.html').waitFor();
    await passesAudit(view, `a11y-templates-files-${colorScheme}`);
  });

  it.each(SCHEMES)('compare, each of its views, and the message header opened (%s)', async (colorScheme) => {
    const a = await b.send({ recipient: 'cmp@example.com', subject: 'Compared', body: '<h1>One</h1><p>First version</p>' });
    const c = await b.send({ recipient: 'cmp@example.com', subject: 'Compared', body: '<h1>One</h1><p style="display:flex">Second version</p>' });
    const view = await b.open({ hash: `#/compare/${a}/${c}?view=side&width=phone`, colorScheme });
    const { page } = view;
    await page.getByTitle('After', { exact: true }).waitFor();
    await passesAudit(view, `a11y-compare-side-${colorScheme}`);
    await page.getByRole('button', { name: 'Difference', exact: true }).click();
    await page.getByTestId('diff-image').waitFor({ timeout: 10_000 });
    await passesAudit(view, `a11y-compare-diff-${colorScheme}`);
    await page.getByRole('button', { name: 'HTML diff', exact: true }).click();
    await page.getByTestId('html-diff').waitFor();
    await passesAudit(view, `a11y-compare-html-${colorScheme}`);
    await page.getByRole('button', { name: 'Findings', exact: true }).click();
    await page.getByTestId('findings-new').waitFor();
    await passesAudit(view, `a11y-compare-findings-${colorScheme}`);
    await page.goto(`${b.server.url}/#/m/${c}`);
    await page.getByRole('button', { name: 'Details' }).click();
    await page.locator('#message-details').waitFor();
    await passesAudit(view, `a11y-message-details-${colorScheme}`);
  });
});
