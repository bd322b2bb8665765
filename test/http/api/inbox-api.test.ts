import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { previewPolicy } from '../../../server/domain/mail/preview-policy.ts';

/**
 * On the file's app: `get(path)` the JSON body of a GET, `call(method, path, body?, type?)` any
 * request, read; `send(key, fields)` a /v1 send with that key, its id; `ids(query)` the ids
 * /api/messages lists for the query.
 */
const it = test
  .extend(
    'call',
    { scope: 'file' },
    ({ app }) =>
      async (method: string, path: string, body?: string, type = 'application/json') =>
        read(await fetch(app.url + path, { method, headers: body === undefined ? {} : { 'Content-Type': type }, body })),
  )
  .extend(
    'send',
    { scope: 'file' },
    ({ app }) =>
      async (key: string, fields: Record<string, unknown>) =>
        ((await read(await api(app.url, key).post('/v1/email/send/', fields))).body as any).id as string,
  )
  .extend(
    'ids',
    { scope: 'file' },
    ({ get }) =>
      async (query: string) =>
        (await get(`/api/messages?${query}`)).messages.map((m: any) => m.id),
  );

describe('GET /api/messages filters', () => {
  it('searches subject, addresses, sender and the start of the body text with q', async ({ send, ids }) => {
    const a = await send('test-key', { recipient: 'search-a@example.com', subject: 'Invoice April', body: '<p>Your <b>receipt</b> number 4711</p>' });
    const b = await send('dev-key', { recipient: 'search-b@example.com', subject: 'Welcome', body: '<p>x</p>', plain_body: 'Hello from the plain part' });
    expect(await ids('q=invoice')).toEqual([a]);
    expect(await ids('q=RECEIPT%204711')).toEqual([a]);
    expect(await ids('q=plain%20part')).toEqual([b]);
    expect(await ids('q=acme-dev%20search-b')).toEqual([b]);
    expect(await ids('q=dev-inbox@example.com')).toEqual([b]);
    expect(await ids('q=nothing-like-this')).toEqual([]);
  });

  it('filters by source, status, blocked, redirected and read, combined with AND', async ({ get, call, send, ids }) => {
    const blocked = await send('test-key', { recipient: 'blocked@example.com', subject: 'blocked one', body: 'b' });
    const redirected = await send('dev-key', { recipient: 'r@example.com', subject: 'redirected one', body: 'b' });
    expect(await ids('blocked=true')).toEqual([blocked]);
    expect(await ids('status=failed')).toEqual([blocked]);
    expect(await ids('redirected=true&q=redirected')).toEqual([redirected]);
    expect(await ids('source=smtp')).toEqual([]);
    expect((await get('/api/messages?source=api&blocked=false')).messages.every((m: any) => m.source === 'api' && !m.blocked)).toBe(true);
    await call('PATCH', `/api/messages/${redirected}`, '{"read": true}');
    expect(await ids('read=true')).toEqual([redirected]);
    expect(await ids('read=false&q=redirected')).toEqual([]);
  });

  it('refuses bad filter values with a 400 detail', async ({ call }) => {
    const cases: [string, string][] = [
      ['source=email', '{"detail":"source must be one of api, smtp, flow."}'],
      ['status=sent', '{"detail":"status must be one of pending, delivered, bounced, complained, failed."}'],
      ['blocked=yes', '{"detail":"blocked must be true or false."}'],
      ['redirected=1', '{"detail":"redirected must be true or false."}'],
      ['read=TRUE', '{"detail":"read must be true or false."}'],
      ['limit=0', '{"detail":"limit must be a whole number from 1 to 500."}'],
    ];
    for (const [query, body] of cases) {
      const res = await call('GET', `/api/messages?${query}`);
      expect([res.status, res.text], query).toEqual([400, body]);
    }
  });
});

