import { describe, expect } from 'vitest';
import { test } from '../support/fixtures.ts';

const EMAIL =
  '<html><head><style>@media (prefers-color-scheme: dark) { body { background: #000 } } @media (prefers-color-scheme: light) { p { color: #111 } }</style></head><body><p>Hi "there" <img src="cid:logo@x"></p></body></html>';

/** One capture with an inline image: `id`, and `get(path, headers)` on the file's app. */
const it = test
  .extend('id', { scope: 'file' }, ({ smtp }) =>
    smtp.send({
      from: 'app@example.com',
      to: 'render@example.com',
      subject: 'Render <me>',
      html: EMAIL,
      attachments: [{ filename: 'logo.png', content: Buffer.from([137, 80, 78, 71]), cid: 'logo@x' }],
    }),
  )
  .extend('get', { scope: 'file' }, ({ app }) => async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(app.url + path, { headers });
    return { status: response.status, headers: response.headers, text: await response.text() };
  });

describe('GET /preview/{id}', () => {
  it('is the email alone in a frame of the width asked for, under the preview policy, framed by the inbox only', async ({ get, id, app }) => {
    const page = await get(`/preview/${id}?width=phone`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const nonce = /nonce="([^"]+)"/.exec(page.text)![1]!;
    const self = `'self' ${app.url}`;
    expect(page.headers.get('content-security-policy')).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; object-src 'none'; frame-src 'none'; form-action 'none'; base-uri 'none'; img-src ${self} data:; media-src ${self} data:; font-src ${self} data:; style-src 'unsafe-inline' ${self}; frame-ancestors 'self'`,
    );
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.text).toContain('iframe{display:block;border:0;width:375px;height:0}');
    expect(page.text).toContain('<title>Render &#60;me&#62;</title>');
    const srcdoc = decode(/srcdoc="([^"]*)"/.exec(page.text)![1]!);
    expect(srcdoc).toContain(`<img src="/api/messages/${id}/attachments/0?sig=`);
    expect(srcdoc).toContain('<p>Hi "there"');
    // Light: the email's dark styles never apply, its light ones always.
    expect(srcdoc).toContain('@media (max-width: 0px) { body { background: #000 } } @media (min-width: 0px) { p { color: #111 } }');
    expect((await get(`/preview/${id}`)).text).toContain('width:100%;');
    expect((await get(`/preview/${id}?width=1024`)).text).toContain('width:1024px;');
    expect((await get(`/preview/${id}?width=tablet`)).text).toContain('width:768px;');
  });

  it("applies the dark modes: the email's own dark styles, or inversion", async ({ get, id }) => {
    const dark = decode(/srcdoc="([^"]*)"/.exec((await get(`/preview/${id}?mode=dark`)).text)![1]!);
    expect(dark).toContain('@media (min-width: 0px) { body { background: #000 } } @media (max-width: 0px) { p { color: #111 } }');
    const inverted = decode(/srcdoc="([^"]*)"/.exec((await get(`/preview/${id}?mode=inverted`)).text)![1]!);
    expect(inverted).toContain('</html><style data-pigeonhole-dark>\n:root { filter: invert(1) hue-rotate(180deg); }');
    expect(inverted).toContain('@media (max-width: 0px) { body { background: #000 } }');
  });

  it('lets remote content in only with remote=1', async ({ get, id, app }) => {
    expect((await get(`/preview/${id}?remote=1`)).headers.get('content-security-policy')).toContain(`img-src 'self' ${app.url} data: http: https:;`);
    expect((await get(`/preview/${id}`)).headers.get('content-security-policy')).not.toContain('https:');
  });

  it('refuses a bad width or mode and an unknown capture, byte for byte', async ({ get, id }) => {
    const width = await get(`/preview/${id}?width=watch`);
    expect([width.status, width.text]).toEqual([400, '{"detail":"width must be phone, tablet, desktop or a number of pixels from 200 to 4000."}']);
    const tiny = await get(`/preview/${id}?width=20`);
    expect(tiny.status).toBe(400);
    const mode = await get(`/preview/${id}?mode=sepia`);
    expect([mode.status, mode.text]).toEqual([400, '{"detail":"mode must be one of light, dark, inverted."}']);
    const none = await get('/preview/nope');
    expect([none.status, none.text]).toEqual([404, '{"detail":"Not found."}']);
  });

  it('is refused to another site: not framed, not opened by a link, not read', async ({ get, id }) => {
    const cases = [
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' },
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
      { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' },
    ];
    for (const headers of cases) {
      const answer = await get(`/preview/${id}`, headers);
      expect([answer.status, JSON.parse(answer.text).detail]).toEqual([
        403,
        'Sec-Fetch-Site "cross-site": a page on another site may not read anything here (an image, a frame or a fetch of it); no setting allows it without an Origin header. A link still opens the inbox; pages on an origin given to --allowed-origins read with fetch() in CORS mode, which sends their Origin.',
      ]);
    }
    expect((await get(`/preview/${id}`, { 'Sec-Fetch-Site': 'same-origin', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe' })).status).toBe(200);
  });
});

function decode(attribute: string): string {
  return attribute.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
}

describe('GET /preview/{id}?client=', () => {
  it('is the client view of /api/messages/{id}/render, with its mode, under the same policy', async ({ get, id }) => {
    for (const [client, mode] of [
      ['images-off', 'light'],
      ['gmail-app', 'inverted'],
      ['apple-mail', 'dark'],
    ]) {
      const page = await get(`/preview/${id}?client=${client}&mode=${mode}&width=phone`);
      expect(page.status).toBe(200);
      const policy = (answer: { headers: Headers }) => answer.headers.get('content-security-policy')!.replace(/'nonce-[^']+'/, "'nonce'");
      expect(policy(page)).toBe(policy(await get(`/preview/${id}`)));
      expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
      const view = JSON.parse((await get(`/api/messages/${id}/render?client=${client}&mode=${mode}`)).text);
      expect(decode(/srcdoc="([^"]*)"/.exec(page.text)![1]!)).toBe(view.html);
    }
    // Images off: the image is gone from the page; without a client it is there.
    const off = decode(/srcdoc="([^"]*)"/.exec((await get(`/preview/${id}?client=images-off`)).text)![1]!);
    expect(off).not.toContain('<img');
    expect(decode(/srcdoc="([^"]*)"/.exec((await get(`/preview/${id}`)).text)![1]!)).toContain('<img');
  });

  it('refuses an unknown client naming the known ones, as the render route does', async ({ get, id }) => {
    const bad = await get(`/preview/${id}?client=lotus-notes`);
    const route = await get(`/api/messages/${id}/render?client=lotus-notes`);
    expect([bad.status, bad.text]).toEqual([
      400,
      '{"detail":"client must be one of gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off."}',
    ]);
    expect([route.status, route.text]).toEqual([bad.status, bad.text]);
  });
});
