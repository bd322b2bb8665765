import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { row, useBrowser } from './browser.ts';

const b = useBrowser();

describe('the inbox in Chromium', () => {
  it('shows how to get started when empty, then a send through /v1 appears without a reload', async () => {
    const { page, errors, screenshot } = await b.open();
    // Waited for: the page is live before its first list has loaded (isVisible() would not wait, and raced it).
    await page.getByRole('heading', { name: 'No email captured yet' }).waitFor();
    const help = await page.getByRole('region', { name: 'No email captured yet' }).innerText();
    expect(help).toContain(`${b.server.url}/v1/email/send/`);
    expect(help).toContain('Api-Key test-key');
    // The SMTP port the server announces in its hello frame (a free port in tests, not 1025).
    await page.getByRole('region', { name: 'No email captured yet' }).getByText(String(b.server.smtpPort)).first().waitFor({ timeout: 3000 });
    await screenshot('empty-desktop-light');
    const phone = await b.open({ width: 390, height: 844, colorScheme: 'dark' });
    await phone.page.getByRole('heading', { name: 'No email captured yet' }).waitFor();
    await phone.screenshot('empty-phone-dark');
    await phone.context.close();

    await page.evaluate(() => ((window as unknown as { marker: string }).marker = 'same page'));
    const id = await b.send({ recipient: 'live@example.com', subject: 'Arrives live', body: '<p>Hello live</p>' });
    // Pushed live: the page was not reloaded (the marker survives). How fast is measured in bench/, not here.
    await row(page, id).waitFor({ timeout: 10_000 });
    await expect(row(page, id).innerText()).resolves.toContain('Arrives live');
    await expect(page.evaluate(() => (window as unknown as { marker?: string }).marker)).resolves.toBe('same page');
    await row(page, id).getByRole('img', { name: 'Unread' }).waitFor();
    await page.getByRole('link', { name: /Inbox/ }).getByLabel('1 unread').waitFor();
    expect(await page.title()).toBe('(1) Pigeonhole');
    expect(errors).toEqual([]);
  });

  it('opens a message, marks it read and shows the HTML preview at phone, tablet and desktop width', async () => {
    const id = await b.send(
      {
        recipient: 'widths@example.com',
        subject: 'Preview widths',
        body: '<h1>Wide and narrow</h1><p>Body text for the preview.</p>',
        plain_body: 'Body text',
      },
      'test-key',
    );
    const { page, errors, screenshot } = await b.open();
    await row(page, id).click();
    const frame = page.getByTitle('HTML preview');
    await frame.waitFor();
    expect(await frame.getAttribute('src')).toBe(`/api/messages/${id}/html?mode=light`);
    const content = await eventually(() => page.frames().find((f) => f.url().endsWith(`/api/messages/${id}/html?mode=light`)));
    await content.getByText('Wide and narrow').waitFor();

    for (const [label, expected] of [
      ['Phone', 375],
      ['Tablet', 768],
    ] as const) {
      await page.getByRole('button', { name: label, exact: true }).click();
      await expect(page.getByRole('button', { name: label, exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
      const box = await frame.boundingBox();
      expect(Math.round(box!.width)).toBe(expected);
      await screenshot(`preview-${label.toLowerCase()}`);
    }
    await page.getByRole('button', { name: 'Desktop', exact: true }).click();
    const stage = await page.getByTestId('frame-stage').boundingBox();
    const desktop = await frame.boundingBox();
    expect(Math.round(desktop!.width)).toBe(Math.round(stage!.width));
    expect(desktop!.width).toBeGreaterThan(768);
    await screenshot('preview-desktop');

    const detail = (await (await fetch(`${b.server.url}/api/messages/${id}`)).json()) as { read: boolean };
    expect(detail.read).toBe(true);
    expect(await row(page, id).getByRole('img', { name: 'Unread' }).count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('runs none of the scripts or inline handlers an email carries', async () => {
    const hostile = [
      "<body onload=\"window.top.pwned = 'onload'; window.parent.document.title = 'PWNED'\">",
      '<p id="visible">Hostile but harmless</p>',
      '<script>window.top.pwned = "script"; window.parent.document.title = "PWNED"; document.body.innerHTML = "SCRIPT RAN";</script>',
      '<img src="/nonexistent.png" onerror="window.top.pwned = \'onerror\'; document.title = \'PWNED\'">',
      '<svg onload="window.top.pwned = \'svg\'"></svg>',
      '<a href="javascript:window.top.pwned=\'href\'">click</a>',
      '</body>',
    ].join('');
    const id = await b.send({ recipient: 'xss@example.com', subject: 'Scripts inside', body: hostile, use_account_template: false });
    const { page, errors } = await b.open({ hash: `#/m/${id}` });
    const frame = page.getByTitle('HTML preview');
    await frame.waitFor();
    const sandbox = await frame.getAttribute('sandbox');
    expect(sandbox).not.toBeNull();
    expect(sandbox).not.toContain('allow-scripts');
    expect(sandbox).not.toContain('allow-same-origin');
    const content = await eventually(() => page.frames().find((f) => f.url().endsWith(`/api/messages/${id}/html?mode=light`)));
    await content.locator('#visible').waitFor();
    // The image's error and the body's load have happened once the frame has loaded.
    await content.waitForLoadState('load');
    // The server strips the javascript: link's href (issue 19), so the click has nothing to run,
    // and the preview's CSP would block it anyway.
    expect(await content.locator('a').getAttribute('href')).toBeNull();
    await content
      .locator('a')
      .click({ noWaitAfter: true })
      .catch(() => undefined);
    expect(await content.locator('body').innerText()).not.toContain('SCRIPT RAN');
    expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
    expect(await page.title()).toMatch(/^(\(\d+\) )?Pigeonhole$/);
    expect(errors).toEqual([]);
  });

  it('shows a subject and sender that contain HTML as text', async () => {
    const nodemailer = await import('nodemailer');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: b.server.smtpPort, secure: false, ignoreTLS: true });
    const subject = '<b>bold</b> <img src=x onerror="window.pwned=1">';
    const info = await transport.sendMail({
      from: '"<i>Evil</i> <img src=x onerror=window.pwned=2>" <evil@example.com>',
      to: 'victim@example.com',
      subject,
      text: 'plain',
    });
    transport.close();
    const id = /Captured as (\w+)/.exec(info.response)?.[1];
    expect(id).toBeTruthy();
    const { page, errors } = await b.open({ hash: `#/m/${id}` });
    const heading = page.locator('#message-subject');
    await heading.waitFor();
    expect(await heading.innerText()).toBe(subject);
    expect(await heading.locator('b, img').count()).toBe(0);
    const from = page.getByTestId('meta-from');
    expect(await from.innerText()).toContain('<i>Evil</i>');
    expect(await from.locator('i, img').count()).toBe(0);
    await row(page, id!).waitFor();
    expect(await row(page, id!).innerText()).toContain('<b>bold</b>');
    expect(await row(page, id!).locator('b, i, img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it('searches from the keyboard, deletes one, and clears all after confirming', async () => {
    const apple = await b.send({ recipient: 'fruit@example.com', subject: 'Apple pie recipe', body: '<p>a</p>' });
    const banana = await b.send({ recipient: 'fruit@example.com', subject: 'Banana bread recipe', body: '<p>b</p>' });
    const { page, errors, screenshot } = await b.open();
    await row(page, banana).waitFor();
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Search messages');
    await page.keyboard.type('apple pie');
    await expect.poll(() => row(page, banana).count(), { timeout: 3000 }).toBe(0);
    expect(await page.locator('[role="listbox"][aria-label="Messages"] [role="option"]').count()).toBe(1);
    await row(page, apple).waitFor();
    await expect(page.getByTestId('list-meta').innerText()).resolves.toContain('1 match');
    await screenshot('search');
    // Esc empties the search (all rows again), a second Esc leaves the box.
    await page.keyboard.press('Escape');
    await row(page, banana).waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search messages' }).inputValue()).toBe('');
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('INPUT');

    // j selects the first row, Enter opens it, Delete deletes it.
    await page.keyboard.press('j');
    await page.keyboard.press('Enter');
    await page.locator('#message-subject').getByText('Banana bread recipe').waitFor();
    await page.keyboard.press('Delete');
    await expect.poll(() => row(page, banana).count(), { timeout: 3000 }).toBe(0);
    await expect.poll(async () => (await fetch(`${b.server.url}/api/messages/${banana}`)).status, { timeout: 3000 }).toBe(404);
    // The next message opens in its place.
    await page.locator('#message-subject').getByText('Apple pie recipe').waitFor();
    await page.keyboard.press('Escape');
    await page.getByText('Select a message to read it.').waitFor();

    await page.getByRole('button', { name: 'Clear all' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete every message?' });
    await dialog.waitFor();
    await screenshot('clear-all-dialog');
    await dialog.getByRole('button', { name: 'Delete all' }).click();
    await page.getByRole('heading', { name: 'No email captured yet' }).waitFor({ timeout: 3000 });
    const list = (await (await fetch(`${b.server.url}/api/messages`)).json()) as { total: number };
    expect(list.total).toBe(0);
    expect(errors).toEqual([]);
  });

  it('takes a burst of sends without a request each: in place when unfiltered, coalesced refetches when searching', async () => {
    const { page, errors } = await b.open();
    let listRequests = 0;
    page.on('request', (request) => {
      const url = new URL(request.url());
      // The list itself, not the unread count (read=false, limit=1) beside it.
      if (url.pathname === '/api/messages' && !url.searchParams.has('read')) listRequests += 1;
    });
    const burst = async (label: string, count: number) => {
      const ids: string[] = [];
      for (let i = 0; i < count; i += 20) {
        ids.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(20, count - i) }, (_, j) =>
              b.send({ recipient: `burst${i + j}@example.com`, subject: `${label} ${i + j}`, body: '<p>x</p>' }),
            ),
          )),
        );
      }
      return ids;
    };
    const total = async () => ((await (await fetch(`${b.server.url}/api/messages?limit=1`)).json()) as { total: number }).total;

    // Unfiltered, at the top: every capture is put in place from its frame.
    const plain = await burst('Plain', 150);
    // What this test measures is requests, not speed (the one-second arrival is the first test's):
    // the waits allow for a busy CI machine.
    await page
      .getByTestId('list-meta')
      .getByText(`${(await total()).toLocaleString('en-US')} messages`)
      .waitFor({ timeout: 10_000 });
    await row(page, plain.at(-1)!).waitFor();
    expect(listRequests).toBeLessThanOrEqual(2);

    // Searching: the server decides what matches, so the list is refetched, coalesced.
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('searched');
    await page.getByTestId('list-meta').getByText('0 matches').waitFor();
    listRequests = 0;
    const started = Date.now();
    const searched = await burst('Searched', 150);
    await page.getByTestId('list-meta').getByText('150 matches').waitFor({ timeout: 10_000 });
    await row(page, searched.at(-1)!).waitFor();
    const elapsed = Date.now() - started;
    console.log(`burst: 150 sends while searching in ${elapsed} ms, ${listRequests} list requests`);
    // At most one refetch per 200 ms while the burst lasts, plus a trailing one.
    expect(listRequests).toBeLessThanOrEqual(Math.ceil(elapsed / 200) + 2);
    expect(listRequests).toBeLessThan(40);
    expect(errors).toEqual([]);
  });
});