describe('GET /api/messages/:id', () => {
  it('gives the API record fields and the headers of the stored message', async ({ get, send }) => {
    const id = await send('dev-key', { recipient: 'Rec@example.com', subject: 'Record', body: '<p>b</p>', flags: 'a,b', first_name: 'Ann' });
    const m = await get(`/api/messages/${id}`);
    expect(m).toMatchObject({
      id,
      team: 'acme',
      sender: 'acme-dev',
      recipient: 'Rec@example.com',
      to: ['dev-inbox@example.com'],
      used_template: false,
      flags: ['a', 'b'],
      first_name: 'Ann',
      status: 'delivered',
      ses_id: expect.stringMatching(/^[0-9a-f]{16}-[0-9a-f-]{36}-000000$/),
      blocked: false,
      redirected: true,
      flow: null,
      has_remote_content: false,
      html_url: `/api/messages/${id}/html`,
      // No plain part: the text is the HTML rendered as text, marked as derived.
      text: 'b',
      text_derived: true,
      text_url: `/api/messages/${id}/text`,
    });
    const names = m.headers.map((h: any) => h.name);
    expect(names).toEqual(expect.arrayContaining(['From', 'To', 'Subject', 'Message-ID', 'Date', 'X-Pigeonhole-ID', 'X-Original-To']));
    expect(m.headers).toContainEqual({ name: 'X-Original-To', value: 'Rec@example.com' });
    expect(m.headers).toContainEqual({ name: 'To', value: 'dev-inbox@example.com' });
  });
});

describe('a blocked capture says what happened (issue 27 #8)', () => {
  it('the summary says the service answered 200 with an error and delivered nothing, and why the address is blocked', async ({ get, send }) => {
    const id = await send('test-key', { recipient: 'blocked@example.com', subject: 'Blocked', body: '<p>x</p>' });
    const note =
      `Not delivered. The service answered 200 with {"id": "${id}", "error": "Recipient is blocked"}: the email was recorded (status failed) and nothing was delivered, ` +
      "because blocked@example.com is blocked for team acme: it is on the team's configured block list.";
    const summary = (await get('/api/messages?blocked=true')).messages.find((m: any) => m.id === id);
    expect(summary).toMatchObject({ blocked: true, status: 'failed', blocked_note: note });
    expect((await get(`/api/messages/${id}`)).blocked_note).toBe(note);
    const delivered = await send('test-key', { recipient: 'fine@example.com', subject: 'Fine', body: '<p>x</p>' });
    expect((await get(`/api/messages/${delivered}`)).blocked_note).toBe(null);
  });

  it('over SMTP it names the 250 and the blocked address among the recipients', async ({ app, get }) => {
    const { smtpClient, capturedId } = await import('../../support/smtp.ts');
    const reply = await smtpClient(app.smtpPort, { user: 'acme-main', pass: 'test-key' }).sendMail({
      from: 'shop@acme.example',
      to: ['fine@example.com', 'blocked@example.com'],
      subject: 'Blocked over SMTP',
      text: 'x',
    });
    const id = capturedId(reply.response);
    expect((await get(`/api/messages/${id}`)).blocked_note).toBe(
      "Not delivered. The SMTP server accepted the message (250) and recorded it as failed: nothing was delivered, because blocked@example.com is blocked for team acme: it is on the team's configured block list.",
    );
  });
});

