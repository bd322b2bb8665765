import { describe, expect } from 'vitest';
import { browserPolicy, checkBrowserRequest, hostName } from '../../server/http/browser-guard.ts';
import { startApp } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { CHROMIUM_HEADERS, raw, tryUpgrade } from '../support/raw.ts';

/**
 * The browser guard through the real server: every attack of issue 11 refused with a 403 that
 * names the header and the setting, every client that is not a hostile page served as before.
 */
/**
 * On the file's app: `port` its HTTP port, `send(recipient)` a /v1 send, `total()` how many
 * captures it holds, `clock()` its sandbox clock, `evil()` the host a rebound page would send
 * (evil.example on the app's port). `team`: an app with --allowed-hosts and --allowed-origins.
 */
const it = test
  .extend('port', { scope: 'file' }, ({ app }) => new URL(app.url).port)
  .extend(
    'send',
    { scope: 'file' },
    ({ app }) =>
      (recipient: string) =>
        raw(`${app.url}/v1/email/send/`, {
          method: 'POST',
          headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
          body: JSON.stringify({ recipient, subject: 'Reset your password', body: '<p>code 123456</p>' }),
        }),
  )
  .extend(
    'total',
    { scope: 'file' },
    ({ app }) =>
      async () =>
        (await raw(`${app.url}/api/messages?limit=1`)).body.total as number,
  )
  .extend(
    'clock',
    { scope: 'file' },
    ({ app }) =>
      async () =>
        (await raw(`${app.url}/api/clock`)).body,
  )
  .extend(
    'evil',
    { scope: 'file' },
    ({ port }) =>
      () =>
        `evil.example:${port}`,
  )
  .extend('team', { scope: 'file' }, async ({}, { onCleanup }) => {
    const team = await startApp({
      access: { policy: browserPolicy({ hosts: ['mail.team.example', '.dev.example'], origins: ['https://tests.example'] }), login: null },
    });
    onCleanup(() => team.destroy());
    return team;
  });
const hostRefusal = (host: string, name: string) => ({
  detail: `Host "${host}" is not an allowed host, so this request is refused (it could come from a web page whose name was pointed at this machine). If you reach Pigeonhole by this name, start it with --allowed-hosts ${name} (or PIGEONHOLE_ALLOWED_HOSTS=${name}).`,
});
const originRefusal = (origin: string) => ({
  detail: `Origin "${origin}" may not change anything here. To allow pages from it, start Pigeonhole with --allowed-origins ${origin} (or PIGEONHOLE_ALLOWED_ORIGINS=${origin}).`,
});
const readRefusal = (origin: string) => ({
  detail: `Origin "${origin}" may not read anything here. To allow pages from it, start Pigeonhole with --allowed-origins ${origin} (or PIGEONHOLE_ALLOWED_ORIGINS=${origin}).`,
});
const CROSS_SITE_READ = {
  detail:
    'Sec-Fetch-Site "cross-site": a page on another site may not read anything here (an image, a frame or a fetch of it); no setting allows it without an Origin header. A link still opens the inbox; pages on an origin given to --allowed-origins read with fetch() in CORS mode, which sends their Origin.',
};
/** The fetch metadata Chromium sends from a page of another site (design.md), by what the page made. */
const CROSS_SITE = {
  image: {
    'Sec-Fetch-Site': 'cross-site',
    'Sec-Fetch-Mode': 'no-cors',
    'Sec-Fetch-Dest': 'image',
    Accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  },
  noCorsFetch: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'empty' },
  iframe: { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'iframe', 'Upgrade-Insecure-Requests': '1' },
  link: {
    'Sec-Fetch-Site': 'cross-site',
    'Sec-Fetch-Mode': 'navigate',
    'Sec-Fetch-Dest': 'document',
    'Sec-Fetch-User': '?1',
    'Upgrade-Insecure-Requests': '1',
  },
};
const NULL_REFUSAL = {
  detail:
    'Origin "null" (a sandboxed frame, a file:// page or a redirect) may not change anything; no setting allows it. Serve the page from an http(s) origin and allow that with --allowed-origins.',
};

