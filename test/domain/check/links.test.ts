import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { scanHtml } from '../../../server/domain/check/html-scan.ts';
import { checkLink, checkLinks, linkTargets } from '../../../server/domain/check/links.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { startLinkSite, type LinkSite } from '../../support/link-servers.ts';

let site: LinkSite;
beforeAll(async () => {
  site = await startLinkSite();
});
afterAll(() => site.close());
beforeEach(() => {
  site.requests.length = 0;
  site.maxInFlight = 0;
});

/** `send(body)`: a /v1 send of this HTML body to the file's app, its id. */
const it = test.extend('send', { scope: 'file' }, ({ v1 }) => async (body: string): Promise<string> => {
  const res = await read(await v1.post('/v1/email/send/', { recipient: 'links@example.com', subject: 'Links', body }, {}));
  return (res.body as { id: string }).id;
});

const target = (path: string) => ({ url: `${site.url}${path}`, kind: 'link' as const, lines: [1] });

describe('the link check', () => {
  it('follows redirects to the final answer', async () => {
    const result = await checkLink(target('/moved'));
    expect(result).toMatchObject({ status: 200, ok: true, final_url: `${site.url}/ok`, redirects: 2, method: 'HEAD', error: null });
    expect(result.time_ms).toBeGreaterThanOrEqual(0);
    expect(site.requests).toEqual([
      { method: 'HEAD', path: '/moved' },
      { method: 'HEAD', path: '/moved-again' },
      { method: 'HEAD', path: '/ok' },
    ]);
    expect(await checkLink(target('/see-other'))).toMatchObject({ status: 200, method: 'GET', redirects: 1 });
  });

  it('reports a 404 as broken', async () => {
    expect(await checkLink(target('/missing'))).toMatchObject({ status: 404, ok: false, error: null, redirects: 0 });
  });

  it('asks again with GET when HEAD is refused', async () => {
    expect(await checkLink(target('/no-head'))).toMatchObject({ status: 200, ok: true, method: 'GET' });
    expect(site.requests.map((r) => r.method)).toEqual(['HEAD', 'GET']);
  });

  it('gives up on a link that does not answer within its timeout', async () => {
    const result = await checkLink(target('/never'), { timeoutMs: 300 });
    expect(result).toMatchObject({ status: null, ok: false, error: 'No answer within 0.3 s.' });
    expect(result.time_ms).toBeGreaterThanOrEqual(290);
    expect(result.time_ms).toBeLessThan(3000);
  });

  it('stops after 5 redirects and never follows one to another scheme', async () => {
    const loop = await checkLink(target('/loop/0'));
    expect(loop).toMatchObject({ ok: false, redirects: 5, status: 302, error: 'More than 5 redirects.', final_url: `${site.url}/loop/5` });
    expect(site.requests).toHaveLength(6);
    const ftp = await checkLink(target('/to-ftp'));
    expect(ftp).toMatchObject({ ok: false, final_url: 'ftp://files.example/x', error: 'Redirects to a ftp: URL, which is not followed.' });
  });

  it('reports a refused connection', async () => {
    const closed = await startLinkSite();
    const url = closed.url;
    await closed.close();
    expect(await checkLink({ url: `${url}/ok`, kind: 'link', lines: [1] })).toMatchObject({ status: null, ok: false, error: 'ECONNREFUSED' });
  });

  it('checks 5 at a time and yields each result as it comes', async () => {
    const targets = [800, 50, 600, 400, 300, 200, 100, 700].map((ms) => target(`/slow/${ms}`));
    const order: string[] = [];
    for await (const result of checkLinks(targets)) order.push(result.url.slice(site.url.length));
    expect(site.maxInFlight).toBe(5);
    expect(order).toHaveLength(8);
    expect(order[0]).toBe('/slow/50');
    expect(order[order.length - 1]).not.toBe('/slow/100');
  });

  it('takes every http(s) link and image once, and no other scheme', () => {
    const html = [
      '<a href="https://a.example/x">A</a> <a href="https://a.example/x">again</a>',
      '<img src="http://localhost:9/logo.png" alt="">',
      '<a href="mailto:x@y.example">m</a><a href="file:///etc/passwd">f</a><a href="ftp://f.example/">ftp</a><a href="javascript:alert(1)">j</a>',
      '<a href="#top">top</a><a href="/relative">rel</a><td background="https://a.example/bg.png"></td>',
    ].join('\n');
    const { targets, skipped } = linkTargets(scanHtml(html));
    expect(targets).toEqual([
      { url: 'https://a.example/x', kind: 'link', lines: [1] },
      { url: 'http://localhost:9/logo.png', kind: 'image', lines: [2] },
      { url: 'https://a.example/bg.png', kind: 'image', lines: [4] },
    ]);
    expect(skipped).toBe(5);
  });
});