describe('GET /api/messages/:id/html and /text', () => {
  const CSP =
    "default-src 'none'; script-src 'none'; object-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'; " +
    "img-src 'self' HOST data:; media-src 'self' HOST data:; font-src 'self' HOST data:; style-src 'unsafe-inline' 'self' HOST; " +
    'sandbox allow-popups allow-popups-to-escape-sandbox';

  it('serves every colour mode under the same policy header; the srcdoc form of the one policy is the header less the sandbox', async ({ app, call, send }) => {
    const body = '<html><head><style>@media (prefers-color-scheme: dark){p{color:#fff}}</style></head><body><p>x</p></body></html>';
    const id = await send('bulk-key', { recipient: 'modes@example.com', subject: 'Modes', body });
    const header = CSP.replaceAll('HOST', app.url);
    const page = async (query: string) => {
      const res = await fetch(`${app.url}/api/messages/${id}/html${query}`);
      return [res.headers.get('content-security-policy'), await res.text()];
    };
    const based = body.replace('<head>', '<head><base target="_blank">');
    expect(await page('?mode=light')).toEqual([header, based.replace('prefers-color-scheme: dark', 'max-width: 0px')]);
    expect(await page('?mode=styles')).toEqual([header, based.replace('prefers-color-scheme: dark', 'min-width: 0px')]);
    const [policy, inverted] = await page('?mode=invert');
    expect(policy).toBe(header);
    expect(inverted).toMatch(/<\/html><style data-pigeonhole-dark>\n:root \{ filter: invert\(1\) hue-rotate\(180deg\); \}/);
    expect(await call('GET', `/api/messages/${id}/html?mode=dark`)).toMatchObject({
      status: 400,
      text: '{"detail":"mode must be one of light, styles, invert."}',
    });
    expect(previewPolicy(`'self' ${app.url}`, false, 'meta')).toBe(header.replace('; sandbox allow-popups allow-popups-to-escape-sandbox', ''));
  });

  it('with remote content off, frames, objects, embeds and links are made inert wherever their tag stands; with it on they are left', async ({ app, send }) => {
    const body =
      '<html><head><link rel="preconnect" href="http://t.example"><LINK rel=dns-prefetch href=//t.example/></head><body>' +
      '<iframe src="http://t.example/f">fallback</iframe><object data="http://t.example/o">alt</object><embed src="http://t.example/e">' +
      '<frameset><frame src="http://t.example/fr"></frameset><p title="<iframe src=x>">text</p></body></html>';
    const id = await send('bulk-key', { recipient: 'frames@example.com', subject: 'Frames', body });
    const local = await (await fetch(`${app.url}/api/messages/${id}/html`)).text();
    expect(local).toBe(
      '<html><head><base target="_blank"><basefont rel="preconnect" href="http://t.example"><basefont rel=dns-prefetch href=//t.example/></head><body>' +
        '<noembed src="http://t.example/f">fallback</noembed><span data="http://t.example/o">alt</span><wbr src="http://t.example/e">' +
        '<frameset><basefont src="http://t.example/fr"></frameset><p title="<noembed src=x>">text</p></body></html>',
    );
    expect(await (await fetch(`${app.url}/api/messages/${id}/html?remote=1`)).text()).toBe(body.replace('<head>', '<head><base target="_blank">'));
  });

  it('serves the HTML under a policy with no scripts and no remote content, unless remote=1', async ({ app, get, send }) => {
    const body = '<html><head><title>t</title></head><body><img src="https://tracker.example/p.gif"><script>alert(1)</script></body></html>';
    const id = await send('bulk-key', { recipient: 'h@example.com', subject: 'Remote', body });
    const res = await fetch(`${app.url}/api/messages/${id}/html`);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(CSP.replaceAll('HOST', app.url));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await res.text()).toBe(body.replace('<head>', '<head><base target="_blank">'));
    const remote = await fetch(`${app.url}/api/messages/${id}/html?remote=1`);
    expect(remote.headers.get('content-security-policy')).toBe(
      CSP.replaceAll('HOST', app.url)
        .replace(/(img|media|font)-src ([^;]*) data:/g, '$1-src $2 data: http: https:')
        .replace(/style-src ([^;]*)/, '$1 http: https:'.replace('$1', `style-src 'unsafe-inline' 'self' ${app.url}`)),
    );
    expect((await get(`/api/messages/${id}`)).has_remote_content).toBe(true);
  });

  it('serves the text body as text/plain, and a 404 detail for a missing part or capture', async ({ app, call, send }) => {
    const id = await send('bulk-key', { recipient: 't@example.com', subject: 'Text', body: '<p>only html</p>', plain_body: 'plain ünï' });
    const text = await fetch(`${app.url}/api/messages/${id}/text`);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe('plain ünï');
    expect(text.headers.get('x-pigeonhole-text-derived')).toBe('false');
    const noText = await send('bulk-key', {
      recipient: 't@example.com',
      subject: 'No text',
      body: '<h2>Hello</h2><ul><li>one</li><li><a href="https://x.example/2">two</a></li></ul>',
    });
    const derived = await fetch(`${app.url}/api/messages/${noText}/text`);
    expect(derived.headers.get('x-pigeonhole-text-derived')).toBe('true');
    expect(await derived.text()).toBe('Hello\n\n * one\n * two (https://x.example/2)');
    for (const path of ['/api/messages/nope/html', '/api/messages/nope/text']) {
      expect(await call('GET', path), path).toMatchObject({ status: 404, text: '{"detail":"Not found."}' });
    }
  });

  it('answers 404 for the HTML of a capture without an HTML body, and for the text of one with neither part', async ({ apps }) => {
    const server = await apps.start();
    const { smtpClient, capturedId } = await import('../../support/smtp.ts');
    const id = capturedId((await smtpClient(server.smtpPort).sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't' })).response);
    const res = await read(await fetch(`${server.url}/api/messages/${id}/html`));
    expect([res.status, res.text]).toEqual([404, '{"detail":"This capture has no HTML body."}']);
    // Neither part (only an attachment): no text either, not even a derived one.
    const bare = capturedId(
      (
        await smtpClient(server.smtpPort).sendMail({
          from: 'a@example.com',
          to: 'b@example.com',
          subject: 's',
          attachments: [{ filename: 'a.txt', content: 'x' }],
        })
      ).response,
    );
    const noText = await read(await fetch(`${server.url}/api/messages/${bare}/text`));
    expect([noText.status, noText.text]).toEqual([404, '{"detail":"This capture has no text body."}']);
    expect((await read(await fetch(`${server.url}/api/messages/${bare}`))).body).toMatchObject({ text: null, text_derived: false, text_url: null });
  });
});

