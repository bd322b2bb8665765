import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { row, useBrowser } from './browser.ts';

const b = useBrowser();

/** The srcdoc frames of the template preview, by their title. */
async function previewFrame(page: Page, title: string): Promise<Frame> {
  const element = await page.getByTitle(title).elementHandle();
  return (await element!.contentFrame())!;
}

describe('the other views in Chromium', () => {
  it('template preview: the wrapped body updates at the three widths as the designer types', async () => {
    const { page, errors, screenshot } = await b.open({ hash: '#/preview', width: 1600, height: 900 });
    await page.getByRole('combobox', { name: 'Sender' }).waitFor();
    const editor = page.getByRole('textbox', { name: 'HTML body' });
    await editor.fill('<h1 id="draft">Designer draft one</h1>');
    for (const [title, px] of [
      ['Preview, phone', 375],
      ['Preview, tablet', 768],
    ] as const) {
      const frame = await previewFrame(page, title);
      await frame.getByText('Designer draft one').waitFor();
      // The sender's account template wraps the body.
      expect(await frame.locator('body').innerText()).toContain('Acme Inc.');
      expect(Math.round((await page.getByTitle(title).boundingBox())!.width)).toBe(px);
    }
    await (await previewFrame(page, 'Preview, desktop')).getByText('Designer draft one').waitFor();
    expect(await page.getByTitle('Preview, phone').getAttribute('sandbox')).not.toContain('allow-scripts');

    await editor.press('End');
    await editor.pressSequentially(' <p>and a second paragraph</p>', { delay: 5 });
    await expect
      .poll(async () => (await previewFrame(page, 'Preview, tablet')).locator('body').innerText(), { timeout: 3000 })
      .toContain('and a second paragraph');
    await screenshot('template-preview-side-by-side');

    // One width at a time, and a sender without an account template.
    await page.getByRole('button', { name: 'Phone', exact: true }).click();
    expect(Math.round((await page.getByTitle('Preview, phone').boundingBox())!.width)).toBe(375);
    await page.getByRole('combobox', { name: 'Sender' }).selectOption({ label: 'Acme (development) (Acme) · no account template' });
    await page.getByText('has no account template').waitFor();
    await expect
      .poll(async () => (await previewFrame(page, 'Preview, phone')).locator('body').innerText(), { timeout: 3000 })
      .toSatisfy((text: string) => text.includes('Designer draft one') && !text.includes('Acme Inc.'));
    expect(errors).toEqual([]);
  });

  it('recipients: flags and blocked state, updated live', async () => {
    const { page, errors, screenshot } = await b.open({ hash: '#/recipients' });
    await page.getByRole('heading', { name: 'Recipients' }).waitFor();
    const flagged = await fetch(`${b.server.url}/v1/recipients/flags/set/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'vip@example.com', flags: ['premium', 'beta'] }),
    });
    expect(flagged.status).toBe(200);
    await b.send({ recipient: 'bounce@simulator.amazonses.com', subject: 'Will bounce', body: '<p>x</p>' }, 'test-key');
    const vip = page.getByRole('row').filter({ hasText: 'vip@example.com' });
    await vip.waitFor({ timeout: 3000 });
    expect(await vip.innerText()).toMatch(/premium[\s\S]*beta/);
    expect(await vip.innerText()).toContain('active');
    const bounced = page.getByRole('row').filter({ hasText: 'bounce@simulator.amazonses.com' });
    await expect.poll(async () => ((await bounced.count()) > 0 ? bounced.innerText() : ''), { timeout: 3000 }).toContain('blocked');
    await screenshot('recipients');
    expect(errors).toEqual([]);
  });

  it('flows: a subscription timeline moves as the clock control advances the sandbox clock', async () => {
    const { page, errors, screenshot } = await b.open({ hash: '#/subscriptions' });
    await page.getByRole('heading', { name: 'Flow subscriptions' }).waitFor();
    const clockPanel = page.getByRole('complementary', { name: 'Sandbox clock' });
    await clockPanel.getByText('real time', { exact: true }).waitFor();

    const subscribed = await fetch(`${b.server.url}/v1/flows/subscribe/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ flow_trigger: 'WELCOME_SIGNUP', email: 'timeline@example.com', first_name: 'Tim' }),
    });
    expect(subscribed.status).toBe(201);
    // The subscription appears live: the welcome step done, the wait for the flag current.
    const card = page.getByRole('article', { name: 'Welcome Signup Flow for timeline@example.com' });
    await card.waitFor({ timeout: 3000 });
    await card.locator('[aria-current="step"]').getByText('current').waitFor();
    expect(await card.getByText('active', { exact: true }).count()).toBe(1);
    await screenshot('flows-waiting');

    // Two days on the sandbox clock: the wait times out, the nudge, the flag and the thanks run.
    await clockPanel.getByRole('textbox', { name: /Advance by/ }).fill('2d');
    await clockPanel.getByRole('button', { name: 'Advance' }).click();
    await clockPanel.getByText(/ahead by/).waitFor({ timeout: 3000 });
    await card.getByText('completed', { exact: true }).waitFor({ timeout: 3000 });
    expect(await card.locator('[aria-current="step"]').count()).toBe(0);
    const captured = (await (await fetch(`${b.server.url}/api/messages?recipient=timeline@example.com`)).json()) as {
      total: number;
      messages: { source: string }[];
    };
    // Welcome, then (no onboarded flag before the timeout) the nudge and the thanks.
    expect(captured.messages.map((m) => m.source)).toEqual(['flow', 'flow', 'flow']);
    await screenshot('flows-completed');

    // Back to real time for the tests after this one.
    await clockPanel.getByRole('button', { name: 'Back to real time' }).click();
    await clockPanel.getByText('real time', { exact: true }).waitFor({ timeout: 3000 });
    expect(errors).toEqual([]);
  });

  it('looks right at phone, tablet and desktop sizes in light and dark', async () => {
    const id = await b.send(
      {
        recipient: 'ada@example.com',
        subject: 'Your receipt for order #1042',
        body: '<h1>Thanks for your order</h1><p>Order <b>#1042</b> is confirmed and on its way.</p><p><a href="https://example.com/orders/1042">Track it</a></p>',
        plain_body: 'Thanks for your order #1042',
      },
      'test-key',
    );
    await b.send({ recipient: 'someone@example.com', subject: 'Redirected in development', body: '<p>dev</p>' }, 'dev-key');
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const [name, width, height] of [
        ['phone', 390, 844],
        ['tablet', 820, 1180],
        ['desktop', 1440, 900],
      ] as const) {
        const list = await b.open({ width, height, colorScheme });
        await row(list.page, id).waitFor();
        await list.screenshot(`inbox-${name}-${colorScheme}`);
        await list.context.close();
        const view = await b.open({ hash: `#/m/${id}`, width, height, colorScheme });
        const frame = await eventually(() => view.page.frames().find((f) => f.url().includes(`/api/messages/${id}/html?`)));
        await frame.getByText('Thanks for your order').waitFor();
        await view.screenshot(`message-${name}-${colorScheme}`);
        expect(view.errors).toEqual([]);
        await view.context.close();
      }
    }
  });
});
