import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { capturedId, rawSmtp, smtpClient, trySend } from '../support/smtp.ts';
import { signedPath } from '../../server/http/signed-reads.ts';

/** `get(path)`: the sandbox API's JSON answer from the file's app. */
const it = test.extend(
  'get',
  { scope: 'file' },
  ({ app }) =>
    async (path: string) =>
      (await read(await fetch(app.url + path))).body as any,
);
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe('SMTP capture', () => {
  it('captures a plain message through the one ingestion path, on disk when 250 is answered', async ({ app, smtp, get }) => {
    const id = await smtp.send({ from: 'app@example.com', to: 'user@example.com', subject: 'Plain', text: 'Just text.' });
    // 250 means stored: the record and its bytes are on disk without waiting.
    const record = (await app.sandbox.messages.get(id))!;
    expect(record.content.raw).toBeDefined();
    expect(app.store.messages.log.has(record.seq)).toBe(true);
    const m = await get(`/api/messages/${id}`);
    expect(m).toMatchObject({
      id,
      source: 'smtp',
      team: null,
      sender: null,
      from: 'app@example.com',
      recipient: 'user@example.com',
      to: ['user@example.com'],
      cc: [],
      bcc: [],
      subject: 'Plain',
      snippet: 'Just text.',
      status: 'delivered',
      blocked: false,
      redirected: false,
      used_template: false,
      html: null,
      text: 'Just text.',
      text_derived: false,
      html_url: null,
      text_url: `/api/messages/${id}/text`,
      attachments: [],
    });
    expect(await (await fetch(`${app.url}/api/messages/${id}/text`)).text()).toBe('Just text.');
  });

  it('keeps both parts of an HTML + text message and never invents a missing one', async ({ app, smtp, get }) => {
    const both = await get(
      `/api/messages/${await smtp.send({ from: 'a@example.com', to: 'u@example.com', subject: 'Both', text: 'Text part', html: '<p>HTML part</p>' })}`,
    );
    expect(both).toMatchObject({ html: '<p>HTML part</p>', text: 'Text part' });
    const htmlOnly = await get(
      `/api/messages/${await smtp.send({ from: 'a@example.com', to: 'u@example.com', subject: 'HTML only', html: '<h1>Hi</h1><p>there &amp; you</p>' })}`,
    );
    // No plain part is stored (or added to the .eml); GET renders the HTML as text and says so.
    expect(htmlOnly).toMatchObject({ html: '<h1>Hi</h1><p>there &amp; you</p>', text: 'Hi\n\nthere & you', text_derived: true, snippet: 'Hi there & you' });
    expect(await app.sandbox.messages.text((await app.sandbox.messages.get(htmlOnly.id))!)).toBeNull();
    expect(both.text_derived).toBe(false);
  });

  it('stores attachments with their names, types and bytes', async ({ app, smtp, get }) => {
    const pdf = Buffer.from('%PDF-1.4 fake');
    const id = await smtp.send({
      from: 'a@example.com',
      to: 'u@example.com',
      subject: 'Files',
      text: 'see attached',
      attachments: [
        { filename: 'report.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'notes.txt', content: 'line one\n' },
      ],
    });
    const m = await get(`/api/messages/${id}`);
    expect(m.attachments).toEqual([
      { filename: 'report.pdf', content_type: 'application/pdf', size: pdf.length, content_id: null, url: `/api/messages/${id}/attachments/0` },
      { filename: 'notes.txt', content_type: 'text/plain', size: 9, content_id: null, url: `/api/messages/${id}/attachments/1` },
    ]);
    const bytes = Buffer.from(await (await fetch(app.url + m.attachments[0].url)).arrayBuffer());
    expect(bytes.equals(pdf)).toBe(true);
  });

  it('keeps an inline cid: image as an attachment with its Content-ID, and the preview points at it', async ({ app, smtp, get }) => {
    const id = await smtp.send({
      from: 'a@example.com',
      to: 'u@example.com',
      subject: 'Inline',
      html: '<p>Logo: <img src="cid:logo@acme" alt="logo"></p>',
      attachments: [{ filename: 'logo.png', content: PNG, cid: 'logo@acme' }],
    });
    const m = await get(`/api/messages/${id}`);
    expect(m.html).toBe('<p>Logo: <img src="cid:logo@acme" alt="logo"></p>');
    expect(m.attachments).toEqual([
      { filename: 'logo.png', content_type: 'image/png', size: PNG.length, content_id: 'logo@acme', url: `/api/messages/${id}/attachments/0` },
    ]);
    const preview = await fetch(`${app.url}/api/messages/${id}/html`);
    // Signed: the sandboxed preview's image requests are cross-site (docs/security.md).
    expect(await preview.text()).toBe(`<base target="_blank"><p>Logo: <img src="${signedPath(`/api/messages/${id}/attachments/0`)}" alt="logo"></p>`);
    const image = await fetch(`${app.url}/api/messages/${id}/attachments/0`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('decodes RFC 2047 subjects and names, and UTF-8 bodies', async ({ app, smtp, get }) => {
    const id = await smtp.send({
      from: '"Jürgen Müller" <jm@example.com>',
      to: 'u@example.com',
      subject: 'Grüße aus Köln ✓ — 日本語',
      text: 'Schöne Grüße, ünïcödé 😀',
      html: '<p>Schöne Grüße 😀</p>',
    });
    const raw = await (await fetch(`${app.url}/api/messages/${id}/raw`)).text();
    expect(raw).toMatch(/^Subject: =\?UTF-8\?/m);
    const m = await get(`/api/messages/${id}`);
    expect(m).toMatchObject({
      subject: 'Grüße aus Köln ✓ — 日本語',
      text: 'Schöne Grüße, ünïcödé 😀',
      html: '<p>Schöne Grüße 😀</p>',
      from: 'Jürgen Müller <jm@example.com>',
    });
    expect(m.headers).toContainEqual({ name: 'Subject', value: 'Grüße aus Köln ✓ — 日本語' });
    const list = await get(`/api/messages?q=${encodeURIComponent('köln')}`);
    expect(list.messages.map((x: any) => x.id)).toEqual([id]);
  });

  // Whitespace between two adjacent encoded words is not part of the text (RFC 2047 §6.2).
  it('decodes a legacy charset (ISO-8859-1) message sent as raw bytes', async ({ smtp, get }) => {
    const raw = await readFile(new URL('../../fixtures/latin1.eml', import.meta.url));
    const info = await smtp.transport.sendMail({ envelope: { from: 'andre@example.com', to: ['francoise@example.com'] }, raw });
    const m = await get(`/api/messages/${capturedId(info.response)}`);
    expect(m).toMatchObject({
      subject: 'Café crème☕',
      text: "Un café crème, s'il vous plaît.",
      from: 'André <andre@example.com>',
      to: ['francoise@example.com'],
    });
  });

  it('lists every recipient in one capture: To and Cc from the headers, Bcc from the envelope', async ({ smtp, get }) => {
    const before = (await get('/api/messages?limit=1')).total;
    const id = await smtp.send({
      from: 'a@example.com',
      to: ['one@example.com', 'Two <two@example.com>'],
      cc: 'three@example.com',
      bcc: ['hidden@example.com', 'secret@example.com'],
      subject: 'Many',
      text: 'hi',
    });
    expect((await get('/api/messages?limit=1')).total).toBe(before + 1);
    const m = await get(`/api/messages/${id}`);
    expect(m).toMatchObject({
      recipient: 'one@example.com',
      to: ['one@example.com', 'two@example.com'],
      cc: ['three@example.com'],
      bcc: ['hidden@example.com', 'secret@example.com'],
    });
    // Bcc addresses are not in the message itself, only in the capture.
    expect(m.headers.map((h: any) => h.name)).not.toContain('Bcc');
    for (const address of ['two@example.com', 'hidden@example.com']) {
      expect((await get(`/api/messages?recipient=${address}`)).messages[0].id, address).toBe(id);
    }
  });

  it('lists envelope recipients as To when the message has no To or Cc header', async ({ smtp, get }) => {
    const raw = 'From: a@example.com\r\nSubject: No headers\r\n\r\nbody\r\n';
    const info = await smtp.transport.sendMail({ envelope: { from: 'a@example.com', to: ['x@example.com', 'y@example.com'] }, raw });
    expect(await get(`/api/messages/${capturedId(info.response)}`)).toMatchObject({
      recipient: 'x@example.com',
      to: ['x@example.com', 'y@example.com'],
      cc: [],
      bcc: [],
    });
  });

  it("keeps the client's message byte for byte as the .eml, under Pigeonhole's trace fields", async ({ app, smtp }) => {
    const raw = Buffer.from('From: a@example.com\r\nTo: u@example.com\r\nSubject: Exact\r\nX-Custom: kept as sent\r\n\r\nLine one\r\nLine two\r\n');
    const info = await smtp.transport.sendMail({ envelope: { from: 'a@example.com', to: ['u@example.com'] }, raw });
    const id = capturedId(info.response);
    const eml = Buffer.from(await (await fetch(`${app.url}/api/messages/${id}/raw`)).arrayBuffer());
    // A Received field with the client's address as it connected (no reverse DNS lookup) and
    // the name it gave in EHLO, then the capture's id and source, then the client's bytes.
    expect(eml.toString()).toMatch(
      new RegExp(
        `^Received: from [^ ]+ \\(\\[127\\.0\\.0\\.1\\]\\) by pigeonhole with ESMTP id ${id}; \\w{3}, \\d\\d \\w{3} \\d{4} \\d\\d:\\d\\d:\\d\\d \\+0000\\r\\nX-Pigeonhole-ID: ${id}\\r\\nX-Pigeonhole-Source: smtp\\r\\n`,
      ),
    );
    expect(eml.toString().endsWith(raw.toString())).toBe(true);
    expect(eml.toString().split('\r\n').slice(3).join('\r\n')).toBe(raw.toString());
  });

  it('captures malformed MIME with whatever could be parsed, and keeps serving', async ({ smtp, get }) => {
    const raw = await readFile(new URL('../../fixtures/malformed.eml', import.meta.url));
    const info = await smtp.transport.sendMail({ envelope: { from: 'broken@example.com', to: ['qa@example.com'] }, raw });
    const m = await get(`/api/messages/${capturedId(info.response)}`);
    expect(m.subject).toBe('Malformed Über MIME');
    expect(m.text).toContain('The text part survives über everything');
    expect(m.to).toEqual(['qa@example.com']);
    const garbage = await smtp.trySend({
      envelope: { from: 'x@example.com', to: ['y@example.com'] },
      raw: Buffer.from([0xff, 0xfe, 0x00, 0x0d, 0x0a, 0x2e, 0x2e, 0x0d, 0x0a]),
    });
    expect(garbage.ok).toBe(true);
    expect((await smtp.trySend({ from: 'a@example.com', to: 'u@example.com', subject: 'after', text: 'still alive' })).ok).toBe(true);
  });
});

describe('SMTP size limit', () => {
  it('answers 552 for a message over the limit, stores nothing, and accepts the next', async ({ apps }) => {
    const server = await apps.start({ smtp: { maxSize: 20_000 } });
    const client = smtpClient(server.smtpPort);
    const big = await trySend(client, { from: 'a@example.com', to: 'u@example.com', subject: 'Big', text: 'x'.repeat(50_000) });
    expect(big).toEqual({ ok: false, code: 552, response: '552 5.3.4 Message exceeds the size limit of 20000 bytes' });
    expect(server.sandbox.messages.count()).toBe(0);
    const small = await trySend(client, { from: 'a@example.com', to: 'u@example.com', subject: 'Small', text: 'x'.repeat(1000) });
    expect(small.ok).toBe(true);
    expect(server.sandbox.messages.count()).toBe(1);
  });
});

describe('SMTP clients that go away', () => {
  it('stores nothing from a client that disconnects mid-message, and does not hold up shutdown', async ({ apps }) => {
    const server = await apps.start();
    const smtp = await rawSmtp(server.smtpPort);
    await smtp.command('EHLO test');
    await smtp.command('MAIL FROM:<a@example.com>');
    await smtp.command('RCPT TO:<b@example.com>');
    expect(await smtp.command('DATA')).toMatch(/^354 /);
    smtp.destroy('Subject: cut\r\n\r\nhalf a mess');
    await server.close();
    expect(server.sandbox.messages.count()).toBe(0);
  });

  it('stores envelope addresses exactly as sent, and matches them by Unicode lower case (docs/smtp.md)', async ({ app, get }) => {
    // U+212A KELVIN SIGN looks like K; it is kept, not normalised to K (issue 28, finding 9).
    const kelvin = '\u212Aate@example.com';
    const session = await rawSmtp(app.smtpPort);
    await session.command('EHLO client.example');
    await session.command('MAIL FROM:<app@example.com> SMTPUTF8');
    expect(await session.command(`RCPT TO:<${kelvin}>`)).toBe('250 Accepted');
    await session.command('DATA');
    const id = capturedId(await session.command('Subject: Kelvin\r\n\r\nbody\r\n.'));
    await session.close();
    const m = await get(`/api/messages/${id}`);
    expect([m.recipient, m.to]).toEqual([kelvin, [kelvin]]);
    expect(m.recipient.codePointAt(0)).toBe(0x212a);
    // Filters compare addresses by JavaScript's Unicode lower case, in which the Kelvin sign is k.
    const found = await get(`/api/messages?recipient=${encodeURIComponent('kate@example.com')}`);
    expect(found.messages.map((x: { id: string }) => x.id)).toContain(id);
  });
});
