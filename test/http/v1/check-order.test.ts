import Router from '@koa/router';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import type { Directory } from '../../../server/domain/directory/directory.ts';
import { endpoint, mountV1 } from '../../../server/http/v1/endpoints.ts';
import { ApiKeyThrottle } from '../../../server/http/v1/key-throttle.ts';
import { api, read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

// The mount validates a /v1 row's query and body before its handler (server/http/v1/endpoints.ts),
// in the service's order of checks (docs/api-contract.md §1): authentication, the method, the
// body, fault injection, then the fields. A body that fails its fields is still refused first by
// everything before them.
describe('/v1 order of checks around field validation', () => {
  it('refuses a missing key, a wrong method and a malformed body before the fields', async ({ app, v1 }) => {
    const anonymous = await read(await api(app.url, null).post('/v1/email/send/', {}));
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).toBe('{"detail":"Authentication credentials were not provided."}');
    const method = await read(await v1.request('PUT', '/v1/email/send/'));
    expect(method.status).toBe(405);
    expect(method.text).toBe('{"detail":"Method \\"PUT\\" not allowed."}');
    const malformed = await read(
      await fetch(`${app.url}/v1/email/send/`, {
        method: 'POST',
        headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
        body: '{',
      }),
    );
    expect(malformed.status).toBe(400);
    expect(malformed.text).toMatch(/^\{"detail":"JSON parse error - /);
  });

  it('lets a fault rule answer before the fields are checked, then checks them', async ({ app, v1 }) => {
    const rule = { id: 'order-503', target: 'http', match: { route: '/v1/flows/subscribe/' }, action: { type: 'status', status: 503 }, times: 1 };
    const added = await fetch(`${app.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rule) });
    expect(added.status).toBe(201);
    const faulted = await read(await v1.post('/v1/flows/subscribe/', { email: 'not-an-address' }));
    expect(faulted.status).toBe(503);
    expect(faulted.text).toBe('{"detail":"Service temporarily unavailable, try again later."}');
    const checked = await read(await v1.post('/v1/flows/subscribe/', { email: 'not-an-address' }));
    expect(checked.status).toBe(400);
    expect(checked.text).toBe('{"flow_trigger":["This field is required."],"email":["Enter a valid email address."]}');
  });

  it('hands the handler the query as the framework reads it: the last value, blank as absent', async ({ v1 }) => {
    const last = await read(await v1.get('/v1/email/list/?recipient=first%40example.com&recipient=not-an-address'));
    expect(last.status).toBe(400);
    expect(last.text).toBe('{"recipient":"Enter a valid email address."}');
    const blank = await read(await v1.get('/v1/email/list/?recipient=%20%20'));
    expect(blank.status).toBe(200);
  });

  it('refuses, when mounted, a row whose query or body schema is not an object schema', () => {
    const row = endpoint({
      method: 'POST',
      path: '/v1/odd/',
      name: 'Odd',
      body: z.string() as unknown as z.ZodObject,
      doc: { summary: 'Odd', tags: [], responses: {} },
      handle: () => undefined,
    });
    const deps = { directory: {} as Directory, keys: new ApiKeyThrottle(), parseBody: async () => undefined };
    expect(() => mountV1(new Router(), [[row]], deps)).toThrow('POST /v1/odd/: a /v1 query or body schema is a z.object');
  });
});
