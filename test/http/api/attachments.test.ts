import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { createLogin } from '../../../server/http/basic-auth.ts';
import { browserPolicy } from '../../../server/http/browser-guard.ts';
import { signedPath } from '../../../server/http/signed-reads.ts';
import { raw } from '../../support/raw.ts';

/**
 * Attachments and the .eml are the sender's bytes (issue 19): served so that no browser runs
 * them on this origin. Every attachment is a download under a type that cannot run (HTML, XML,
 * SVG and scripts become application/octet-stream), nosniff; PNG, JPEG, GIF and WebP stay
 * inline for the preview. `sent(files)` sends one capture through /v1 with these attachments
 * (name, type, content) and resolves with its id.
 */
const it = test.extend('sent', { scope: 'file' }, ({ app }) => async (files: [string, string, string][]) => {
  const form = new FormData();
  form.append('recipient', 'files@example.com');
  form.append('subject', 'Files');
  form.append('body', '<p>files</p>');
  for (const [name, type, content] of files) form.append('attachment', new Blob([content], { type }), name);
  const response = await read(await api(app.url, 'test-key').multipart('/v1/email/send/', form));
  expect(response.status).toBe(200);
  return (response.body as { id: string }).id;
});

const SANDBOX = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox";

describe('GET /api/messages/:id/attachments/:index', () => {
  it('serves a type a browser could run as application/octet-stream, as a download, nosniff', async ({ app, sent }) => {
    const files: [string, string, string][] = [
      ['app.js', 'application/javascript', 'alert(document.domain)'],
      ['page.html', 'text/html; charset=utf-8', '<script>alert(1)</script>'],
      ['drawing.svg', 'image/svg+xml', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'],
      ['feed.xml', 'application/xml', '<x/>'],
      ['page.xhtml', 'application/xhtml+xml', '<html/>'],
      ['old.js', 'text/ecmascript', 'alert(1)'],
      ['style.css', 'text/css', 'body{}'],
      // A harmless type on a file name that says .html: the name never sets the type.
      ['notes.html', 'text/plain', '<script>alert(1)</script>'],
    ];
    const id = await sent(files);
    for (const [index, [name, , content]] of files.entries()) {
      const res = await raw(`${app.url}/api/messages/${id}/attachments/${index}`);
      expect([name, res.status, res.text]).toEqual([name, 200, content]);
      expect([name, res.headers['content-type'], res.headers['content-disposition'], res.headers['x-content-type-options']]).toEqual([
        name,
        name === 'notes.html' ? 'text/plain; charset=utf-8' : 'application/octet-stream',
        `attachment; filename="${name}"`,
        'nosniff',
      ]);
      expect(res.headers['content-security-policy']).toBe(SANDBOX);
    }
  });

  it('keeps a harmless type but still as a download; PNG, JPEG, GIF and WebP inline unless ?download', async ({ app, sent }) => {
    const id = await sent([
      ['report.pdf', 'application/pdf', '%PDF-1.4'],
      ['logo.png', 'image/png', 'png'],
      ['photo.jpg', 'image/jpeg', 'jpg'],
      ['anim.gif', 'image/gif', 'gif'],
      ['pic.webp', 'image/webp', 'webp'],
    ]);
    const expected = [
      ['application/pdf', 'attachment; filename="report.pdf"'],
      ['image/png', 'inline; filename="logo.png"'],
      ['image/jpeg', 'inline; filename="photo.jpg"'],
      ['image/gif', 'inline; filename="anim.gif"'],
      ['image/webp', 'inline; filename="pic.webp"'],
    ];
    for (const [index, [type, disposition]] of expected.entries()) {
      const res = await raw(`${app.url}/api/messages/${id}/attachments/${index}`);
      expect([res.status, res.headers['content-type'], res.headers['content-disposition'], res.headers['x-content-type-options']]).toEqual([
        200,
        type,
        disposition,
        'nosniff',
      ]);
    }
    const saved = await raw(`${app.url}/api/messages/${id}/attachments/1?download`);
    expect([saved.headers['content-type'], saved.headers['content-disposition']]).toEqual(['image/png', 'attachment; filename="logo.png"']);
  });

  it('encodes a file name that is not plain ASCII as RFC 6266 says (filename and filename*)', async ({ app, sent }) => {
    const id = await sent([
      ['Rechnung März "2026".pdf', 'application/pdf', 'x'],
      ['résumé.txt', 'text/plain', 'y'],
    ]);
    const first = await raw(`${app.url}/api/messages/${id}/attachments/0`);
    expect(first.headers['content-disposition']).toBe(
      `attachment; filename="Rechnung M?rz \\"2026\\".pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz%20%222026%22.pdf`,
    );
    const second = await raw(`${app.url}/api/messages/${id}/attachments/1`);
    expect(second.headers['content-disposition']).toBe(`attachment; filename="r?sum?.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9.txt`);
  });

  it('saves a name with bidirectional controls under visible escapes, never as the reordered name (issue 28 #9)', async ({ app, sent }) => {
    const id = await sent([['invoice\u202Efdp.exe', 'application/octet-stream', 'MZ']]);
    const saved = await raw(`${app.url}/api/messages/${id}/attachments/0`);
    expect(saved.headers['content-disposition']).toBe(`attachment; filename="invoice[U+202E]fdp.exe"`);
    // The API record keeps the name as sent.
    expect(((await read(await fetch(`${app.url}/api/messages/${id}`))).body as any).attachments[0].filename).toBe('invoice\u202Efdp.exe');
  });
});

describe('GET /api/messages/:id/raw', () => {
  it('is never sniffed and never a document that runs anything, inline or as a download', async ({ app, sent }) => {
    const id = await sent([['page.html', 'text/html', '<script>alert(1)</script>']]);
    for (const [query, disposition] of [
      ['', `inline; filename="${id}.eml"`],
      ['?download', `attachment; filename="${id}.eml"`],
    ]) {
      const res = await raw(`${app.url}/api/messages/${id}/raw${query}`);
      expect([res.status, res.headers['content-type'], res.headers['content-disposition']]).toEqual([200, 'message/rfc822', disposition]);
      expect([res.headers['x-content-type-options'], res.headers['content-security-policy']]).toEqual(['nosniff', "default-src 'none'; sandbox"]);
    }
  });
});

describe("the preview's inline images (signed paths)", () => {
  // The preview is a sandboxed frame (an opaque origin): its image requests are cross-site and carry no session cookie.
  const fromPreview = { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' };

  it('pass the resource isolation with their own signature only', async ({ app, sent }) => {
    const id = await sent([
      ['logo.png', 'image/png', 'png'],
      ['other.png', 'image/png', 'other'],
    ]);
    const path = `/api/messages/${id}/attachments/0`;
    const signed = await raw(app.url + signedPath(path), { headers: fromPreview });
    expect([signed.status, signed.text, signed.headers['content-disposition']]).toEqual([200, 'png', 'inline; filename="logo.png"']);
    const other = signedPath(path).replace('/attachments/0?', '/attachments/1?');
    for (const url of [path, `${path}?sig=`, `${path}?sig=${'A'.repeat(43)}`, other]) {
      expect([url, (await raw(app.url + url, { headers: fromPreview })).status]).toEqual([url, 403]);
    }
  });

  it('with a login, a signed path is served without it; anything else still needs it', async ({ apps }) => {
    const app = await apps.start({ access: { policy: browserPolicy(), login: createLogin({ user: 'team', password: 'secret' }) } });
    const form = new FormData();
    for (const [k, v] of Object.entries({ recipient: 'a@example.com', subject: 'Logo', body: '<img src="cid:logo">' })) form.append(k, v);
    form.append('attachment', new Blob(['png'], { type: 'image/png' }), 'logo.png');
    const { id } = (await read(await api(app.url, 'test-key').multipart('/v1/email/send/', form))).body as { id: string };
    const path = `/api/messages/${id}/attachments/0`;
    expect((await raw(app.url + signedPath(path), { headers: fromPreview })).status).toBe(200);
    expect((await raw(app.url + path)).status).toBe(401);
    expect((await raw(`${app.url}/api/messages/${id}/html?sig=${signedPath(path).split('=')[1]}`)).status).toBe(401);
  });
});
