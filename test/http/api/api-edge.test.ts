import { describe, expect } from 'vitest';
import { routeTables } from '../../../server/app.ts';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

/** The sandbox API's one edge: the same body parser, the same error shape, the same rule for repeated parameters on every route. */

const it = test.extend(
  'call',
  { scope: 'file' },
  ({ app }) =>
    async (method: string, path: string, body?: string, type = 'application/json') =>
      read(await fetch(app.url + path, { method, headers: body === undefined ? {} : { 'Content-Type': type }, body })),
);

describe('the sandbox API edge', () => {
  it('answers a JSON body that is not an object with a {"detail"} 400 on every route that takes a body', async ({ app, call }) => {
    const withBody = routeTables(app.sandbox, { spamd: null })
      .api.flat()
      .filter((r) => r.body);
    expect(withBody.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'PATCH /api/messages/:id',
        'POST /api/clock/advance',
        'POST /api/clock/set',
        'POST /api/preview',
        'POST /api/reset',
        'DELETE /api/blocks',
      ]),
    );
    for (const route of withBody) {
      const path = route.path.replace(':id', 'X');
      for (const body of ['[true]', '"text"', '5', 'null']) {
        expect(await call(route.method, path, body), `${route.method} ${path} ${body}`).toMatchObject({
          status: 400,
          text: '{"detail":"The body must be a JSON object."}',
        });
      }
    }
  });

  it('keeps the body errors every route shares: malformed JSON, another content type', async ({ call }) => {
    expect(await call('POST', '/api/clock/advance', '{"duration":')).toMatchObject({
      status: 400,
      body: { detail: expect.stringMatching(/^JSON parse error - /) },
    });
    expect(await call('POST', '/api/preview', 'hello', 'text/plain')).toMatchObject({
      status: 415,
      text: '{"detail":"Unsupported media type \\"text/plain\\" in request."}',
    });
  });

  it('reads a repeated query parameter once, with its last value, on every route', async ({ app, call }) => {
    await api(app.url, 'test-key').post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'first@example.com' });
    await api(app.url, 'test-key').post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'second@example.com' });
    const subscriptions = await call('GET', '/api/subscriptions?email=first@example.com&email=second@example.com&status=paused&status=active');
    expect(subscriptions.status).toBe(200);
    expect((subscriptions.body as any).subscriptions.map((s: any) => s.email)).toEqual(['second@example.com']);
    expect(await call('GET', '/api/messages?limit=0&limit=2')).toMatchObject({ status: 200, body: { limit: 2 } });
    expect(await call('GET', '/api/requests?status=teapot&status=4xx')).toMatchObject({ status: 200 });
    expect(await call('GET', '/api/recipients?limit=2&limit=x')).toMatchObject({
      status: 400,
      text: '{"detail":"limit must be a whole number from 1 to 500."}',
    });
  });

  it('reads a repeated form field once, with its last value', async ({ app, call }) => {
    const { id } = (await read(await api(app.url, 'test-key').post('/v1/email/send/', { recipient: 'form@example.com', subject: 's', body: 'b' }))).body as {
      id: string;
    };
    expect(await call('PATCH', `/api/messages/${id}`, 'read=true&read=false', 'application/x-www-form-urlencoded')).toMatchObject({
      status: 200,
      body: { read: false },
    });
    expect(await call('PATCH', `/api/messages/${id}`, 'read=false&read=true', 'application/x-www-form-urlencoded')).toMatchObject({
      status: 200,
      body: { read: true },
    });
  });

  it('refuses a bad value with one sentence that names the field', async ({ call }) => {
    const cases: [string, string, string | undefined, string][] = [
      ['GET', '/api/subscriptions?status=paused', undefined, 'status must be one of active, completed, cancelled.'],
      ['GET', '/api/subscriptions?limit=501', undefined, 'limit must be a whole number from 1 to 500.'],
      ['GET', '/api/blocks?team=nope', undefined, 'team "nope" is not a configured team.'],
      ['GET', '/api/requests?method=brew', undefined, 'method must be one of GET, POST, DELETE, PUT, PATCH, HEAD, OPTIONS.'],
      ['GET', '/api/messages/search?sender=nobody', undefined, 'sender "nobody" is neither a sender id nor an API key.'],
      ['POST', '/api/reset', '{"restore_fixtures": "no"}', 'restore_fixtures must be true or false.'],
      ['POST', '/api/reset', '{"team": 5}', 'team must be a string.'],
      ['POST', '/api/blocks', '{"team": "acme", "email": "nope"}', 'email must be a valid email address.'],
      ['POST', '/api/preview', '{"sender": "acme-main"}', 'html must be a string.'],
      ['POST', '/api/clock/advance', '{}', 'duration is required: a duration like "30s", "15m", "2h", "1d" or "1d12h".'],
      ['POST', '/api/clock/set', '{"at": "tomorrow"}', '"tomorrow" is not an ISO 8601 instant such as "2026-02-17T12:00:00Z".'],
      ['POST', '/api/check', '{"html": "<p>x</p>", "platform": "fax"}', 'platform must be a comma-separated list of desktop, web, mobile.'],
      ['POST', '/api/faults', '{"target": "smtp", "action": {"type": "status", "status": 503}}', 'action.type: status is for http rules (use smtp_reply)'],
    ];
    for (const [method, path, body, message] of cases) {
      expect(await call(method, path, body), `${method} ${path} ${body ?? ''}`).toMatchObject({ status: 400, text: JSON.stringify({ detail: message }) });
    }
  });

  it('takes the clock, the link check and the unblock parameters from the query string when the body has none', async ({ call }) => {
    const clock = await call('POST', '/api/clock/advance?duration=1m');
    expect(clock.status).toBe(200);
    expect((clock.body as any).offset_ms).toBe(60_000);
    expect(await call('POST', '/api/clock/advance?duration=1m', '{"duration": "soon"}')).toMatchObject({
      status: 400,
      text: '{"detail":"\\"soon\\" is not a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}',
    });
    await call('POST', '/api/blocks', '{"team": "acme", "email": "q@example.com"}');
    expect(await call('DELETE', '/api/blocks?team=acme&email=q@example.com')).toMatchObject({ status: 204 });
    expect(await call('POST', '/api/clock/reset')).toMatchObject({ status: 200, body: { real_time: true } });
  });
});