describe('PATCH and DELETE /api/messages', () => {
  it('marks read and unread and answers the summary', async ({ get, call, send }) => {
    const id = await send('bulk-key', { recipient: 'p@example.com', subject: 'Patch', body: 'b' });
    const res = await call('PATCH', `/api/messages/${id}`, '{"read": true}');
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await get(`/api/messages?q=p@example.com`)).messages[0]);
    expect(res.body).toMatchObject({ id, read: true });
    expect((await call('PATCH', `/api/messages/${id}`, 'read=false', 'application/x-www-form-urlencoded')).body).toMatchObject({ read: false });
  });

  it('refuses a bad PATCH body with a 400 detail and an unknown id with a 404', async ({ call, send }) => {
    const id = await send('bulk-key', { recipient: 'p2@example.com', subject: 'Patch', body: 'b' });
    const cases: [string | undefined, number, string][] = [
      ['{}', 400, '{"detail":"read must be true or false."}'],
      ['{"read": "yes"}', 400, '{"detail":"read must be true or false."}'],
      ['{"read": 1}', 400, '{"detail":"read must be true or false."}'],
      [undefined, 400, '{"detail":"read must be true or false."}'],
      ['[true]', 400, '{"detail":"The body must be a JSON object."}'],
    ];
    for (const [body, status, text] of cases) expect(await call('PATCH', `/api/messages/${id}`, body), body).toMatchObject({ status, text });
    expect(await call('PATCH', '/api/messages/nope', '{"read": true}')).toMatchObject({ status: 404, text: '{"detail":"Not found."}' });
  });

  it('deletes one capture (204, then 404) and its files', async ({ call, send }) => {
    const id = await send('bulk-key', { recipient: 'd@example.com', subject: 'Delete', body: 'b' });
    const res = await call('DELETE', `/api/messages/${id}`);
    expect([res.status, res.text]).toEqual([204, '']);
    expect(await call('GET', `/api/messages/${id}`)).toMatchObject({ status: 404, text: '{"detail":"Not found."}' });
    expect(await call('DELETE', `/api/messages/${id}`)).toMatchObject({ status: 404, text: '{"detail":"Not found."}' });
  });

  it('clears every capture with DELETE /api/messages', async ({ apps }) => {
    const server = await apps.start();
    for (let i = 0; i < 3; i++) await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: 'c@example.com', subject: `c${i}`, body: 'b' });
    const res = await read(await fetch(`${server.url}/api/messages`, { method: 'DELETE' }));
    expect([res.status, res.text]).toEqual([204, '']);
    expect(((await read(await fetch(`${server.url}/api/messages`))).body as any).total).toBe(0);
  });
});

