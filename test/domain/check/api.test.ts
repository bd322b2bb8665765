import { afterAll, beforeAll, describe, expect } from 'vitest';
import { MessageChecks, SPAM_OFF_NOTE } from '../../../server/domain/check/message-checks.ts';
import type { SendMailOptions } from 'nodemailer';
import { capturedId, smtpClient } from '../../support/smtp.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { fixture } from './fixtures.ts';
import { startSpamd, type Spamd } from './spamd-process.ts';

/** Sends over SMTP with nodemailer; resolves with the capture id. */
async function sendSmtp(port: number, mail: SendMailOptions): Promise<string> {
  const transport = smtpClient(port);
  try {
    return capturedId((await transport.sendMail(mail)).response);
  } finally {
    transport.close();
  }
}

/**
 * On the file's app: `send(body, key?)` a /v1 send to check@example.com (200), its id;
 * `get(path)` a GET, read; `post(body)` a draft to POST /api/check, read.
 */
const it = test
  .extend('send', { scope: 'file' }, ({ v1 }) => async (body: Record<string, unknown>, key = 'test-key'): Promise<string> => {
    const res = await read(
      await v1.post(
        '/v1/email/send/',
        { recipient: 'check@example.com', subject: 'Check', ...body },
        key === 'test-key' ? {} : { Authorization: `Api-Key ${key}` },
      ),
    );
    expect(res.status).toBe(200);
    return (res.body as { id: string }).id;
  })
  .extend(
    'get',
    { scope: 'file' },
    ({ app }) =>
      async (path: string) =>
        read(await fetch(`${app.url}${path}`)),
  )
  .extend(
    'post',
    { scope: 'file' },
    ({ app }) =>
      async (body: unknown) =>
        read(await fetch(`${app.url}/api/check`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })),
  );

