import { describe, expect } from 'vitest';
import { read } from '../support/app.ts';
import { startObservedApp } from '../support/health-app.ts';
import { test } from '../support/fixtures.ts';

/**
 * `observed`: the app wired as server/main.ts wires it (support/health-app.ts), for the file;
 * `get(path, method?)`: status, body, cache and content type of a request.
 */
const it = test
  .extend('observed', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startObservedApp();
    onCleanup(() => app.destroy());
    return app;
  })
  .extend('get', { scope: 'file' }, ({ observed: app }) => async (path: string, method = 'GET') => {
    const res = await read(await fetch(app.url + path, { method }));
    return { status: res.status, body: res.body, cache: res.headers.get('cache-control'), type: res.headers.get('content-type') };
  });

describe('/livez and /readyz', () => {
  it('/livez answers while the process runs', async ({ observed: app, get }) => {
    expect(await get('/livez')).toEqual({ status: 200, body: { status: 'ok' }, cache: 'no-store', type: 'application/json; charset=utf-8' });
    expect((await fetch(`${app.url}/livez`, { method: 'HEAD' })).status).toBe(200);
  });

  it('/readyz is 200 with every check when storage is open and the listener is up', async ({ get }) => {
    expect(await get('/readyz')).toEqual({
      status: 200,
      body: { status: 'ready', checks: { storage: 'ok', http: 'ok' } },
      cache: 'no-store',
      type: 'application/json; charset=utf-8',
    });
  });

  it('/readyz is 503 naming the check that fails, and ready again once it passes', async ({ observed: app, get }) => {
    let smtpUp = false;
    app.readiness.add('smtp', () => smtpUp);
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'not ready', detail: 'Not ready: smtp down.', checks: { storage: 'ok', http: 'ok', smtp: 'down' } },
    });
    app.readiness.add('broken', () => {
      throw new Error('check failed');
    });
    expect((await get('/readyz')).body).toEqual({
      status: 'not ready',
      detail: 'Not ready: smtp, broken down.',
      checks: { storage: 'ok', http: 'ok', smtp: 'down', broken: 'down' },
    });
    app.readiness.add('broken', () => true);
    smtpUp = true;
    expect(await get('/readyz')).toMatchObject({ status: 200, body: { status: 'ready', checks: { storage: 'ok', http: 'ok', smtp: 'ok', broken: 'ok' } } });
  });

  it('turns 503 for good once shutdown starts, while /livez still answers', async ({ observed: app, get }) => {
    app.readiness.stop();
    expect(await get('/readyz')).toMatchObject({
      status: 503,
      body: { status: 'stopping', detail: 'Shutting down.', checks: { storage: 'ok', http: 'ok', smtp: 'ok', broken: 'ok' } },
    });
    expect((await get('/livez')).status).toBe(200);
  });
});
