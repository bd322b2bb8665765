import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { messageUrl, row, useBrowser } from './browser.ts';

const b = useBrowser();

// A 2×2 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==', 'base64');

async function sendSmtp(mail: SendMailOptions): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: b.server.smtpPort, secure: false, ignoreTLS: true });
  try {
    const info = await transport.sendMail(mail);
    return /Captured as (\w+)/.exec(info.response)![1]!;
  } finally {
    transport.close();
  }
}

describe('a message in Chromium', () => {
  it('shows inline cid images in the preview, and every tab: text, headers, source, attachments', async () => {
    const id = await sendSmtp({
      from: '"Shop" <shop@example.com>',
      to: 'buyer@example.com',
      subject: 'Your order with a logo',
      html: '<p>Order confirmed</p><img id="logo" src="cid:logo@shop" alt="logo">',
      text: 'Order confirmed (text part)',
      attachments: [
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@shop' },
        { filename: 'terms.txt', content: 'Terms and conditions', contentType: 'text/plain' },
      ],
    });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}` });
    const frame = await eventually(() => page.frames().find((f) => f.url().endsWith(`/api/messages/${id}/html?mode=light`)));
    await frame.locator('#logo').waitFor();
    const src = await frame.locator('#logo').getAttribute('src');
    expect(src).toMatch(new RegExp(`/api/messages/${id}/attachments/\\d\\?sig=[\\w-]{43}$`));
    await expect.poll(() => frame.locator('#logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(2);

    // Arrow keys move between tabs.
    await page.getByRole('tab', { name: 'HTML' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'Text' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Text');
    await page.getByRole('tabpanel').getByText('Order confirmed (text part)').waitFor();

    await page.getByRole('tab', { name: 'Headers' }).click();
    const subject = page
      .getByRole('tabpanel')
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: 'Subject', exact: true }) });
    expect(await subject.innerText()).toContain('Your order with a logo');

    await page.getByRole('tab', { name: 'Source' }).click();
    await page.getByRole('tabpanel').getByText('<p>Order confirmed</p>', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Raw message' }).click();
    await page
      .getByRole('tabpanel')
      .getByText(/MIME-Version: 1\.0/)
      .waitFor();
    expect(await page.getByRole('tabpanel').getByRole('link', { name: 'Download .eml' }).getAttribute('href')).toBe(`/api/messages/${id}/raw?download`);

    await page.getByRole('tab', { name: 'Attachments (2)' }).click();
    const preview = page.getByRole('tabpanel').getByRole('img', { name: 'logo.png' });
    await preview.waitFor();
    await expect.poll(() => preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2);
    const downloads = page.getByRole('tabpanel').getByRole('link', { name: 'Download' });
    expect(await downloads.count()).toBe(2);
    const href = await downloads.nth(1).getAttribute('href');
    const file = await fetch(`${b.server.url}${href}`);
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="terms.txt"/);
    expect(await file.text()).toBe('Terms and conditions');
    await screenshot('message-attachments');
    expect(errors).toEqual([]);
  });

  it('lists the first 100 attachments and says how many more there are', async () => {
    const id = await sendSmtp({
      from: 'reports@example.com',
      to: 'buyer@example.com',
      subject: 'Many files',
      text: 'See the files',
      attachments: Array.from({ length: 105 }, (_, n) => ({ filename: `part-${n}.txt`, content: `part ${n}`, contentType: 'text/plain' })),
    });
    const { page, errors } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('tab', { name: 'Attachments (105)' }).click();
    await page.getByRole('tabpanel').getByText('and 5 more, not listed').waitFor();
    expect(await page.getByRole('tabpanel').getByRole('link', { name: 'Download' }).count()).toBe(100);
    expect(errors).toEqual([]);
  });

  it('the Source tab shows the HTML decoded, numbered and wrapped, with the raw message a click away (issue 27 #7)', async () => {
    const long = `<p style="color:#333;font-family:Arial">${'A long line of the newsletter that goes on and on. '.repeat(12)}</p>`;
    const id = await sendSmtp({
      from: 'news@example.com',
      to: 'ada@example.com',
      subject: 'Quoted-printable',
      html: `<table width="100%" cellpadding="0">\n<tr><td align="center">Caf\u00e9</td></tr>\n</table>\n${long}`,
      text: 'Plain',
      textEncoding: 'quoted-printable',
    });
    const raw = await (await fetch(`${b.server.url}/api/messages/${id}/raw`)).text();
    expect(raw).toContain('=3D');
    for (const width of [390, 1440]) {
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width });
      await page.getByRole('tab', { name: 'Source' }).click();
      const panel = page.getByRole('tabpanel');
      const lines = panel.locator('[data-line]');
      await lines.first().waitFor();
      expect(await lines.count()).toBe(4);
      expect(await lines.nth(0).locator('code').innerText()).toBe('<table width="100%" cellpadding="0">');
      expect(await lines.nth(0).locator('span').innerText()).toBe('1');
      expect(await lines.nth(1).locator('code').innerText()).toBe('<tr><td align="center">Caf\u00e9</td></tr>');
      expect(await panel.innerText()).not.toContain('=3D');
      // The long line wraps inside the pane: nothing runs off its edge.
      const fourth = lines.nth(3).locator('code');
      expect(await fourth.evaluate((el) => el.scrollWidth <= el.clientWidth && el.getBoundingClientRect().height > 40)).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(`source-html-${width}`);
      await page.getByRole('button', { name: 'Raw message' }).click();
      await panel.getByText('=3D', { exact: false }).first().waitFor();
      expect(await page.getByRole('button', { name: 'Raw message' }).getAttribute('aria-pressed')).toBe('true');
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it('blocks remote images until "Load remote content" is ticked', async () => {
    // Another origin stands in for the internet: it counts the requests it gets.
    let hits = 0;
    const remote = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(PNG);
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
    try {
      const image = `http://127.0.0.1:${(remote.address() as AddressInfo).port}/pixel.png`;
      const id = await b.send({
        recipient: 'remote@example.com',
        subject: 'Remote image',
        body: `<p>Tracking pixel</p><img id="remote" src="${image}" alt="remote">`,
        use_account_template: false,
      });
      const { page, errors } = await b.open({ hash: `#/m/${id}` });
      const frameAt = (suffix: string) => eventually(() => page.frames().find((f) => f.url().endsWith(suffix)));
      const blocked = await frameAt(`/api/messages/${id}/html?mode=light`);
      await blocked.locator('#remote').waitFor({ state: 'attached' });
      await blocked.waitForLoadState('load');
      expect(await blocked.locator('#remote').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(0);
      expect(hits).toBe(0);
      await page.getByText('Remote content blocked').waitFor();

      await page.getByRole('checkbox', { name: 'Load remote content' }).check();
      await page.getByText('Remote content loaded').waitFor();
      expect(await page.getByTitle('HTML preview').getAttribute('src')).toBe(`/api/messages/${id}/html?remote=1&mode=light`);
      const loaded = await frameAt(`/api/messages/${id}/html?remote=1&mode=light`);
      await expect.poll(() => loaded.locator('#remote').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(2);
      expect(hits).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      remote.closeAllConnections();
      await new Promise((resolve) => remote.close(resolve));
    }
  });

  it('shows the API record of a Development Mode redirect, and marks read and unread', async () => {
    const id = await b.send({ recipient: 'customer@example.com', subject: 'Redirected record', body: '<p>dev</p>', flags: 'beta,vip' }, 'dev-key');
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('tab', { name: 'API record' }).click();
    const value = async (label: string) =>
      (
        await page
          .getByRole('row')
          .filter({ has: page.getByRole('rowheader', { name: label, exact: true }) })
          .innerText()
      )
        .replace(label, '')
        .trim();
    expect(await value('Email id')).toBe(id);
    expect(await value('Sender')).toBe('acme-dev');
    expect(await value('Team')).toBe('acme');
    expect(await value('Original recipient')).toBe('customer@example.com');
    expect(await value('Effective recipient')).toBe('dev-inbox@example.com');
    expect(await value('Redirected (Development Mode)')).toBe('yes');
    expect(await value('Flags')).toBe('beta, vip');
    expect(await value('SES message id')).toMatch(/^[0-9a-f]{16}-[0-9a-f-]{36}-000000$/);
    await screenshot('message-record');

    // Opening marked it read; the button turns it back.
    await expect.poll(async () => ((await (await fetch(`${b.server.url}/api/messages/${id}`)).json()) as { read: boolean }).read).toBe(true);
    await page.getByRole('button', { name: 'Mark unread' }).click();
    await expect.poll(async () => ((await (await fetch(`${b.server.url}/api/messages/${id}`)).json()) as { read: boolean }).read).toBe(false);
    await row(page, id).getByRole('img', { name: 'Unread' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('a blocked capture says in the message view that the service answered 200 with an error and delivered nothing, and why (issue 27 #8)', async () => {
    const id = await b.send({ recipient: 'blocked@example.com', subject: 'Password reset', body: '<p>Your code is 123456</p>' }, 'test-key');
    const note = ((await (await fetch(`${b.server.url}/api/messages/${id}`)).json()) as { blocked_note: string }).blocked_note;
    expect(note).toContain('"error": "Recipient is blocked"');
    for (const [width, colorScheme] of [
      [1440, 'light'],
      [390, 'dark'],
    ] as const) {
      const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width, colorScheme });
      const banner = page.getByTestId('blocked-note');
      await banner.waitFor();
      expect(await banner.innerText()).toBe(note);
      expect(note).toMatch(
        /^Not delivered\. The service answered 200 .* because blocked@example\.com is blocked for team acme: it is on the team's configured block list\.$/,
      );
      await screenshot(`blocked-note-${width}-${colorScheme}`);
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it('filters by source, redirected and blocked, and moves with j and k', async () => {
    const smtp = await sendSmtp({ from: 'a@example.com', to: 'filter@example.com', subject: 'Filter by SMTP', text: 'x' });
    const blocked = await b.send({ recipient: 'blocked@example.com', subject: 'Filter blocked', body: '<p>x</p>' }, 'test-key');
    const { page, errors } = await b.open();
    await row(page, blocked).waitFor();
    const shown = async () =>
      page.locator('[role="listbox"][aria-label="Messages"] [role="option"]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-id')));

    await page.getByRole('combobox', { name: 'Source' }).selectOption('smtp');
    await expect.poll(() => shown()).not.toContain(blocked);
    const smtpOnly = (await (await fetch(`${b.server.url}/api/messages?source=smtp`)).json()) as { messages: { id: string }[] };
    expect((await shown()).sort()).toEqual(smtpOnly.messages.map((m) => m.id).sort());
    expect(await shown()).toContain(smtp);
    await page.getByRole('combobox', { name: 'Source' }).selectOption('');

    await page.getByRole('button', { name: 'Blocked', exact: true }).click();
    const blockedOnes = (await (await fetch(`${b.server.url}/api/messages?blocked=true`)).json()) as { messages: { id: string }[] };
    expect(blockedOnes.messages.map((m) => m.id)).toContain(blocked);
    await expect.poll(async () => (await shown()).sort()).toEqual(blockedOnes.messages.map((m) => m.id).sort());
    await page.getByRole('button', { name: 'Blocked', exact: true }).click();
    await page.getByRole('button', { name: 'Redirected', exact: true }).click();
    const redirected = (await (await fetch(`${b.server.url}/api/messages?redirected=true`)).json()) as { messages: { id: string }[] };
    await expect.poll(async () => (await shown()).sort()).toEqual(redirected.messages.map((m) => m.id).sort());
    await page.getByRole('button', { name: 'Reset' }).click();
    await expect.poll(() => shown()).toContain(blocked);

    // j, j, k: first row, second, first again; Enter opens it; with a message open, ↓ opens the next.
    const all = (await (await fetch(`${b.server.url}/api/messages?limit=3`)).json()) as { messages: { id: string }[] };
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    await expect.poll(() => row(page, all.messages[0]!.id).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await page.waitForURL(messageUrl(all.messages[0]!.id));
    await page.getByRole('tab', { name: 'API record' }).click();
    await page.keyboard.press('ArrowDown');
    await page.waitForURL(messageUrl(all.messages[1]!.id));
    // The next message opens on the tab chosen for the previous one.
    await page.getByRole('rowheader', { name: 'Email id' }).waitFor();
    expect(await page.getByRole('tab', { name: 'API record' }).getAttribute('aria-selected')).toBe('true');
    expect(errors).toEqual([]);
  });
});