describe('GET /api/messages/:id/check', () => {
  it('answers the whole check of a capture', async ({ send, get }) => {
    const id = await send({ body: fixture('outlook-unsupported.html'), plain_body: 'Your weekly summary' }, 'bulk-key');
    const res = await get(`/api/messages/${id}/check`);
    expect(res.status).toBe(200);
    const body = res.body as Record<string, any>;
    expect(Object.keys(body)).toEqual(['id', 'html', 'size', 'accessibility', 'dark_mode', 'headers', 'template', 'spam', 'spam_note']);
    expect(body.id).toBe(id);
    expect(body.html.score).toBeGreaterThan(0);
    expect(body.html.score).toBeLessThan(100);
    expect(body.html.market_score).toBeGreaterThan(0);
    expect(body.html.data.date).toBe('2026-05-13 14:45:41 +0000');
    expect(body.html.warnings.find((w: any) => w.feature === 'css-display-flex')).toMatchObject({ severity: 'error', support: { 'outlook.windows': 'no' } });
    expect(body.html.clients.length).toBeGreaterThan(40);
    expect(body.size).toMatchObject({ html_bytes: Buffer.byteLength(fixture('outlook-unsupported.html')), gmail_clipped: false });
    expect(body.size.message_bytes).toBeGreaterThan(body.size.html_bytes);
    expect(body.accessibility.issues.map((i: any) => i.rule)).toContain('img-alt');
    expect(body.accessibility.issues.map((i: any) => i.rule)).not.toContain('text-alternative');
    expect(body.dark_mode.findings.map((f: any) => f.rule)).toEqual(['color-scheme-meta', 'no-dark-styles']);
    // /v1 sends get their .eml from nodemailer: well-formed headers, no List-Unsubscribe expected.
    expect(body.headers).toEqual({
      bulk: false,
      findings: [
        expect.objectContaining({ header: 'Date', status: 'ok' }),
        expect.objectContaining({ header: 'Message-ID', status: 'ok' }),
        expect.objectContaining({ header: 'From', status: 'ok' }),
      ],
    });
    expect(body.spam).toBeNull();
    expect(body.spam_note).toBe(SPAM_OFF_NOTE);
  });

  it('checks the newsletter as Gmail clips it, and a text-only capture without an HTML report', async ({ app, send, get }) => {
    const clipped = await get(`/api/messages/${await send({ body: fixture('gmail-clipped-newsletter.html') }, 'bulk-key')}/check`);
    expect((clipped.body as any).size.gmail_clipped).toBe(true);
    const plainId = await sendSmtp(app.smtpPort, { from: 'a@acme.example', to: 'b@example.com', subject: 'Plain', text: 'Just text' });
    const plain = (await get(`/api/messages/${plainId}/check`)).body as any;
    expect(plain.html).toBeNull();
    expect(plain.dark_mode).toBeNull();
    expect(plain.size.html_bytes).toBe(0);
    expect(plain.accessibility.issues).toEqual([]);
  });

  it('reads the headers an SMTP client sent: one-click unsubscribe, and a bulk message without one', async ({ app, get }) => {
    const oneClickId = await sendSmtp(app.smtpPort, {
      from: 'news@acme.example',
      to: 'reader@example.com',
      subject: 'Weekly one-click',
      html: fixture('table-receipt.html'),
      text: 'x',
      headers: { 'List-Unsubscribe': '<https://acme.example/u/1>, <mailto:u@acme.example>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
    const bulkId = await sendSmtp(app.smtpPort, {
      from: 'news@acme.example',
      to: 'reader@example.com',
      subject: 'Weekly bulk',
      html: '<p>x</p>',
      headers: { Precedence: 'bulk' },
    });
    const check = async (id: string) => ((await get(`/api/messages/${id}/check`)).body as any).headers;
    const oneClick = await check(oneClickId);
    expect(oneClick.bulk).toBe(true);
    expect(oneClick.findings.map((f: any) => [f.header, f.status])).toEqual([
      ['Date', 'ok'],
      ['Message-ID', 'ok'],
      ['From', 'ok'],
      ['List-Unsubscribe', 'ok'],
      ['List-Unsubscribe-Post', 'ok'],
    ]);
    const bulk = await check(bulkId);
    expect(bulk.findings.at(-1)).toMatchObject({ header: 'List-Unsubscribe', status: 'warning', value: null });
  });

  it('filters the clients by platform, and refuses an unknown one', async ({ send, get }) => {
    const id = await send({ body: fixture('outlook-unsupported.html') });
    const desktop = (await get(`/api/messages/${id}/check?platform=desktop`)).body as any;
    expect(desktop.html.platforms).toEqual(['desktop']);
    expect(new Set(desktop.html.clients.map((c: any) => c.platform))).toEqual(new Set(['desktop']));
    const two = (await get(`/api/messages/${id}/check?platform=mobile,web`)).body as any;
    expect(two.html.platforms).toEqual(['web', 'mobile']);
    expect(two.html.clients.some((c: any) => c.id === 'outlook.windows')).toBe(false);
    expect(await get(`/api/messages/${id}/check?platform=watch`)).toMatchObject({
      status: 400,
      body: { detail: 'platform must be a comma-separated list of desktop, web, mobile.' },
    });
    expect(await get('/api/messages/NOPE/check')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
  });
});

describe('the check cache', () => {
  it('keeps a check until the message is deleted or cleared, and at most maxEntries', async ({ app, send }) => {
    const { sandbox } = app;
    const checks = new MessageChecks(sandbox.messages, sandbox.events, { spamd: null, maxEntries: 2 });
    const ids = [await send({ body: '<p>one</p>' }), await send({ body: '<p>two</p>' }), await send({ body: '<p>three</p>' })];
    const [one, two, three] = await Promise.all(ids.map(async (id) => (await sandbox.messages.get(id))!));
    const first = await checks.check(one!);
    expect(checks.cached(one!)).toBe(true);
    expect(await checks.check(one!)).toEqual(first);
    await checks.check(two!);
    await checks.check(one!); // one is now the most recently used
    await checks.check(three!);
    expect([checks.cached(one!), checks.cached(two!), checks.cached(three!)]).toEqual([true, false, true]);
    await sandbox.messages.remove([three!.seq]);
    expect(checks.cached(three!)).toBe(false);
    await sandbox.messages.clear();
    expect(checks.cached(one!)).toBe(false);
  });
});

describe('POST /api/check (a draft)', () => {
  it("checks a draft as it is, or wrapped in the sender's account template", async ({ post }) => {
    const bare = await post({ html: '<p>Hi</p>' });
    expect(bare.status).toBe(200);
    const body = bare.body as any;
    expect(Object.keys(body)).toEqual(['html', 'size', 'accessibility', 'dark_mode', 'headers', 'template', 'spam', 'spam_note']);
    expect(body.headers).toBeNull();
    expect(body.spam).toBeNull();
    expect(body.spam_note).toBe('Drafts are not spam-checked: send the email to Pigeonhole and check the capture.');
    expect(body.size.html_bytes).toBe(9);
    const wrapped = (await post({ html: '<p>Hi</p>', sender: 'acme-main' })).body as any;
    expect(wrapped.size.html_bytes).toBeGreaterThan(9);
    const desktop = (await post({ html: fixture('outlook-unsupported.html'), platform: 'desktop', text: 'x' })).body as any;
    expect(desktop.html.platforms).toEqual(['desktop']);
    expect(desktop.accessibility.issues.map((i: any) => i.rule)).not.toContain('text-alternative');
  });

  it('refuses a body without html, a bad sender or platform, with a clear detail', async ({ app, post }) => {
    expect(await post({})).toMatchObject({ status: 400, body: { detail: 'html must be a string.' } });
    expect(await post({ html: '<p>x</p>', sender: 'nobody' })).toMatchObject({ status: 400, body: { detail: 'Unknown sender "nobody".' } });
    expect(await post({ html: '<p>x</p>', platform: 'tv' })).toMatchObject({
      status: 400,
      body: { detail: 'platform must be a comma-separated list of desktop, web, mobile.' },
    });
    const notJson = await read(await fetch(`${app.url}/api/check`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1]' }));
    expect(notJson).toMatchObject({ status: 400, body: { detail: 'The body must be a JSON object.' } });
  });
});

describe('the spam check with a real spamd (--spamassassin)', () => {
  let spamd: Spamd;
  beforeAll(async () => {
    spamd = await startSpamd();
  }, 90_000);
  afterAll(() => spamd?.stop());

  it('gives the score, the threshold and every rule that fired with its description', async ({ apps }) => {
    const server = await apps.start({ spamassassin: { host: spamd.host, port: spamd.port } });
    const id = await sendSmtp(server.smtpPort, {
      from: 'winner@lottery.example',
      to: 'you@example.com',
      subject: 'YOU HAVE WON!!! Claim your FREE prize now',
      html: '<p>CLICK HERE to claim your <b>FREE</b> prize!!! 100% GUARANTEED</p>',
    });
    const res = await read(await fetch(`${server.url}/api/messages/${id}/check`));
    const body = res.body as any;
    expect(body.spam_note).toBeNull();
    expect(body.spam.spamd).toBe(`127.0.0.1:${spamd.port}`);
    expect(body.spam.threshold).toBe(5);
    expect(body.spam.rules.length).toBeGreaterThan(0);
    for (const rule of body.spam.rules) {
      expect(rule.name).toMatch(/^[A-Z0-9_]+$/);
      expect(rule.description.length).toBeGreaterThan(3);
    }
    const total = body.spam.rules.reduce((sum: number, r: any) => sum + r.score, 0);
    expect(body.spam.score).toBeCloseTo(total, 0);
    expect(body.spam.is_spam).toBe(body.spam.score >= body.spam.threshold);
  }, 60_000);

  it('says what went wrong when spamd is gone, and asks again next time', async ({ apps }) => {
    const down = await apps.start({ spamassassin: { host: '127.0.0.1', port: 9 } });
    const id = await sendSmtp(down.smtpPort, { from: 'a@b.example', to: 'c@d.example', subject: 'x', text: 'x' });
    const body = (await read(await fetch(`${down.url}/api/messages/${id}/check`))).body as any;
    expect(body.spam).toBeNull();
    expect(body.spam_note).toBe('spamd at 127.0.0.1:9: ECONNREFUSED');
  });
});
