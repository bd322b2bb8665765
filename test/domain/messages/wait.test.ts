import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('apiKey', 'bulk-key');

/** On the file's app: `send(recipient, subject?, body?)` a /v1 send, its id; `get(path)` a GET, read; `listeners()` how many listen for new captures. */
const it = test
  .extend(
    'send',
    { scope: 'file' },
    ({ v1 }) =>
      async (recipient: string, subject = 'Hello', body = '<p>Hi</p>') =>
        ((await (await v1.post('/v1/email/send/', { recipient, subject, body })).json()) as { id: string }).id,
  )
  .extend(
    'get',
    { scope: 'file' },
    ({ app }) =>
      async (path: string) =>
        read(await fetch(app.url + path)),
  )
  .extend(
    'listeners',
    { scope: 'file' },
    ({ app }) =>
      () =>
        app.sandbox.events.listenerCount('message.created'),
  );

describe('GET /api/messages/wait', () => {
  it('answers at once with a capture that is already stored, bodies, links and codes included', async ({ send, get }) => {
    const id = await send(
      'present@example.com',
      'Your code',
      '<p>Your verification code is <b>482913</b>.</p><a href="https://app.example/verify?t=1">Verify</a>',
    );
    const res = await get('/api/messages/wait?recipient=present@example.com&timeout=0');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      recipient: 'present@example.com',
      subject: 'Your code',
      codes: ['482913'],
      links: [{ href: 'https://app.example/verify?t=1', text: 'Verify' }],
      url: `/api/messages/${id}`,
    });
    expect((res.body as { html: string }).html).toContain('482913');
  });

  it('holds until a matching capture arrives and answers before a request made after the send', async ({ send, get, listeners }) => {
    const before = listeners();
    const order: string[] = [];
    const waiting = get('/api/messages/wait?recipient=later@example.com&subject=welcome&timeout=60000').then((res) => {
      order.push('wait');
      return res;
    });
    await expect.poll(() => listeners()).toBeGreaterThan(before);
    await send('other@example.com', 'Welcome');
    await send('later@example.com', 'Not this one');
    expect(order).toEqual([]);
    const id = await send('later@example.com', 'Welcome aboard');
    // A request made after the send that does the same work as the wait's answer (read the
    // capture): the wait was answered when the capture was stored, so it finishes first; a
    // server that polled would not have answered yet.
    await get('/api/messages/latest?recipient=later@example.com').then(() => order.push('probe'));
    const res = await waiting;
    expect(order).toEqual(['wait', 'probe']);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, subject: 'Welcome aboard' });
    expect(listeners()).toBe(before);
  });

  it('times out with a 408 and stops listening', async ({ get, listeners }) => {
    const before = listeners();
    const res = await get('/api/messages/wait?recipient=nobody@example.com&timeout=150');
    expect(res.status).toBe(408);
    expect(res.text).toBe('{"detail":"No message matching the filters arrived within 150 ms."}');
    expect(listeners()).toBe(before);
  });

  it('stops listening when the client goes away', async ({ app, listeners }) => {
    const before = listeners();
    const abort = new AbortController();
    const waiting = fetch(`${app.url}/api/messages/wait?recipient=gone@example.com&timeout=60000`, { signal: abort.signal }).catch((e: Error) => e.name);
    await expect.poll(() => listeners()).toBeGreaterThan(before);
    abort.abort();
    expect(await waiting).toBe('AbortError');
    await expect.poll(() => listeners()).toBe(before);
  });

  it('with after=<id> ignores older captures and waits for the next one', async ({ send, get, listeners }) => {
    const first = await send('cursor@example.com', 'one');
    const before = listeners();
    const waiting = get(`/api/messages/wait?recipient=cursor@example.com&after=${first}&timeout=60000`);
    await expect.poll(() => listeners()).toBeGreaterThan(before);
    const second = await send('cursor@example.com', 'two');
    expect((await waiting).body).toMatchObject({ id: second, subject: 'two' });
  });

  it('with since=<time> ignores captures made before it', async ({ send, get }) => {
    await send('since@example.com', 'old');
    const since = new Date(Date.now() + 1000).toISOString();
    const res = await get(`/api/messages/wait?recipient=since@example.com&since=${since}&timeout=100`);
    expect(res.status).toBe(408);
  });

  it('matches a sender given as an API key or a sender id, and the source', async ({ send, get }) => {
    const id = await send('keyed@example.com', 'keyed');
    for (const sender of ['bulk-key', 'acme-bulk']) {
      const res = await get(`/api/messages/wait?recipient=keyed@example.com&sender=${sender}&source=api&timeout=0`);
      expect(res.body, sender).toMatchObject({ id, sender: 'acme-bulk' });
    }
    expect((await get('/api/messages/wait?recipient=keyed@example.com&sender=test-key&timeout=0')).status).toBe(408);
  });

  it('refuses bad filters and timeouts with a JSON 400', async ({ get }) => {
    const cases: [string, string][] = [
      ['timeout=-1', 'timeout must be a whole number from 0 to 120000.'],
      ['timeout=120001', 'timeout must be a whole number from 0 to 120000.'],
      ['timeout=soon', 'timeout must be a whole number from 0 to 120000.'],
      ['source=fax', 'source must be one of api, smtp, flow.'],
      ['status=lost', 'status must be one of pending, delivered, bounced, complained, failed.'],
      ['since=yesterday', 'since must be an ISO-8601 time, e.g. 2026-02-17T12:00:00Z.'],
      ['after=!!', 'after must be a message id ("!!" is not one).'],
      ['sender=nobody', 'sender "nobody" is neither a sender id nor an API key.'],
      ['team=nope', 'team "nope" is not a configured team.'],
    ];
    for (const [query, message] of cases) {
      const res = await get(`/api/messages/wait?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ detail: message });
    }
  });
});

describe('GET /api/messages/latest and /search', () => {
  it('latest gives the newest match, or a JSON 404', async ({ send, get }) => {
    await send('latest@example.com', 'first');
    const id = await send('latest@example.com', 'second');
    const res = await get('/api/messages/latest?recipient=LATEST@example.com');
    expect(res.body).toMatchObject({ id, subject: 'second', links: [], codes: [] });
    const none = await get('/api/messages/latest?recipient=never@example.com');
    expect(none.status).toBe(404);
    expect(none.text).toBe('{"detail":"No message matches the filters."}');
  });

  it('search pages newest first with the same filters, each with links and codes', async ({ send, get }) => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await send('search@example.com', `Code ${i}`, `<p>Your PIN: ${1000 + i * 1111}</p>`));
    const res = await get('/api/messages/search?recipient=search@example.com&subject=code&limit=2&offset=1');
    const body = res.body as { total: number; offset: number; limit: number; messages: { id: string; codes: string[]; html?: string }[] };
    expect(body).toMatchObject({ total: 3, offset: 1, limit: 2 });
    expect(body.messages.map((m) => m.id)).toEqual([ids[1], ids[0]]);
    expect(body.messages.map((m) => m.codes)).toEqual([['2111'], ['1000']]);
    expect(body.messages[0]).not.toHaveProperty('html');
    expect((await get('/api/messages/search?limit=0')).body).toEqual({ detail: 'limit must be a whole number from 1 to 500.' });
  });

  it('extract answers links and codes for one capture, 404 for an unknown id', async ({ send, get }) => {
    const id = await send(
      'extract@example.com',
      'Sign in',
      '<p>Code: <strong>AB12CD</strong></p><p><a href="https://x.example/a?b=1&amp;c=2">Sign&nbsp;in</a></p>',
    );
    const res = await get(`/api/messages/${id}/extract`);
    expect(res.body).toEqual({ links: [{ href: 'https://x.example/a?b=1&c=2', text: 'Sign in' }], codes: ['AB12CD'] });
    expect((await get('/api/messages/nope/extract')).body).toEqual({ detail: 'Not found.' });
  });
});
