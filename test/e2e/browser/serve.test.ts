import { readdir } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { describe, expect } from 'vitest';
import { errorMiddleware } from '../../../server/http/errors.ts';
import { homePage, UI_DIR } from '../../../server/http/home.ts';
import { test as it } from '../../support/fixtures.ts';
import { raw } from '../../support/raw.ts';

describe('serving the built UI', () => {
  it('serves index.html at / uncached, with a CSP that allows only its own scripts', async ({ app }) => {
    const response = await fetch(`${app.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    // No other site may frame it (clickjacking).
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const html = await response.text();
    expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
  });

  it("marks a load another site started (Sec-Fetch-Site cross-site or same-site) in the page, and keeps the page out of any opener's reach", async ({
    app,
  }) => {
    const META = '<meta name="pigeonhole-arrival" content="elsewhere">';
    for (const [site, marked] of [
      ['cross-site', true],
      ['same-site', true],
      ['same-origin', false],
      ['none', false],
      [null, false],
    ] as const) {
      // As a browser's navigation sends them (fetch() would set its own Sec-Fetch-Mode).
      const response = await raw(`${app.url}/`, {
        headers: site === null ? {} : { 'Sec-Fetch-Site': site, 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document' },
      });
      expect(response.headers['cross-origin-opener-policy'], String(site)).toBe('same-origin');
      expect(response.headers.vary, String(site)).toBe('Sec-Fetch-Site');
      const html = response.text;
      expect(html.includes(`<head>${META}`), String(site)).toBe(marked);
      expect(html.split(META).length, String(site)).toBe(marked ? 2 : 1);
    }
  });

  it('serves every hashed asset with its content type and a year of immutable caching', async ({ app }) => {
    const files = await readdir(`${UI_DIR}/assets`);
    const types: Record<string, string> = { '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8' };
    expect(files.some((f) => f.endsWith('.js')) && files.some((f) => f.endsWith('.css'))).toBe(true);
    for (const file of files) {
      const response = await fetch(`${app.url}/assets/${file}`);
      expect(response.status).toBe(200);
      const ext = file.slice(file.lastIndexOf('.'));
      if (types[ext]) expect(response.headers.get('content-type')).toBe(types[ext]);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(Number(response.headers.get('content-length'))).toBe((await response.arrayBuffer()).byteLength);
    }
  });

  it('answers 404 for an unknown asset or a path that leaves the assets folder', async ({ app }) => {
    for (const path of ['/assets/nope.js', '/assets/..%2Findex.html', '/assets/.hidden', '/assets/%2e%2e%2f%2e%2e%2fpackage.json']) {
      const response = await fetch(`${app.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).toBe('{"detail":"Not found."}');
    }
  });

  it('says plainly when the UI was not built, and still shows how to use the sandbox', async ({ app: pigeonhole }) => {
    const app = new Koa();
    const router = new Router();
    router.get(['/', '/assets/:file'], homePage(pigeonhole.sandbox, '/nonexistent/ui'));
    app.use(errorMiddleware({ error: () => undefined }));
    app.use(router.routes());
    const http = createServer(app.callback());
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      const response = await fetch(`${base}/`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect([response.headers.get('content-security-policy'), response.headers.get('x-frame-options')]).toEqual(["frame-ancestors 'none'", 'DENY']);
      const html = await response.text();
      expect(html).toContain('The inbox UI is not built.');
      expect(html).toContain('<code>npm run build</code>');
      expect(html).toContain('/nonexistent/ui');
      expect(html).toContain('Api-Key test-key');
      expect((await fetch(`${base}/assets/index.js`)).status).toBe(404);
    } finally {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
