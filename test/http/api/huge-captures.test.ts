import { describe, expect } from 'vitest';
import { test as base } from '../../support/fixtures.ts';
import { longestHold } from '../../support/scale.ts';
import { capturedId, rawSmtp } from '../../support/smtp.ts';

/** `timedGet(path)`: a sandbox API read of the file's app, its answer and the longest event-loop hold while it ran (CPU ms). */
const it = base.extend('timedGet', { scope: 'file' }, ({ app }) => async (path: string) => {
  let bytes: ArrayBuffer | undefined;
  // Only the request runs while the hold is measured: the test's own JSON.parse of the answer comes after.
  const hold = await longestHold(async () => {
    bytes = await (await fetch(app.url + path)).arrayBuffer();
  });
  return { body: JSON.parse(Buffer.from(bytes!).toString('utf8')) as unknown, hold };
});

async function sendRaw(port: number, message: string): Promise<string> {
  const session = await rawSmtp(port);
  await session.command('EHLO client.example');
  await session.command('MAIL FROM:<app@example.com>');
  await session.command('RCPT TO:<user@example.com>');
  await session.command('DATA');
  const id = capturedId(await session.command(`${message}\r\n.`));
  await session.close();
  return id;
}

/** The most a read of a huge capture may hold the loop (issue 28, finding 9): half a second of CPU. */
const HOLD_MS = 500;

describe('reads of huge captures (issue 28, finding 9)', () => {
  it('lists 100 of 60,000 attachments a page, with the count, without holding the loop', async ({ app, timedGet }) => {
    const record = await app.sandbox.messages.ingest({
      source: 'api',
      caller: app.sandbox.directory.byApiKey('test-key')!,
      recipient: 'many@example.com',
      subject: 'Many files',
      html: '<p>Your code is 482913</p>',
      text: null,
      attachments: Array.from({ length: 60_000 }, (_, n) => ({ filename: `f${n}.txt`, contentType: 'text/plain', content: Buffer.from('x') })),
      useAccountTemplate: false,
    });
    const first = await timedGet(`/api/messages/${record.id}`);
    const body = first.body as { attachment_count: number; attachments: { filename: string; url: string }[]; codes: string[] };
    expect([body.attachment_count, body.attachments.length, body.codes]).toEqual([60_000, 100, ['482913']]);
    expect(body.attachments[99]).toMatchObject({ filename: 'f99.txt', url: `/api/messages/${record.id}/attachments/99` });
    const last = await timedGet(`/api/messages/${record.id}?attachments_from=59950`);
    expect((last.body as typeof body).attachments.map((a) => a.filename)).toEqual(Array.from({ length: 50 }, (_, n) => `f${59_950 + n}.txt`));
    expect(await (await fetch(app.url + (last.body as typeof body).attachments[49]!.url)).text()).toBe('x');
    const extracted = await timedGet(`/api/messages/${record.id}/extract`);
    expect(extracted.body).toEqual({ links: [], codes: ['482913'] });
    expect(
      [first.hold, last.hold, extracted.hold].every((hold) => hold < HOLD_MS),
      `${[first.hold, last.hold, extracted.hold]}`,
    ).toBe(true);
  }, 120_000);

  it('reads a 15 MB base64 HTML part for links, codes and its text from its first 256 KB', async ({ app, timedGet }) => {
    const html = `<p>Your code is 552817, <a href="https://app.example/verify">verify</a></p>${'<p>filler words</p>'.repeat(800_000)}<a href="https://late.example/">late</a>`;
    const encoded = Buffer.from(html).toString('base64').replace(/.{76}/g, '$&\r\n');
    const id = await sendRaw(
      app.smtpPort,
      [
        'From: app@example.com',
        'To: user@example.com',
        'Subject: Huge',
        'MIME-Version: 1.0',
        'Content-Type: text/html',
        'Content-Transfer-Encoding: base64',
        '',
        encoded,
      ].join('\r\n'),
    );
    const detail = await timedGet(`/api/messages/${id}`);
    const body = detail.body as { html: string; text: string; links: { href: string }[]; codes: string[]; text_derived: boolean };
    // The body itself is served whole; what is read from it comes from its start.
    expect(body.html).toBe(html);
    expect([body.codes, body.links.map((l) => l.href), body.text_derived]).toEqual([['552817'], ['https://app.example/verify'], true]);
    expect(body.text.length).toBeLessThan(256 * 1024);
    const extracted = await timedGet(`/api/messages/${id}/extract`);
    expect(extracted.body).toEqual({ links: [{ href: 'https://app.example/verify', text: 'verify' }], codes: ['552817'] });
    expect(
      [detail.hold, extracted.hold].every((hold) => hold < HOLD_MS),
      `${[detail.hold, extracted.hold]}`,
    ).toBe(true);
  }, 120_000);

  it('gives the header block of the .eml without building it with every attachment', async ({ app, timedGet }) => {
    const caller = app.sandbox.directory.byApiKey('test-key')!;
    const kinds = [
      [{ filename: 'logo.png', contentType: 'image/png', content: Buffer.from('png'), contentId: 'logo' }],
      [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') }],
      [
        { filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('a') },
        { filename: 'logo.png', contentType: 'image/png', content: Buffer.from('png'), contentId: 'logo' },
      ],
      [],
    ];
    for (const attachments of kinds) {
      const record = await app.sandbox.messages.ingest({
        source: 'api',
        caller,
        recipient: 'h@example.com',
        subject: 'Kinds',
        html: '<img src="cid:logo">',
        text: 'plain',
        attachments,
        useAccountTemplate: false,
      });
      const { headers } = (await timedGet(`/api/messages/${record.id}`)).body as { headers: { name: string; value: string }[] };
      const raw = await (await fetch(`${app.url}/api/messages/${record.id}/raw`)).text();
      const block = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
      expect(headers.map((h) => `${h.name}: ${h.value}`).join('\n'), attachments.map((a) => a.filename).join()).toBe(block.split('\r\n').join('\n'));
    }
  });
});