describe('POST /api/messages/:id/check/links', () => {
  it('checks every link and image of the capture, localhost included, and never another scheme', async ({ app, send }) => {
    const id = await send(
      `<a href="${site.url}/moved">ok</a><a href="${site.url}/missing">gone</a><img src="${site.url}/image.png" alt="x"><a href="file:///etc/passwd">f</a><a href="mailto:a@b.example">m</a>`,
    );
    const res = await read(await fetch(`${app.url}/api/messages/${id}/check/links`, { method: 'POST' }));
    expect(res.status).toBe(200);
    const body = res.body as { total: number; broken: number; skipped: number; links: { url: string; status: number; ok: boolean; kind: string }[] };
    expect(body.total).toBe(3);
    expect(body.broken).toBe(1);
    expect(body.skipped).toBe(2);
    expect(body.links.map((l) => [l.url.slice(site.url.length), l.kind, l.status, l.ok])).toEqual([
      ['/moved', 'link', 200, true],
      ['/missing', 'link', 404, false],
      ['/image.png', 'image', 200, true],
    ]);
    expect(site.requests.every((r) => ['/moved', '/moved-again', '/ok', '/missing', '/image.png'].includes(r.path))).toBe(true);
  });

  it('streams JSON lines as each link is checked when asked for application/x-ndjson', async ({ app, send }) => {
    const id = await send(`<a href="${site.url}/slow/600">slow</a><a href="${site.url}/ok">fast</a>`);
    const started = performance.now();
    const response = await fetch(`${app.url}/api/messages/${id}/check/links`, {
      method: 'POST',
      headers: { Accept: 'application/x-ndjson', 'Content-Type': 'application/json' },
      body: JSON.stringify({ timeout_ms: 5000 }),
    });
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    const reader = response.body!.getReader();
    const lines: { type: string; url?: string; at: number }[] = [];
    let buffered = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += new TextDecoder().decode(value);
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        lines.push({ ...JSON.parse(buffered.slice(0, newline)), at: performance.now() - started });
        buffered = buffered.slice(newline + 1);
      }
    }
    expect(lines.map((l) => [l.type, l.url?.slice(site.url.length)])).toEqual([
      ['start', undefined],
      ['link', '/ok'],
      ['link', '/slow/600'],
      ['done', undefined],
    ]);
    // The fast link arrived before the slow one was done: the stream is live, not buffered.
    expect(lines[1]!.at).toBeLessThan(lines[2]!.at - 300);
  });

  it('refuses a bad timeout and an unknown message', async ({ app, send }) => {
    const id = await send('<p>no links</p>');
    const bad = await read(
      await fetch(`${app.url}/api/messages/${id}/check/links`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ timeout_ms: 5 }),
      }),
    );
    expect(bad).toMatchObject({ status: 400, body: { detail: 'timeout_ms must be a whole number from 100 to 60000.' } });
    expect(await read(await fetch(`${app.url}/api/messages/${id}/check/links`, { method: 'POST' }))).toMatchObject({
      status: 200,
      body: { total: 0, broken: 0, skipped: 0, links: [] },
    });
    expect(await read(await fetch(`${app.url}/api/messages/NOPE/check/links`, { method: 'POST' }))).toMatchObject({
      status: 404,
      body: { detail: 'Not found.' },
    });
  });
});
