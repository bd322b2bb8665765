import { describe, expect } from 'vitest';
import { ExpectationFailed, PigeonholeClient, TooFewMessages, TooManyMessages, type Capture } from '../../../client/pigeonhole-client.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('apiKey', 'bulk-key');

/**
 * On the file's app: `send(recipient, subject)` a /v1 send, its id; `get(path)` a GET, read;
 * `capture(namespace, subject)` the capture as wait and expect list it; `expecting()` resolves
 * once one more expect is listening (it alone listens for deletions besides the live push).
 */
const it = test
  .extend(
    'send',
    { scope: 'file' },
    ({ v1 }) =>
      async (recipient: string, subject = 'Hello') =>
        ((await (await v1.post('/v1/email/send/', { recipient, subject, body: '<p>Your code is 482913</p>' })).json()) as { id: string }).id,
  )
  .extend(
    'get',
    { scope: 'file' },
    ({ app }) =>
      async (path: string) =>
        read(await fetch(app.url + path)),
  )
  .extend(
    'capture',
    { scope: 'file' },
    ({ app }) =>
      async (namespace: string, subject: string) =>
        (await read(await fetch(`${app.url}/api/messages/latest?namespace=${namespace}&subject=${encodeURIComponent(subject)}`))).body as Capture,
  )
  .extend('expecting', { scope: 'file' }, ({ app }) => {
    const listeners = () => app.sandbox.events.listenerCount('message.deleted');
    return () => {
      const before = listeners();
      return () => expect.poll(() => listeners()).toBeGreaterThan(before);
    };
  });

describe('GET /api/messages/expect', () => {
  it('answers 200 with the matches, newest first, when exactly count are stored', async ({ send, get, capture }) => {
    await send('ada+exact@example.com', 'One');
    await send('bob+exact@example.com', 'Two');
    await send('ada+other@example.com', 'Elsewhere');
    const res = await get('/api/messages/expect?namespace=exact&count=2&within=0');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ count: 2, messages: [await capture('exact', 'Two'), await capture('exact', 'One')] });
    expect((res.body as { messages: Capture[] }).messages[0]).toMatchObject({ codes: ['482913'], namespace: 'exact' });
  });

  it('waits for captures that arrive, through /v1 and SMTP, and counts each once', async ({ send, smtp, get, expecting }) => {
    const listening = expecting();
    const pending = get('/api/messages/expect?namespace=arrive&count=2&within=20000&settle=100');
    await listening();
    await send('ada+arrive@example.com', 'By API');
    await smtp.send({ from: 'app@example.com', to: 'plain@example.com', cc: 'c+ARRIVE@example.com', subject: 'By SMTP', text: 'Hi' });
    const res = await pending;
    expect(res.status).toBe(200);
    expect((res.body as { count: number; messages: Capture[] }).messages.map((m) => [m.subject, m.source])).toEqual([
      ['By SMTP', 'smtp'],
      ['By API', 'api'],
    ]);
  });

  it('answers 409 at once when more than count are stored', async ({ send, get, capture }) => {
    await send('ada+more@example.com', 'First');
    await send('ada+more@example.com', 'Second');
    const res = await get('/api/messages/expect?namespace=more&count=1&within=60000');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: 'Expected 1 message matching the filters; 2 matched.',
      count: 2,
      messages: [await capture('more', 'Second'), await capture('more', 'First')],
    });
  });

  it('answers 409 when one more arrives within the settle time after exactly count matched', async ({ send, get, capture, expecting }) => {
    await send('ada+settle@example.com', 'Enough');
    const listening = expecting();
    // Exactly one is stored: the answer waits out the 10 s settle time, unless another arrives.
    const pending = get('/api/messages/expect?namespace=settle&count=1&within=60000&settle=10000');
    await listening();
    await send('ada+settle@example.com', 'One too many');
    const res = await pending;
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      detail: 'Expected 1 message matching the filters; 2 matched.',
      count: 2,
      messages: [await capture('settle', 'One too many'), await capture('settle', 'Enough')],
    });
  });

  it('answers 408 with what matched when fewer than count arrived by the end of within', async ({ send, get, capture }) => {
    await send('ada+fewer@example.com', 'Only one');
    const res = await get('/api/messages/expect?namespace=fewer&count=2&within=150');
    expect(res.status).toBe(408);
    expect(res.body).toEqual({
      detail: 'Expected 2 messages matching the filters within 150 ms; 1 matched.',
      count: 1,
      messages: [await capture('fewer', 'Only one')],
    });
    const none = await get('/api/messages/expect?namespace=nothing-at-all&count=3&within=0');
    expect([none.status, none.body]).toEqual([408, { detail: 'Expected 3 messages matching the filters within 0 ms; 0 matched.', count: 0, messages: [] }]);
  });

  it('stops counting a match that is deleted while it waits', async ({ app, send, get, expecting }) => {
    const id = await send('ada+deleted@example.com', 'Deleted meanwhile');
    const listening = expecting();
    const pending = get('/api/messages/expect?namespace=deleted&count=1&within=1000&settle=1000');
    await listening();
    expect((await fetch(`${app.url}/api/messages/${id}`, { method: 'DELETE' })).status).toBe(204);
    const res = await pending;
    expect([res.status, res.body]).toEqual([408, { detail: 'Expected 1 message matching the filters within 1000 ms; 0 matched.', count: 0, messages: [] }]);
  });

  it('with count=0: 200 when none matched by the end, 409 at once for one stored or arriving', async ({ send, get, capture, expecting }) => {
    expect(await get('/api/messages/expect?namespace=none&count=0&within=100')).toMatchObject({ status: 200, body: { count: 0, messages: [] } });
    expect((await get('/api/messages/expect?namespace=none&count=0&within=100')).text).toBe('{"count":0,"messages":[]}');
    const listening = expecting();
    const pending = get('/api/messages/expect?namespace=none&count=0&within=60000');
    await listening();
    await send('ada+none@example.com', 'Should not have been sent');
    const arrived = await pending;
    const expected = {
      detail: 'Expected no message matching the filters; 1 matched.',
      count: 1,
      messages: [await capture('none', 'Should not have been sent')],
    };
    expect([arrived.status, arrived.body]).toEqual([409, expected]);
    const stored = await get('/api/messages/expect?namespace=none&count=0&within=60000');
    expect([stored.status, stored.body]).toEqual([409, expected]);
  });

  it('caps the settle time by within: within=0 answers from what is stored', async ({ send, get }) => {
    await send('ada+instant@example.com', 'Now');
    const res = await get('/api/messages/expect?namespace=instant&count=1&within=0&settle=10000');
    expect([res.status, (res.body as { count: number }).count]).toEqual([200, 1]);
  });

  it('refuses bad parameters with the usual 400', async ({ get }) => {
    for (const [query, message] of [
      ['', 'count is required: a whole number from 0 to 1000.'],
      ['count=two', 'count is required: a whole number from 0 to 1000.'],
      ['count=1001', 'count is required: a whole number from 0 to 1000.'],
      ['count=1&within=120001', 'within must be a whole number from 0 to 120000.'],
      ['count=1&settle=-1', 'settle must be a whole number from 0 to 10000.'],
      ['count=1&namespace=a.b', 'namespace must be 1 to 64 letters, digits, "-" or "_".'],
      ['count=1&source=pigeon', 'source must be one of api, smtp, flow.'],
    ]) {
      const res = await get(`/api/messages/expect?${query}`);
      expect([query, res.status, res.body]).toEqual([query, 400, { detail: message }]);
    }
  });
});

