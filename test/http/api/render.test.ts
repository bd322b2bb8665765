import { describe, expect } from 'vitest';
import { PigeonholeClient, PigeonholeError } from '../../../client/pigeonhole-client.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { viewFixture } from '../../support/view-fixtures.ts';

/** On the file's app: `send(html)` a /v1 send (200), its capture id; `render(query)` a GET of the render route, read. */
const it = test
  .extend('send', { scope: 'file' }, ({ v1 }) => async (body: string): Promise<string> => {
    const res = await read(await v1.post('/v1/email/send/', { recipient: 'views@example.com', subject: 'Views', body, use_account_template: false }));
    expect(res.status).toBe(200);
    return (res.body as { id: string }).id;
  })
  .extend(
    'render',
    { scope: 'file' },
    ({ app }) =>
      async (id: string, query: string) =>
        read(await fetch(`${app.url}/api/messages/${encodeURIComponent(id)}/render${query}`)),
  );

describe('GET /api/messages/:id/render', () => {
  it('answers the client view of a capture: client, fidelity, html and removals', async ({ send, render }) => {
    const id = await send(viewFixture('flex-grid.html'));
    const res = await render(id, '?client=outlook-windows');
    expect(res.status).toBe(200);
    const body = res.body as Record<string, any>;
    expect(Object.keys(body)).toEqual(['client', 'name', 'fidelity', 'approximation', 'limits', 'mode', 'dark', 'html', 'removed']);
    expect(body).toMatchObject({ client: 'outlook-windows', name: 'Outlook (Windows, 2019)', fidelity: 'low', approximation: true, mode: 'light', dark: null });
    // As written from the data in test/domain/views/client-views.test.ts.
    expect(body.removed.map((r: any) => [r.feature, r.count, r.lines])).toEqual([
      ['css-display-flex', 2, [7, 14]],
      ['css-gap', 1, [7]],
      ['css-display-grid', 2, [8, 13]],
      ['css-grid-template', 2, [8, 13]],
      ['css-justify-content', 1, [14]],
    ]);
    // Shown as the preview shows HTML: links open outside the frame.
    expect(body.html).toContain('<base target="_blank">');
    expect(body.html).toContain('<div style="max-width: 600px"><span>A</span>');
  });

  it("links each removal to a warning of the capture's check", async ({ app, send, render }) => {
    const id = await send(viewFixture('svg-form.html'));
    const view = (await render(id, '?client=outlook-windows')).body as { removed: { finding: string }[] };
    const check = (await read(await fetch(`${app.url}/api/messages/${id}/check`))).body as { html: { warnings: { feature: string }[] } };
    const warnings = new Set(check.html.warnings.map((w) => `compatibility/${w.feature}`));
    expect(view.removed.length).toBe(6);
    for (const removal of view.removed) expect(warnings, removal.finding).toContain(removal.finding);
  });

  it('takes the mode: dark shows what the client does in dark, inverted forces an inversion', async ({ send, render }) => {
    const id = await send(viewFixture('dark-mode.html'));
    const apple = (await render(id, '?client=apple-mail&mode=dark')).body as any;
    expect([apple.mode, apple.dark]).toEqual(['dark', 'styles']);
    expect(apple.html).toContain('@media (min-width: 0px) {');
    const app = (await render(id, '?client=gmail-app&mode=dark')).body as any;
    expect(app.dark).toBe('invert');
    const inverted = (await render(id, '?client=apple-mail&mode=inverted')).body as any;
    expect(inverted.html).toContain('filter: invert(1) hue-rotate(180deg)');
  });

  it('serves a client view as the preview page (/html?client=), under the same policy header', async ({ app, send }) => {
    const id = await send(viewFixture('flex-grid.html'));
    const plain = await fetch(`${app.url}/api/messages/${id}/html`);
    const view = await fetch(`${app.url}/api/messages/${id}/html?client=outlook-windows&mode=invert`);
    expect(view.status).toBe(200);
    expect(view.headers.get('content-security-policy')).toBe(plain.headers.get('content-security-policy'));
    expect(view.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await view.text();
    expect(html).toContain('<div style="max-width: 600px"><span>A</span>');
    expect(html).toContain('filter: invert(1) hue-rotate(180deg)');
    const bad = await read(await fetch(`${app.url}/api/messages/${id}/html?client=notes`));
    expect([bad.status, bad.text]).toEqual([
      400,
      '{"detail":"client must be one of gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off."}',
    ]);
  });

  it('refuses an unknown or missing client, and a bad mode, naming what it takes', async ({ send, render }) => {
    const id = await send('<p>Hello</p>');
    const badClient = '{"detail":"client must be one of gmail-web, gmail-app, outlook-windows, outlook-com, apple-mail, yahoo, images-off."}';
    for (const query of ['?client=thunderbird', '', '?client=', '?client=Gmail-Web']) {
      const res = await render(id, query);
      expect([res.status, res.text], query).toEqual([400, badClient]);
    }
    const res = await render(id, '?client=yahoo&mode=night');
    expect([res.status, res.text]).toEqual([400, '{"detail":"mode must be one of light, dark, inverted."}']);
  });

  it('answers 404 for an unknown capture and for one without HTML', async ({ app, smtp, render }) => {
    const unknown = await render('nope', '?client=yahoo');
    expect([unknown.status, unknown.text]).toEqual([404, '{"detail":"Not found."}']);
    const id = await smtp.send({ from: 'a@example.com', to: 'b@example.com', subject: 's', text: 'only text' });
    const res = await read(await fetch(`${app.url}/api/messages/${id}/render?client=images-off`));
    expect([res.status, res.text]).toEqual([404, '{"detail":"This capture has no HTML body."}']);
  });

  it('is what the typed client’s render() returns', async ({ app, send }) => {
    const id = await send(viewFixture('images.html'));
    const client = new PigeonholeClient({ baseUrl: app.url });
    const view = await client.render(id, 'images-off', { mode: 'light' });
    expect(view.removed.map((r) => r.finding)).toEqual([null, 'accessibility/img-alt', null]);
    expect(view.html).toContain('No alt text: photo.png');
    const error = await client.render(id, 'lotus-notes' as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PigeonholeError);
    expect((error as PigeonholeError).status).toBe(400);
  });
});
