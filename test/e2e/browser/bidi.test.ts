import type { Locator, Page } from 'playwright-core';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { row, useBrowser } from './browser.ts';

/**
 * Issue 27 #6 and 28 #9 in Chromium: right-to-left subjects, snippets and names read as written
 * in the list and the message view, before and after the message is read, and a file name
 * cannot reorder itself with bidirectional controls.
 */
const b = useBrowser();

// "Hello Ada, your order has shipped" and a long snippet that must not push the greeting out.
const ARABIC_SUBJECT = 'مرحبا آدا، تم شحن طلبك رقم ٤٥٢١ اليوم ويصل خلال ثلاثة أيام عمل إلى عنوانك المسجل لدينا';
const ARABIC_BODY = 'شكرا لتسوقك معنا. يمكنك تتبع الشحنة من صفحة الطلبات في حسابك في أي وقت. مع تحيات فريق المتجر';
// "Welcome to the team" from a Hebrew sender name.
const HEBREW_SUBJECT = 'ברוכים הבאים לצוות, דנה';

async function sendSmtp(mail: SendMailOptions): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: b.server.smtpPort, secure: false, ignoreTLS: true });
  try {
    return /Captured as (\w+)/.exec((await transport.sendMail(mail)).response)![1]!;
  } finally {
    transport.close();
  }
}

/** Where an element's box starts and whether the first `chars` characters of its text are inside its visible box. */
function layout(locator: Locator, chars: number) {
  return locator.evaluate((el, n) => {
    const box = el.getBoundingClientRect();
    const range = document.createRange();
    const text = el.firstChild!;
    range.setStart(text, 0);
    range.setEnd(text, Math.min(n, text.textContent!.length));
    const first = range.getBoundingClientRect();
    return {
      left: Math.round(box.left),
      direction: getComputedStyle(el).direction,
      startShown: first.left >= box.left - 1 && first.right <= box.right + 1,
    };
  }, chars);
}

async function rowParts(page: Page, id: string) {
  const subject = row(page, id).locator('[dir="auto"]').nth(1);
  const snippet = row(page, id).locator('[dir="auto"]').nth(2);
  return { subject: await layout(subject, 5), snippet: await layout(snippet, 4) };
}

describe('right-to-left text in the inbox', () => {
  it('an Arabic subject and snippet each read from their own start, at the row start edge, before and after reading; Hebrew too', async () => {
    const arabic = await b.send({ recipient: 'ada@example.com', subject: ARABIC_SUBJECT, body: `<p>${ARABIC_BODY}</p>`, use_account_template: false });
    const hebrew = await sendSmtp({ from: '"דנה כהן" <dana@example.com>', to: 'team@example.com', subject: HEBREW_SUBJECT, text: 'שלום דנה, טוב שהצטרפת.' });
    for (const [width, height] of [
      [390, 844],
      [1440, 900],
    ] as const) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const { page, errors, screenshot } = await b.open({ width, height, colorScheme });
        await row(page, arabic).waitFor();
        const before = await rowParts(page, arabic);
        expect(before.subject).toMatchObject({ direction: 'rtl', startShown: true });
        expect(before.snippet.direction).toBe('rtl');
        const rowLeft = Math.round((await row(page, arabic).boundingBox())!.x);
        // The subject's box starts where the row's text does (its padding), whatever its direction.
        expect(before.subject.left - rowLeft).toBe(22);
        const from = await layout(row(page, hebrew).locator('[dir="auto"]').first(), 3);
        expect(from).toMatchObject({ direction: 'rtl', startShown: true });
        expect((await rowParts(page, hebrew)).subject).toMatchObject({ direction: 'rtl', startShown: true });
        await screenshot(`bidi-list-${width}-${colorScheme}`);

        await row(page, arabic).click();
        const heading = page.locator('#message-subject bdi');
        await heading.waitFor();
        expect(await heading.evaluate((el) => getComputedStyle(el).direction)).toBe('rtl');
        expect(await page.locator('#message-subject').evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
        await screenshot(`bidi-message-${width}-${colorScheme}`);
        if (width === 390) await page.getByRole('button', { name: 'Back to the list' }).click();
        await expect.poll(async () => (await row(page, arabic).getAttribute('class')) ?? '').not.toMatch(/unread/);
        // Read: the same place and the same start shown, once the list is back in view (on a
        // phone it comes back as the message view leaves, and a box read mid-way is at 0).
        await expect.poll(() => rowParts(page, arabic)).toEqual(before);
        expect(errors).toEqual([]);
        await page.context().close();
      }
    }
  });

  it('an attachment named with a right-to-left override shows and saves under visible escapes', async () => {
    const id = await sendSmtp({
      from: 'billing@example.com',
      to: 'ada@example.com',
      subject: 'Your invoice',
      text: 'Attached.',
      attachments: [{ filename: 'invoice\u202Efdp.exe', content: 'MZ', contentType: 'application/octet-stream' }],
    });
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}`, width: 1440 });
    await page.getByRole('tab', { name: /Attachments/ }).click();
    const name = page.getByText('invoice[U+202E]fdp.exe', { exact: true });
    await name.waitFor();
    expect(await page.getByRole('link', { name: 'Download', exact: true }).getAttribute('download')).toBe('invoice[U+202E]fdp.exe');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download', exact: true }).click()]);
    expect(download.suggestedFilename()).toBe('invoice[U+202E]fdp.exe');
    await screenshot('bidi-attachment');
    expect(errors).toEqual([]);
  });
});
