import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('apiKey', 'bulk-key');

/** On the file's app: `send(recipient, subject?)` a /v1 send, its id; `get(path)` a GET, read; `post(path, body)` a JSON POST, read. */
const it = test
  .extend(
    'send',
    { scope: 'file' },
    ({ v1 }) =>
      async (recipient: string, subject = 'Hello') =>
        ((await (await v1.post('/v1/email/send/', { recipient, subject, body: '<p>Hi</p>' })).json()) as { id: string }).id,
  )
  .extend(
    'get',
    { scope: 'file' },
    ({ app }) =>
      async (path: string) =>
        read(await fetch(app.url + path)),
  )
  .extend(
    'post',
    { scope: 'file' },
    ({ app }) =>
      async (path: string, body: unknown) =>
        read(await fetch(app.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })),
  );

type Summary = { id: string; namespace: string | null; recipient: string; to: string[]; redirected: boolean; status: string };

describe('namespaces: a +tag of an address', () => {
  it('puts a /v1 send in the namespace of its recipient, lower-cased, and every list and lookup filters by it', async ({ send, get }) => {
    const id = await send('ada+T7F3K@example.com', 'Tagged');
    await send('ada@example.com', 'Untagged');
    await send('ada+other@example.com', 'Other');
    const one = (await get(`/api/messages/${id}`)).body as Summary;
    expect(one.namespace).toBe('t7f3k');
    const list = (await get('/api/messages?namespace=t7F3k')).body as { total: number; messages: Summary[] };
    expect(list.total).toBe(1);
    expect(list.messages.map((m) => [m.id, m.namespace])).toEqual([[id, 't7f3k']]);
    expect(((await get('/api/messages/latest?namespace=T7F3K')).body as Summary).id).toBe(id);
    expect(((await get('/api/messages/search?namespace=t7f3k')).body as { messages: Summary[] }).messages.map((m) => m.id)).toEqual([id]);
    expect(((await get('/api/messages/wait?namespace=t7f3k&timeout=0')).body as Summary).id).toBe(id);
    const untagged = ((await get('/api/messages?q=untagged')).body as { messages: Summary[] }).messages;
    expect(untagged.map((m) => m.namespace)).toEqual([null]);
    expect(await get('/api/messages/latest?namespace=nobody-here')).toMatchObject({ status: 404, body: { detail: 'No message matches the filters.' } });
  });

  it('refuses a namespace that no tag can be, with the usual 400', async ({ get }) => {
    for (const path of ['/api/messages?namespace=a.b', '/api/messages/latest?namespace=a%2Bb', `/api/messages/search?namespace=${'x'.repeat(65)}`]) {
      const res = await get(path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'namespace must be 1 to 64 letters, digits, "-" or "_".' });
    }
  });

  it('takes the first tagged address in To, then Cc, then Bcc, over SMTP; a malformed tag tags nothing', async ({ smtp, get }) => {
    const cases: [Record<string, string | string[]>, string | null][] = [
      [{ to: 'a+smtp-to@example.com', cc: 'b+smtp-cc@example.com' }, 'smtp-to'],
      [{ to: 'plain@example.com', cc: ['c@example.com', 'd+Smtp_Cc@example.com'], bcc: 'e+smtp-bcc@example.com' }, 'smtp_cc'],
      [{ to: 'plain@example.com', bcc: 'e+smtp-bcc@example.com' }, 'smtp-bcc'],
      [{ to: ['a+b+c@example.com', 'a+b.c@example.com', 'a+@example.com'] }, null],
      [{ to: ['a+b+c@example.com', 'x@example.com', 'z+late@example.com'] }, 'late'],
    ];
    for (const [addresses, namespace] of cases) {
      const id = await smtp.send({ from: 'app@example.com', ...addresses, subject: 'SMTP', text: 'Hi' });
      expect([addresses, ((await get(`/api/messages/${id}`)).body as Summary).namespace]).toEqual([addresses, namespace]);
    }
  });

  it('reads a quoted local part without its quotes, whichever way it came: /v1, a To header, an envelope recipient', async ({ app, send, get }) => {
    const { rawSmtp, capturedId } = await import('../../support/smtp.ts');
    const namespaceOf = async (id: string) => ((await get(`/api/messages/${id}`)).body as Summary).namespace;
    expect(await namespaceOf(await send('"a+t7"@example.com'))).toBe('t7');
    expect(await namespaceOf(await send('"a+b.c"@example.com'))).toBe(null);
    for (const [rcpt, to, namespace] of [
      ['<x@example.com>', '"a+t8"@example.com', 't8'],
      ['<"a+t9"@example.com>', 'x@example.com', 't9'],
    ] as const) {
      const client = await rawSmtp(app.smtpPort);
      await client.command('EHLO test');
      await client.command('MAIL FROM:<f@example.com>');
      expect(await client.command(`RCPT TO:${rcpt}`)).toBe('250 Accepted');
      await client.command('DATA');
      const id = capturedId(await client.command(`From: f@example.com\r\nTo: ${to}\r\nSubject: Quoted\r\n\r\nbody\r\n.`));
      await client.close();
      await expect.poll(() => namespaceOf(id)).toBe(namespace);
    }
  });

  it('keeps the original namespace through a Development Mode redirect', async ({ app, get }) => {
    const dev = api(app.url, 'dev-key');
    const { id } = (await read(await dev.post('/v1/email/send/', { recipient: 'ada+devns@example.com', subject: 'Dev', body: 'x' }))).body as { id: string };
    const capture = (await get(`/api/messages/${id}`)).body as Summary;
    expect(capture).toMatchObject({ redirected: true, to: ['dev-inbox@example.com'], namespace: 'devns' });
    expect(((await get('/api/messages?namespace=devns&redirected=true')).body as { total: number }).total).toBe(1);
  });

  it('gives a flow email the namespace of its recipient', async ({ v1, get }) => {
    const subscribed = await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'grace+flowns@example.com', first_name: 'Grace' });
    expect(subscribed.status).toBe(201);
    const capture = (await get('/api/messages/wait?namespace=flowns&timeout=5000')).body as Summary & { source: string; subject: string };
    expect(capture).toMatchObject({ source: 'flow', namespace: 'flowns', subject: 'Welcome to Acme, Grace!' });
  });

  it('counts the SES simulator label as a tag: bounce+<tag>@ bounces in that namespace', async ({ send, get }) => {
    const id = await send('bounce+sesns@simulator.amazonses.com', 'Bounce');
    expect((await get(`/api/messages/${id}`)).body).toMatchObject({ namespace: 'sesns', status: 'bounced' });
  });

  it('answers a wait as soon as a capture of the namespace arrives, and not for another namespace', async ({ send, get }) => {
    const waiting = get('/api/messages/wait?namespace=arrives&timeout=10000');
    await send('ada+elsewhere@example.com', 'Not this one');
    const id = await send('ada+arrives@example.com', 'This one');
    const res = await waiting;
    expect([res.status, (res.body as Summary).id]).toEqual([200, id]);
  });

  it('carries the namespace in the live-push frames', async ({ send, post, events }) => {
    const id = await send('ada+pushed@example.com', 'Pushed');
    const created = await events.next('message.created');
    expect(created.data).toMatchObject({ id, namespace: 'pushed' });
    const from = events.frames.length;
    await post('/api/reset', { namespace: 'pushed' });
    expect((await events.next('message.deleted', from)).data).toEqual({ ids: [id] });
    expect((await events.next('sandbox.reset', from)).data).toEqual({
      team: null,
      namespace: 'pushed',
      removed: { subscriptions: 0, messages: 1, recipients: 1, blocks: 0, daily_counters: 0, requests: 0, faults: 0, clock: 0 },
    });
  });
});

