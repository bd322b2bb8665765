import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

/**
 * Every /v1 route × (no key, bad key, flows-off team, good key) (docs/architecture.md, Tests).
 * Each row stands alone: what a good key's call needs (a subscription to end, a capture to show) is made by its
 * own `given` calls, on an address no other row uses, so a row run alone (`vitest -t`) passes.
 */
interface Call {
  method: string;
  path: string;
  body?: Record<string, unknown>;
}
const subscribe = (email: string): Call => ({ method: 'POST', path: '/v1/flows/subscribe/', body: { flow_trigger: 'WELCOME_SIGNUP', email } });
const ROUTES: (Call & { ok: number; given?: Call[] })[] = [
  { method: 'POST', path: '/v1/email/send/', body: { recipient: 'matrix@example.com', subject: 'S', body: '<p>B</p>' }, ok: 200 },
  { method: 'GET', path: '/v1/email/list/', ok: 200 },
  {
    method: 'GET',
    path: '/v1/email/detail/?email=matrix-detail@example.com',
    ok: 200,
    given: [{ method: 'POST', path: '/v1/email/send/', body: { recipient: 'matrix-detail@example.com', subject: 'S', body: '<p>B</p>' } }],
  },
  { method: 'GET', path: '/v1/email/detail/UNKNOWN/', ok: 404 },
  { method: 'GET', path: '/v1/email/delivery/UNKNOWN/', ok: 404 },
  { method: 'GET', path: '/v1/email/delivery/?id=UNKNOWN', ok: 404 },
  { method: 'POST', path: '/v1/flows/subscribe/', body: { flow_trigger: 'WELCOME_SIGNUP', email: 'matrix@example.com' }, ok: 201 },
  {
    method: 'POST',
    path: '/v1/flows/unsubscribe/',
    body: { flow_trigger: 'WELCOME_SIGNUP', email: 'matrix-unsubscribe@example.com' },
    ok: 200,
    given: [subscribe('matrix-unsubscribe@example.com')],
  },
  { method: 'GET', path: '/v1/flows/subscriptions/', ok: 200 },
  {
    method: 'DELETE',
    path: '/v1/flows/subscriptions/?email=matrix-delete@example.com&flow_trigger=WELCOME_SIGNUP',
    ok: 204,
    given: [subscribe('matrix-delete@example.com')],
  },
  { method: 'POST', path: '/v1/recipients/', body: { email: 'matrix2@example.com' }, ok: 201 },
  { method: 'GET', path: '/v1/recipients/', ok: 200 },
  { method: 'POST', path: '/v1/recipients/flags/set/', body: { email: 'matrix@example.com', flags: 'a' }, ok: 200 },
  {
    method: 'POST',
    path: '/v1/recipients/flags/clear/',
    body: { email: 'matrix-clear@example.com', flags: 'a' },
    ok: 200,
    given: [{ method: 'POST', path: '/v1/recipients/flags/set/', body: { email: 'matrix-clear@example.com', flags: 'a' } }],
  },
];

const CREDENTIALS = { detail: 'Authentication credentials were not provided.' };

/** `call(key, route, scheme?)`: the route on the file's app with that key (or none), read. */
const it = test.extend('call', { scope: 'file' }, ({ app }) => (key: string | null, route: Call, scheme = 'Api-Key') => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key !== null) headers.Authorization = `${scheme} ${key}`;
  return fetch(app.url + route.path, {
    method: route.method,
    headers,
    body: route.body ? JSON.stringify(route.body) : undefined,
  }).then(read);
});

for (const route of ROUTES)
  describe(`${route.method} ${route.path}`, () => {
    it('without a key: 401 with WWW-Authenticate', async ({ call }) => {
      const res = await call(null, route);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Api-Key');
      expect(res.text).toBe(JSON.stringify(CREDENTIALS));
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    });

    it('with an unknown key or another scheme: 401', async ({ call }) => {
      expect((await call('no-such-key', route)).status).toBe(401);
      const bearer = await call('test-key', route, 'Bearer');
      expect(bearer.status).toBe(401);
      expect(bearer.body).toEqual(CREDENTIALS);
    });

    it('with a key of a team without flows: 403', async ({ call }) => {
      const res = await call('noflows-key', route);
      expect(res.status).toBe(403);
      expect(res.body).toEqual(CREDENTIALS);
      expect(res.headers.get('www-authenticate')).toBeNull();
    });

    it(`with a good key: ${route.ok}`, async ({ call }) => {
      for (const given of route.given ?? []) expect((await call('test-key', given)).status, `${given.method} ${given.path}`).toBeLessThan(300);
      const res = await call('test-key', route);
      expect(res.status).toBe(route.ok);
    });
  });

describe('routing', () => {
  it('answers a wrong method with 405, the method in the message and an Allow header', async ({ v1 }) => {
    const res = await read(await v1.request('PUT', '/v1/email/send/'));
    expect(res.status).toBe(405);
    expect(res.text).toBe('{"detail":"Method \\"PUT\\" not allowed."}');
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    const get = await read(await v1.get('/v1/email/send/'));
    expect(get.body).toEqual({ detail: 'Method "GET" not allowed.' });
    const del = await read(await v1.request('DELETE', '/v1/recipients/'));
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('POST, GET, HEAD, OPTIONS');
  });

  it('authenticates before it checks the method, as the real framework does', async ({ app }) => {
    const res = await read(await api(app.url, null).request('PUT', '/v1/email/send/'));
    expect(res.status).toBe(401);
  });

  it('answers an unknown /v1 path with a JSON 404, without asking for a key', async ({ app }) => {
    for (const path of ['/v1/', '/v1/nope/', '/v1/email/', '/v1', '/v1/email/send/extra/']) {
      const res = await read(await api(app.url, null).get(path));
      expect(res.status, path).toBe(404);
      expect(res.body, path).toEqual({ detail: 'Not found.' });
    }
  });

  it('redirects GET and HEAD without the trailing slash with 301, keeping the query', async ({ app }) => {
    const res = await api(app.url, null).get('/v1/email/list?recipient=a@example.com&page=1');
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/v1/email/list/?recipient=a@example.com&page=1');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const head = await api(app.url, null).request('HEAD', '/v1/recipients');
    expect(head.status).toBe(301);
    expect(head.headers.get('location')).toBe('/v1/recipients/');
    const param = await api(app.url, null).get('/v1/email/detail/ABC');
    expect(param.headers.get('location')).toBe('/v1/email/detail/ABC/');
  });

  it('answers other methods without the trailing slash with 404', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/email/send', { recipient: 'a@example.com', subject: 's', body: 'b' }));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });

  it('answers HEAD on a GET endpoint and OPTIONS with the allowed methods', async ({ v1 }) => {
    const head = await v1.request('HEAD', '/v1/email/list/');
    expect(head.status).toBe(200);
    const options = await read(await v1.request('OPTIONS', '/v1/flows/subscriptions/'));
    expect(options.status).toBe(200);
    expect(options.headers.get('allow')).toBe('GET, HEAD, DELETE, OPTIONS');
  });

  it('answers unknown paths outside /v1 with a JSON 404 too', async ({ app }) => {
    const res = await read(await fetch(`${app.url}/nothing-here`));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found.' });
  });
});