describe('DNS rebinding: a page whose name now points at 127.0.0.1', () => {
  it('cannot read captures with a same-origin GET, which carries neither Origin nor Sec-Fetch-* (as Chromium sends it)', async ({ app, send, evil }) => {
    await send('victim@example.com');
    const res = await raw(`${app.url}/api/messages`, { headers: { Host: evil(), ...CHROMIUM_HEADERS, Referer: `http://${evil()}/` } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual(hostRefusal(evil(), 'evil.example'));
    expect(res.text).not.toContain('victim@example.com');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('is refused with a matching Origin too, and on every surface: /v1, the UI, /metrics, the live push', async ({ app, total, evil }) => {
    const origin = `http://${evil()}`;
    const reset = await raw(`${app.url}/api/reset`, { method: 'POST', headers: { Host: evil(), Origin: origin, 'Content-Type': 'text/plain' }, body: '{}' });
    expect([reset.status, reset.body]).toEqual([403, hostRefusal(evil(), 'evil.example')]);
    for (const path of ['/v1/email/list/', '/', '/metrics', '/api/openapi.json', '/nowhere']) {
      const res = await raw(app.url + path, { headers: { Host: evil(), Authorization: 'Api-Key test-key', 'Sec-Fetch-Site': 'same-origin' } });
      expect([path, res.status, res.body]).toEqual([path, 403, hostRefusal(evil(), 'evil.example')]);
    }
    const ws = await tryUpgrade(app.wsUrl, { Host: evil() }, origin);
    expect(ws).toMatchObject({ opened: false, status: 403, frames: [] });
    expect(ws.opened === false && JSON.parse(ws.text)).toEqual(hostRefusal(evil(), 'evil.example'));
    expect(await total()).toBeGreaterThan(0);
  });

  it('names the host without its port, and a trailing dot does not get past', async ({ app }) => {
    const res = await raw(`${app.url}/api/messages`, { headers: { Host: 'evil.example.:80' } });
    expect([res.status, res.body]).toEqual([403, hostRefusal('evil.example.:80', 'evil.example')]);
    expect((await raw(`${app.url}/api/messages`, { headers: { Host: 'localhost.evil.example' } })).status).toBe(403);
    expect((await raw(`${app.url}/api/messages`, { headers: { Host: '127.0.0.1.nip.io' } })).status).toBe(403);
  });
});

describe('cross-site requests from a page on another origin', () => {
  it('a form post (urlencoded) to /api/reset is refused and wipes nothing', async ({ app, send, total }) => {
    await send('kept@example.com');
    const before = await total();
    const res = await raw(`${app.url}/api/reset`, {
      method: 'POST',
      headers: {
        ...CHROMIUM_HEADERS,
        Origin: 'https://evil.example',
        'Sec-Fetch-Site': 'cross-site',
        'Sec-Fetch-Mode': 'navigate',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'restore_fixtures=true',
    });
    expect([res.status, res.body]).toEqual([403, originRefusal('https://evil.example')]);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await total()).toBe(before);
  });

  it('a form post moving the clock a month (duration=30d) is refused and the clock stays', async ({ app, clock }) => {
    const before = await clock();
    const res = await raw(`${app.url}/api/clock/advance`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'duration=30d',
    });
    expect([res.status, res.body]).toEqual([403, originRefusal('https://evil.example')]);
    expect((await clock()).offset_ms).toBe(before.offset_ms);
  });

  it('text/plain and multipart posts, a DELETE and a PATCH are refused the same way', async ({ app, total }) => {
    const before = await total();
    const form = new FormData();
    form.append('duration', '30d');
    const multipart = new Request('http://x/', { method: 'POST', body: form });
    const attempts = [
      raw(`${app.url}/api/reset`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain;charset=UTF-8' },
        body: '{"restore_fixtures": false}',
      }),
      raw(`${app.url}/api/clock/advance`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': multipart.headers.get('content-type')! },
        body: Buffer.from(await multipart.arrayBuffer()),
      }),
      raw(`${app.url}/api/messages`, { method: 'DELETE', headers: { Origin: 'https://evil.example' } }),
      raw(`${app.url}/v1/email/send/`, {
        method: 'POST',
        headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' },
        body: 'recipient=a@example.com',
      }),
    ];
    for (const res of await Promise.all(attempts)) expect([res.status, res.body]).toEqual([403, originRefusal('https://evil.example')]);
    expect(await total()).toBe(before);
  });

  it('Origin: null (a sandboxed frame or a file:// page) never changes state, whatever the settings', async ({ app }) => {
    const res = await raw(`${app.url}/api/reset`, { method: 'POST', headers: { Origin: 'null', 'Content-Type': 'text/plain' }, body: '{}' });
    expect([res.status, res.body]).toEqual([403, NULL_REFUSAL]);
    const anyOrigin = browserPolicy({ origins: ['*'] });
    expect(checkBrowserRequest({ method: 'POST', host: 'localhost', origin: 'null' }, anyOrigin)).toEqual({
      status: 403,
      header: 'Origin',
      detail: NULL_REFUSAL.detail,
    });
    expect(checkBrowserRequest({ method: 'GET', host: 'localhost', origin: 'null', upgrade: true }, anyOrigin)?.header).toBe('Origin');
  });

  it('a state change that says it is cross-site without an Origin is refused', async ({ app }) => {
    const res = await raw(`${app.url}/api/clock/advance?duration=1d`, { method: 'POST', headers: { 'Sec-Fetch-Site': 'cross-site' } });
    expect([res.status, res.body]).toEqual([
      403,
      {
        detail:
          'Sec-Fetch-Site "cross-site" without an Origin header may not change anything; no setting allows it. Send the request from a page on an allowed origin (--allowed-origins), which sends its Origin.',
      },
    ]);
  });

  it('a CORS preflight from another origin is refused, and a read from it gets no Access-Control-Allow-Origin', async ({ app }) => {
    const preflight = await raw(`${app.url}/api/reset`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    expect([preflight.status, preflight.body]).toEqual([403, originRefusal('https://evil.example')]);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const read = await raw(`${app.url}/api/messages`, {
      headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    });
    expect([read.status, read.body]).toEqual([403, readRefusal('https://evil.example')]);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    // Without fetch metadata (a browser on a plain-HTTP LAN name) the read is answered, but with no CORS the page cannot see it.
    const lan = await raw(`${app.url}/api/messages`, { headers: { Origin: 'https://evil.example' } });
    expect([lan.status, lan.headers['access-control-allow-origin'], lan.headers.vary]).toEqual([200, undefined, 'Origin']);
  });

  it('the live push refuses a foreign Origin with a 403 before any frame', async ({ app }) => {
    const ws = await tryUpgrade(app.wsUrl, {}, 'https://evil.example');
    expect(ws).toMatchObject({ opened: false, status: 403, frames: [] });
    expect(ws.opened === false && JSON.parse(ws.text)).toEqual({
      detail:
        'Origin "https://evil.example" may not open the live push here. To allow pages from it, start Pigeonhole with --allowed-origins https://evil.example (or PIGEONHOLE_ALLOWED_ORIGINS=https://evil.example).',
    });
    const fromNull = await tryUpgrade(app.wsUrl, {}, 'null');
    expect(fromNull).toMatchObject({ opened: false, status: 403, frames: [] });
    expect(app.realtime.clients).toBe(0);
  });
});

describe('reads from a page on another site (fetch metadata, resource isolation)', () => {
  it('an image, a no-cors fetch, a frame or a link to anything that reads state is refused at once, whatever matches', async ({ app, send }) => {
    await send('reset@example.com');
    // A wait that ran would hold the answer for its 120 s: answering at all says it never ran.
    const paths = [
      '/api/messages/wait?timeout=120000&q=reset@example.com',
      '/api/messages/wait?timeout=120000&q=nobody-at-all',
      '/api/messages/latest?q=reset@example.com',
      '/api/messages/latest?q=nobody-at-all',
      '/api/messages/search?q=reset',
      '/api/messages',
      '/api/requests',
      '/api/openapi.json',
      '/metrics',
      '/mcp',
      '/assets/index.js',
      '/nowhere',
    ];
    for (const [kind, headers] of Object.entries(CROSS_SITE)) {
      for (const path of paths) {
        const res = await raw(app.url + path, { headers: { ...CHROMIUM_HEADERS, ...headers } });
        expect([kind, path, res.status, res.text]).toEqual([kind, path, 403, JSON.stringify(CROSS_SITE_READ)]);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
  });

  it('a link from another site still opens the inbox page; /v1 and the health probes keep their own rules', async ({ app }) => {
    const page = await raw(`${app.url}/`, { headers: { ...CHROMIUM_HEADERS, ...CROSS_SITE.link } });
    expect([page.status, page.headers['content-type']]).toEqual([200, 'text/html; charset=utf-8']);
    const framed = await raw(`${app.url}/`, { headers: { ...CHROMIUM_HEADERS, ...CROSS_SITE.iframe } });
    expect([framed.status, framed.body]).toEqual([403, CROSS_SITE_READ]);
    const v1 = await raw(`${app.url}/v1/email/list/`, { headers: { ...CHROMIUM_HEADERS, ...CROSS_SITE.image } });
    expect([v1.status, v1.body]).toEqual([401, { detail: 'Authentication credentials were not provided.' }]);
    for (const p of ['/livez', '/readyz']) expect((await raw(app.url + p, { headers: CROSS_SITE.noCorsFetch })).status).toBe(200);
  });

  it('serves reads with no fetch metadata, same-origin, same-site and none, and cross-site ones from an allowed Origin', async ({ app, team }) => {
    for (const site of [undefined, 'same-origin', 'same-site', 'none']) {
      const headers: Record<string, string> =
        site === undefined ? {} : { ...CHROMIUM_HEADERS, 'Sec-Fetch-Site': site, 'Sec-Fetch-Mode': 'no-cors', 'Sec-Fetch-Dest': 'image' };
      for (const path of ['/api/messages/latest', '/metrics', '/api/openapi.json']) {
        expect([site, path, (await raw(app.url + path, { headers })).status]).toEqual([site, path, 200]);
      }
    }
    const local = await raw(`${app.url}/api/messages/latest`, {
      headers: { Origin: 'http://127.0.0.2:3000', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    });
    expect([local.status, local.headers['access-control-allow-origin']]).toEqual([200, 'http://127.0.0.2:3000']);
    const allowed = await raw(`${team.url}/api/messages`, {
      headers: { Origin: 'https://tests.example', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    });
    expect([allowed.status, allowed.headers['access-control-allow-origin']]).toEqual([200, 'https://tests.example']);
    const other = await raw(`${team.url}/api/messages`, {
      headers: { Origin: 'https://other.example', 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Mode': 'cors', 'Sec-Fetch-Dest': 'empty' },
    });
    expect([other.status, other.body]).toEqual([403, readRefusal('https://other.example')]);
  });

  it('every /api answer, refusals included, says nosniff', async ({ app }) => {
    for (const headers of [{}, CROSS_SITE.image]) {
      for (const path of ['/api/messages', '/api/nowhere', '/api/messages/latest?q=nobody-at-all']) {
        expect([path, (await raw(app.url + path, { headers })).headers['x-content-type-options']]).toEqual([path, 'nosniff']);
      }
    }
  });
});

describe('clients that are not a hostile page are served as before', () => {
  it('a client with no Origin (curl, an SDK, a test suite) reads, sends, resets and opens the live push', async ({ app, send }) => {
    expect((await send('sdk@example.com')).status).toBe(200);
    expect((await raw(`${app.url}/api/messages`)).status).toBe(200);
    const ws = await tryUpgrade(app.wsUrl);
    expect(ws.opened && JSON.parse(ws.frames[0]!).type).toBe('hello');
    expect((await raw(`${app.url}/api/clock/reset`, { method: 'POST' })).status).toBe(200);
  });

  it('a server-side client by localhost, a *.localhost name or an IP address', async ({ app, port }) => {
    for (const host of [`localhost:${port}`, `[::1]:${port}`, '192.168.1.20:8025', 'mail.localhost', 'app.mail.localhost.']) {
      const res = await raw(`${app.url}/api/messages?limit=1`, { headers: { Host: host, 'User-Agent': 'python-requests/2.32' } });
      expect([host, res.status]).toEqual([host, 200]);
    }
  });

  it('on an address other machines reach (a container), also by a compose service name, host.docker.internal, *.local or *.home.arpa', async ({ apps }) => {
    const container = await apps.start({ access: { policy: browserPolicy({ listenHost: '0.0.0.0' }), login: null } });
    for (const host of ['pigeonhole:8025', 'host.docker.internal:8025', 'pigeonhole.default.svc.cluster.local:8025', 'sandbox.home.arpa']) {
      const res = await raw(`${container.url}/api/messages?limit=1`, { headers: { Host: host, 'User-Agent': 'python-requests/2.32' } });
      expect([host, res.status]).toEqual([host, 200]);
    }
    const sent = await raw(`${container.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Host: 'pigeonhole:8025', Authorization: 'Api-Key test-key', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'recipient=compose@example.com&subject=Hi&body=Hello',
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ id: expect.any(String) });
    const ws = await tryUpgrade(container.wsUrl, { Host: 'pigeonhole:8025' });
    expect(ws.opened).toBe(true);
    // A public name is still refused there.
    expect((await raw(`${container.url}/api/messages`, { headers: { Host: 'evil.example:8025' } })).status).toBe(403);
  });

  it('the inbox page itself: same-origin requests on 127.0.0.1 and localhost change state and open the live push', async ({ app, port }) => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const origin = `http://${host}`;
      const res = await raw(`${app.url}/api/clock/reset`, {
        method: 'POST',
        headers: { Host: host, Origin: origin, 'Sec-Fetch-Site': 'same-origin', ...CHROMIUM_HEADERS },
      });
      expect([host, res.status]).toEqual([host, 200]);
      expect((await tryUpgrade(app.wsUrl, { Host: host }, origin)).opened).toBe(true);
    }
  });

  it("the developer's own app on localhost (any port) may use the sandbox API across origins, with CORS", async ({ app }) => {
    const origin = 'http://localhost:3000';
    const read = await raw(`${app.url}/api/messages?limit=1`, { headers: { Origin: origin, 'Sec-Fetch-Site': 'same-site' } });
    expect(read.status).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBe(origin);
    expect(read.headers.vary).toBe('Origin');
    const preflight = await raw(`${app.url}/api/reset`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,authorization' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'GET, HEAD, POST, PATCH, DELETE',
      'access-control-allow-headers': 'content-type,authorization',
      'access-control-max-age': '600',
    });
    const reset = await raw(`${app.url}/api/clock/reset`, { method: 'POST', headers: { Origin: 'http://127.0.0.1:5173' } });
    expect([reset.status, reset.headers['access-control-allow-origin']]).toEqual([200, 'http://127.0.0.1:5173']);
    expect((await tryUpgrade(app.wsUrl, {}, 'http://localhost:3000')).opened).toBe(true);
  });

  it('/v1 answers OPTIONS with its allowed methods as before, and never with CORS', async ({ app }) => {
    for (const headers of [{}, { Origin: 'http://localhost:3000', 'Access-Control-Request-Method': 'POST' }] as Record<string, string>[]) {
      const res = await raw(`${app.url}/v1/email/send/`, { method: 'OPTIONS', headers: { Authorization: 'Api-Key test-key', ...headers } });
      expect(res.status).toBe(200);
      expect(res.headers.allow).toBe('POST, OPTIONS');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('/livez and /readyz answer any Host (they tell nothing about the mail)', async ({ app, evil }) => {
    for (const path of ['/livez', '/readyz']) expect((await raw(app.url + path, { headers: { Host: evil() } })).status).toBe(200);
  });
});

describe('--allowed-hosts and --allowed-origins', () => {
  it('serves the named hosts (a leading dot: the domain and its subdomains), still not others', async ({ team }) => {
    for (const [host, status] of [
      ['mail.team.example', 200],
      ['MAIL.team.example:8025', 200],
      ['dev.example', 200],
      ['box.dev.example:80', 200],
      ['team.example', 403],
      ['evil.example', 403],
    ] as const) {
      expect([host, (await raw(`${team.url}/api/messages`, { headers: { Host: host } })).status]).toEqual([host, status]);
    }
    const sameOrigin = await raw(`${team.url}/api/clock/reset`, {
      method: 'POST',
      headers: { Host: 'mail.team.example:8025', Origin: 'http://mail.team.example:8025' },
    });
    expect(sameOrigin.status).toBe(200);
  });

  it('lets an allowed origin change state, read with CORS and open the live push; other origins stay refused', async ({ team }) => {
    const origin = 'https://tests.example';
    const reset = await raw(`${team.url}/api/reset`, { method: 'POST', headers: { Origin: origin, 'Content-Type': 'application/json' }, body: '{}' });
    expect([reset.status, reset.headers['access-control-allow-origin']]).toEqual([200, origin]);
    const preflight = await raw(`${team.url}/api/messages/x`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'PATCH', 'Access-Control-Request-Private-Network': 'true' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-private-network']).toBe('true');
    expect((await tryUpgrade(team.wsUrl, {}, origin)).opened).toBe(true);
    expect((await raw(`${team.url}/api/reset`, { method: 'POST', headers: { Origin: 'https://tests.example.evil.example' } })).status).toBe(403);
  });

  it("'*' opts out: any host, and any origin but null", async () => {
    const open = browserPolicy({ hosts: ['*'], origins: ['*'] });
    expect(checkBrowserRequest({ method: 'POST', host: 'evil.example', origin: 'https://evil.example' }, open)).toBeNull();
    expect(checkBrowserRequest({ method: 'POST', host: 'evil.example', origin: 'null' }, open)?.header).toBe('Origin');
  });
});

describe('hostName', () => {
  it('reads names, IPv4 and IPv6 with or without a port; refuses what is not a host', () => {
    expect(['Example.COM:80', 'example.com.', '127.0.0.1:8025', '[::1]:8025', '[::1]', 'a:b:c', 'bad/host', '[zz]:1'].map(hostName)).toEqual([
      'example.com',
      'example.com',
      '127.0.0.1',
      '::1',
      '::1',
      null,
      null,
      null,
    ]);
  });
});