describe('POST /api/reset {"namespace"}', () => {
  it("removes that namespace's captures and the records of its addresses, and leaves everything else", async ({ v1, send, get, post }) => {
    await post('/api/reset', {});
    await post('/api/clock/advance', { duration: '1h' });
    await send('ada+gone@example.com', 'Gone 1');
    await send('bob+gone@example.com', 'Gone 3');
    const kept = await send('ada+kept@example.com', 'Kept');
    const plain = await send('ada@example.com', 'Plain');
    await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'sub+gone@example.com' });
    await expect.poll(async () => ((await get('/api/messages?namespace=gone')).body as { total: number }).total).toBe(3);
    await post('/api/blocks', { team: 'acme', email: 'blocked+gone@example.com' });
    await post('/api/blocks', { team: 'acme', email: 'blocked+kept@example.com' });
    await post('/api/faults', { target: 'http', match: { route: '/v1/nothing/' }, action: { type: 'drop' } });
    const requestsBefore = ((await get('/api/requests?limit=1')).body as { total: number }).total;

    const res = await post('/api/reset', { namespace: 'GONE' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      team: null,
      namespace: 'gone',
      restore_fixtures: true,
      removed: { subscriptions: 1, messages: 3, recipients: 3, blocks: 1, daily_counters: 0, requests: 0, faults: 0, clock: 0 },
    });
    expect(((await get('/api/messages?namespace=gone')).body as { total: number }).total).toBe(0);
    const left = ((await get('/api/messages')).body as { messages: Summary[] }).messages.map((m) => m.id);
    expect(left).toContain(kept);
    expect(left).toContain(plain);
    const recipients = ((await get('/api/recipients?limit=500')).body as { recipients: { email: string }[] }).recipients.map((r) => r.email);
    expect(recipients.filter((e) => e.includes('+gone@'))).toEqual([]);
    expect(recipients).toEqual(expect.arrayContaining(['ada+kept@example.com', 'ada@example.com']));
    expect(((await get('/api/blocks?team=acme')).body as { blocks: { email: string }[] }).blocks.map((b) => b.email)).toEqual([
      'blocked@example.com',
      'blocked+kept@example.com',
    ]);
    expect(((await get('/api/subscriptions')).body as { total: number }).total).toBe(0);
    expect((await get('/api/clock')).body).toMatchObject({ offset_ms: 3_600_000, real_time: false });
    expect(((await get('/api/faults')).body as { faults: unknown[] }).faults).toHaveLength(1);
    expect(((await get('/api/requests?limit=1')).body as { total: number }).total).toBeGreaterThanOrEqual(requestsBefore);
    await post('/api/reset', {});
  });

  it("with a team, only that team's captures of the namespace", async ({ send, get, post }) => {
    const ours = await send('ada+both@example.com', 'Acme');
    const res = await post('/api/reset', { namespace: 'both', team: 'globex' });
    expect(res.body).toMatchObject({ team: 'globex', namespace: 'both', removed: { messages: 0, recipients: 0 } });
    expect(((await get('/api/messages?namespace=both')).body as { messages: Summary[] }).messages.map((m) => m.id)).toEqual([ours]);
    expect((await post('/api/reset', { namespace: 'both', team: 'acme' })).body).toMatchObject({ removed: { messages: 1, recipients: 1 } });
  });
});

test('keeps the namespace across a restart, in the index and on the record', async ({ apps }) => {
  const first = await apps.start();
  const { id } = (await read(await api(first.url, 'bulk-key').post('/v1/email/send/', { recipient: 'ada+restart@example.com', subject: 'R', body: 'x' })))
    .body as { id: string };
  await first.close();
  const second = await apps.start({ dataDir: first.dataDir });
  const list = (await read(await fetch(`${second.url}/api/messages?namespace=restart`))).body as { messages: Summary[] };
  expect(list.messages.map((m) => [m.id, m.namespace])).toEqual([[id, 'restart']]);
});