describe('GET /api/senders and POST /api/preview', () => {
  it('lists every configured sender with its key and rules', async ({ get }) => {
    const { senders } = await get('/api/senders');
    expect(senders.map((s: any) => s.id)).toEqual(['acme-main', 'acme-dev', 'acme-bulk', 'globex-main']);
    expect(senders[1]).toEqual({
      team: 'acme',
      team_name: 'Acme',
      id: 'acme-dev',
      name: 'Acme (development)',
      email: 'dev@acme.example',
      api_key: 'dev-key',
      development_mode: true,
      development_recipient: 'dev-inbox@example.com',
      daily_limit: 100,
      sent_today: expect.any(Number),
      has_account_template: false,
      revoked: false,
    });
    expect(senders[0]).toMatchObject({ has_account_template: true, daily_limit: 100 });
    expect(senders[2]).toMatchObject({ daily_limit: null });
  });

  it('wraps a body exactly as a send with the account template does', async ({ get, call, send }) => {
    const html = '<h1>Hi {{first_name}}</h1>';
    const preview = await call('POST', '/api/preview', JSON.stringify({ sender: 'acme-main', html }));
    const id = await send('test-key', { recipient: 'wrap@example.com', subject: 'Wrapped', body: html });
    expect(preview).toMatchObject({ status: 200, body: { html: (await get(`/api/messages/${id}`)).html } });
    expect((preview.body as any).html).toContain('<td style="padding:28px;font-size:16px;line-height:1.5"><h1>Hi {{first_name}}</h1></td>');
    expect((await call('POST', '/api/preview', JSON.stringify({ sender: 'acme-dev', html }))).body).toEqual({ html });
  });

  it('refuses a bad preview body with a 400 detail', async ({ call }) => {
    const cases: [string, string][] = [
      ['{"html": "<p>x</p>"}', '{"detail":"sender must be a string."}'],
      ['{"sender": "acme-main"}', '{"detail":"html must be a string."}'],
      ['{"sender": "acme-main", "html": 5}', '{"detail":"html must be a string."}'],
      ['{"sender": "nope", "html": ""}', '{"detail":"Unknown sender \\"nope\\"."}'],
    ];
    for (const [body, text] of cases) expect(await call('POST', '/api/preview', body), body).toMatchObject({ status: 400, text });
  });
});

describe('GET /api/recipients', () => {
  it('lists recipients across teams, newest first, with flags and block state', async ({ app, get, send }) => {
    await api(app.url, 'test-key').post('/v1/recipients/', { email: 'blocked@example.com', first_name: 'Bea', flags: 'vip' });
    await send('test-key', { recipient: 'bounce@simulator.amazonses.com', subject: 'Bounce', body: 'b' });
    const { recipients } = await get('/api/recipients?q=bounce@simulator');
    expect(recipients).toEqual([
      {
        team: 'acme',
        email: 'bounce@simulator.amazonses.com',
        first_name: '',
        last_name: '',
        flags: [],
        blocked: true,
        block_reason: 'bounce',
        has_been_sent_email: true,
        created_at: expect.stringMatching(/Z$/),
        updated_at: expect.stringMatching(/Z$/),
      },
    ]);
    expect((await get('/api/recipients?q=vip')).recipients).toMatchObject([
      { email: 'blocked@example.com', first_name: 'Bea', blocked: true, block_reason: 'config' },
    ]);
    const all = await get('/api/recipients?team=acme&limit=2&offset=1');
    expect(all).toMatchObject({ offset: 1, limit: 2 });
    expect(all.recipients).toHaveLength(2);
    expect(all.total).toBeGreaterThan(3);
    expect((await get('/api/recipients?team=globex')).total).toBe(0);
  });

  it('refuses an unknown team and bad paging with a 400 detail', async ({ call }) => {
    expect(await call('GET', '/api/recipients?team=nope')).toMatchObject({ status: 400, text: '{"detail":"Unknown team \\"nope\\"."}' });
    expect(await call('GET', '/api/recipients?limit=501')).toMatchObject({ status: 400, text: '{"detail":"limit must be a whole number from 1 to 500."}' });
    expect(await call('GET', '/api/recipients?offset=x')).toMatchObject({
      status: 400,
      text: '{"detail":"offset must be a whole number from 0 to 9007199254740991."}',
    });
  });
});