describe('the OpenAPI document', () => {
  it('describes expect with its required count, and the namespace filter on every capture lookup', async ({ get }) => {
    const doc = (await get('/api/openapi.json')).body as { paths: Record<string, Record<string, { parameters: { name: string; required: boolean }[] }>> };
    const params = (path: string) => Object.fromEntries(doc.paths[path]!.get!.parameters.map((p) => [p.name, p.required]));
    expect(params('/api/messages/expect')).toMatchObject({ count: true, within: false, settle: false, namespace: false });
    for (const path of ['/api/messages', '/api/messages/wait', '/api/messages/latest', '/api/messages/search'])
      expect(params(path), path).toHaveProperty('namespace', false);
  });
});

describe('the typed client: expect and expectNone', () => {
  it('resolves with the matches, throws TooManyMessages and TooFewMessages carrying the count and the matches', async ({ app, send, capture }) => {
    const ph = new PigeonholeClient({ baseUrl: app.url });
    await send('ada+client@example.com', 'Client one');
    const found = await ph.expect({ namespace: 'client', count: 1, within: 0 });
    expect(found).toEqual({ count: 1, messages: [await capture('client', 'Client one')] });

    const tooFew = await ph.expect({ namespace: 'client', count: 2, within: 50 }).catch((error: unknown) => error);
    expect(tooFew).toBeInstanceOf(TooFewMessages);
    expect(tooFew).toBeInstanceOf(ExpectationFailed);
    expect(tooFew).toMatchObject({ status: 408, expected: 2, count: 1, detail: 'Expected 2 messages matching the filters within 50 ms; 1 matched.' });
    expect((tooFew as TooFewMessages).messages.map((m) => m.subject)).toEqual(['Client one']);

    const tooMany = await ph.expectNone({ namespace: 'client', within: 60000 }).catch((error: unknown) => error);
    expect(tooMany).toBeInstanceOf(TooManyMessages);
    expect(tooMany).toMatchObject({
      status: 409,
      expected: 0,
      count: 1,
      detail: 'Expected no message matching the filters; 1 matched.',
      message: `Expected no message matching the filters; 1 matched. (GET ${app.url}/api/messages/expect?within=60000&namespace=client&count=0)`,
    });

    await expect(ph.expectNone({ namespace: 'client-quiet', within: 50 })).resolves.toBeUndefined();
  });

  it('gives up the wait when its signal aborts, and the server stops listening', async ({ app, expecting }) => {
    const ph = new PigeonholeClient({ baseUrl: app.url });
    const listeners = () => app.sandbox.events.listenerCount('message.created');
    const before = listeners();
    const listening = expecting();
    const stop = new AbortController();
    const pending = ph.expect({ namespace: 'aborted', count: 1, within: 60000, signal: stop.signal }).catch((error: Error) => error.name);
    await listening();
    stop.abort();
    expect(await pending).toBe('AbortError');
    await expect.poll(() => listeners()).toBe(before);
  });
});
