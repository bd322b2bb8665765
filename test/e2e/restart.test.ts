import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { api, read } from '../support/app.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { allMessages, inParallel, processTracker, sampleConfig, WIRE_TIME, writeConfig } from '../support/process-helpers.ts';

/**
 * State that must survive a restart of the real server process on the same data directory.
 * The persistence tests stop the first process with SIGKILL, so nothing they check relies on a
 * shutdown flush (docs/architecture.md, Storage: an accepted request is answered only after its data is
 * written); the last two check a SIGTERM stop, idle and in the middle of a burst.
 */

const tracker = processTracker();
afterEach(() => tracker.cleanup());

const LIMITED_KEY = 'limited-key';
const WELCOME = 'Welcome Signup Flow';

interface Sandbox {
  dataDir: string;
  configFile: string;
  template: string;
}

/** A fresh data directory and the sample configuration plus a sender with a daily limit of 3. */
async function sandbox(): Promise<Sandbox> {
  const root = await tracker.tempDir('pigeonhole-restart-');
  const config = await sampleConfig();
  const acme = config.teams.find((t) => t.id === 'acme')!;
  acme.senders.push({ id: 'acme-limited', name: 'Acme limited', email: 'limited@acme.example', apiKey: LIMITED_KEY, dailyLimit: 3 });
  const template = acme.senders.find((s) => s.apiKey === 'test-key')!.accountTemplate as string;
  return { dataDir: path.join(root, 'data'), configFile: await writeConfig(root, config), template };
}

const start = (s: Sandbox) => tracker.spawn({ dataDir: s.dataDir, configFile: s.configFile });

/** Kills the process (SIGKILL) and starts a new one on the same data directory. */
async function restart(s: Sandbox, server: ServerProcess): Promise<ServerProcess> {
  await server.stop('SIGKILL');
  return start(s);
}

const call = async (response: Promise<Response>) => read(await response);
/** Status and parsed body, to compare whole with toEqual. */
const reply = async (response: Promise<Response>) => {
  const { status, body } = await read(await response);
  return { status, body };
};
const capture = (server: ServerProcess, id: string) => call(fetch(`${server.url}/api/messages/${id}`));
const idOf = (res: { status: number; body: unknown; text: string }): string => {
  expect(res.status, res.text).toBe(200);
  return (res.body as { id: string }).id;
};

/** A capture as the sandbox API shows it, without the read mark (the inbox UI may set it). */
function stable(body: unknown): Record<string, unknown> {
  const { read: _read, ...rest } = body as Record<string, unknown>;
  return rest;
}

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4350000000049454e44ae426082',
  'hex',
);

describe('restart of the real server process', () => {
  it('keeps captures: subject, record body, plain body and attachments', async () => {
    const s = await sandbox();
    let server = await start(s);
    let v1 = api(server.url, 'test-key');

    const wrapped = idOf(
      await call(
        v1.post('/v1/email/send/', { recipient: 'ada@example.com', subject: 'Your receipt', body: '<p>Thanks, Ada.</p>', plain_body: 'Thanks, Ada.' }),
      ),
    );
    const form = new FormData();
    form.append('recipient', 'grace@example.com');
    form.append('subject', 'Files for you');
    form.append('body', '<p>Two files attached.</p>');
    form.append('use_account_template', 'false');
    form.append('attachment', new Blob(['Hello, attachment!\n'], { type: 'text/plain' }), 'hello.txt');
    form.append('attachment', new Blob([PNG], { type: 'image/png' }), 'pixel.png');
    const withFiles = idOf(await call(v1.multipart('/v1/email/send/', form)));
    const bulk = idOf(
      await call(api(server.url, 'bulk-key').form('/v1/email/send/', { recipient: 'linus@example.com', subject: 'Bulk note', body: '<i>bulk</i>' })),
    );

    const expectedDetail = {
      [wrapped]: {
        recipient: 'ada@example.com',
        subject: 'Your receipt',
        created_on: expect.stringMatching(WIRE_TIME),
        body: s.template.split('{{content}}').join('<p>Thanks, Ada.</p>'),
      },
      [withFiles]: {
        recipient: 'grace@example.com',
        subject: 'Files for you',
        created_on: expect.stringMatching(WIRE_TIME),
        body: '<p>Two files attached.</p>',
      },
      [bulk]: { recipient: 'linus@example.com', subject: 'Bulk note', created_on: expect.stringMatching(WIRE_TIME), body: '<i>bulk</i>' },
    };
    const detailsBefore: Record<string, unknown> = {};
    const capturesBefore: Record<string, unknown> = {};
    for (const id of [wrapped, withFiles, bulk]) {
      const detail = await call(v1.get(`/v1/email/detail/${id}/`));
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual(expectedDetail[id]);
      detailsBefore[id] = detail.body;
      capturesBefore[id] = stable((await capture(server, id)).body);
    }
    const listBefore = (await call(v1.get('/v1/email/list/'))).body;

    server = await restart(s, server);
    v1 = api(server.url, 'test-key');

    for (const id of [wrapped, withFiles, bulk]) {
      const detail = await call(v1.get(`/v1/email/detail/${id}/`));
      expect(detail.status).toBe(200);
      expect(detail.body).toEqual(detailsBefore[id]);
      const after = await capture(server, id);
      expect(after.status).toBe(200);
      expect(stable(after.body)).toEqual(capturesBefore[id]);
    }
    expect((await call(v1.get('/v1/email/list/'))).body).toEqual(listBefore);

    const ada = (await capture(server, wrapped)).body as Record<string, unknown>;
    expect([ada.subject, ada.html, ada.text, ada.used_template, ada.attachments]).toEqual([
      'Your receipt',
      s.template.split('{{content}}').join('<p>Thanks, Ada.</p>'),
      'Thanks, Ada.',
      true,
      [],
    ]);
    const grace = (await capture(server, withFiles)).body as Record<string, unknown>;
    // No plain part was sent: the text is the HTML rendered as text, marked as derived.
    expect([grace.subject, grace.html, grace.text, grace.text_derived, grace.used_template, grace.attachments]).toEqual([
      'Files for you',
      '<p>Two files attached.</p>',
      'Two files attached.',
      true,
      false,
      [
        { filename: 'hello.txt', content_type: 'text/plain', size: 19, content_id: null, url: `/api/messages/${withFiles}/attachments/0` },
        { filename: 'pixel.png', content_type: 'image/png', size: PNG.length, content_id: null, url: `/api/messages/${withFiles}/attachments/1` },
      ],
    ]);
    const text = await fetch(`${server.url}/api/messages/${withFiles}/attachments/0`);
    expect([text.status, text.headers.get('content-type'), await text.text()]).toEqual([200, 'text/plain; charset=utf-8', 'Hello, attachment!\n']);
    const png = await fetch(`${server.url}/api/messages/${withFiles}/attachments/1`);
    expect([png.status, png.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(Buffer.from(await png.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('keeps recipients with their names and flags, set and cleared', async () => {
    const s = await sandbox();
    let server = await start(s);
    let v1 = api(server.url, 'test-key');

    const recipient = (sqid: unknown, email: string, first: string, last: string, flags: string[], sent: boolean) => ({
      sqid,
      email,
      first_name: first,
      last_name: last,
      flags,
      has_been_sent_email: sent,
      created_at: expect.stringMatching(WIRE_TIME),
      updated_at: expect.stringMatching(WIRE_TIME),
    });
    const created = await call(
      v1.post('/v1/recipients/', { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper', flags: ['premium', 'beta'] }),
    );
    expect(created.status).toBe(201);
    const sqid = (created.body as { sqid: string }).sqid;
    expect(created.body).toEqual(recipient(expect.stringMatching(/^[A-Za-z0-9]{3,}$/), 'grace@example.com', 'Grace', 'Hopper', ['premium', 'beta'], false));
    expect(await reply(v1.form('/v1/recipients/', { email: 'grace@example.com', first_name: 'Amazing Grace', flags: 'vip, premium' }))).toEqual({
      status: 200,
      body: recipient(sqid, 'grace@example.com', 'Amazing Grace', 'Hopper', ['premium', 'beta', 'vip'], false),
    });
    expect(await reply(v1.post('/v1/recipients/flags/set/', { email: 'linus@example.com', flags: 'onboarded, trial' }))).toEqual({
      status: 200,
      body: { message: `Flags ['onboarded', 'trial'] set for recipient "linus@example.com".` },
    });
    expect(await reply(v1.post('/v1/recipients/flags/clear/', { email: 'grace@example.com', flags: ['beta'] }))).toEqual({
      status: 200,
      body: { message: `Flags ['beta'] cleared for recipient "grace@example.com".` },
    });
    idOf(
      await call(
        v1.post('/v1/email/send/', {
          recipient: 'ada@example.com',
          subject: 'Hi',
          body: '<p>Hi</p>',
          first_name: 'Ada',
          last_name: 'Lovelace',
          flags: 'customer',
        }),
      ),
    );

    const before = await call(v1.get('/v1/recipients/'));
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      count: 3,
      next: null,
      previous: null,
      results: [
        recipient(expect.any(String), 'ada@example.com', 'Ada', 'Lovelace', ['customer'], true),
        recipient(expect.any(String), 'linus@example.com', '', '', ['onboarded', 'trial'], false),
        recipient(sqid, 'grace@example.com', 'Amazing Grace', 'Hopper', ['premium', 'vip'], false),
      ],
    });

    server = await restart(s, server);
    v1 = api(server.url, 'test-key');

    // Same records, same sqids and timestamps; the cleared flag stays cleared.
    expect((await call(v1.get('/v1/recipients/'))).body).toEqual(before.body);
    const results = (before.body as { results: unknown[] }).results;
    expect((await call(v1.get('/v1/recipients/?flag=premium'))).body).toEqual({ count: 1, next: null, previous: null, results: [results[2]] });
    expect((await call(v1.get('/v1/recipients/?flag=beta'))).body).toEqual({ count: 0, next: null, previous: null, results: [] });

    // The restored records are live: clearing works on them and survives another restart.
    expect(await reply(v1.post('/v1/recipients/flags/clear/', { email: 'linus@example.com', flags: 'trial' }))).toEqual({
      status: 200,
      body: { message: `Flags ['trial'] cleared for recipient "linus@example.com".` },
    });
    server = await restart(s, server);
    v1 = api(server.url, 'test-key');
    const linus = await call(v1.get('/v1/recipients/?email=linus@example.com'));
    expect((linus.body as { results: { flags: string[] }[] }).results.map((r) => r.flags)).toEqual([['onboarded']]);
  });

  it('keeps flow subscriptions, active and cancelled', async () => {
    const s = await sandbox();
    let server = await start(s);
    let v1 = api(server.url, 'test-key');

    expect(await reply(v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'alice@example.com', first_name: 'Alice' }))).toEqual({
      status: 201,
      body: { detail: `Recipient 'alice@example.com' successfully subscribed to flow '${WELCOME}'.`, subscription_id: 1 },
    });
    expect(await reply(v1.form('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'bob@example.com' }))).toEqual({
      status: 201,
      body: { detail: `Recipient 'bob@example.com' successfully subscribed to flow '${WELCOME}'.`, subscription_id: 2 },
    });
    expect(await reply(v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'bob@example.com' }))).toEqual({
      status: 200,
      body: { detail: `Recipient 'bob@example.com' successfully unsubscribed from flow '${WELCOME}'.` },
    });
    const before = await call(v1.get('/v1/flows/subscriptions/'));
    expect(before.status).toBe(200);
    expect(before.body).toEqual([
      {
        id: 2,
        flow_name: WELCOME,
        flow_trigger: 'WELCOME_SIGNUP',
        recipient_email: 'bob@example.com',
        status: 'cancelled',
        current_step_order: expect.any(Number),
        next_send_date: null,
        created_at: expect.stringMatching(WIRE_TIME),
        updated_at: expect.stringMatching(WIRE_TIME),
      },
      {
        id: 1,
        flow_name: WELCOME,
        flow_trigger: 'WELCOME_SIGNUP',
        recipient_email: 'alice@example.com',
        status: 'active',
        current_step_order: expect.any(Number),
        next_send_date: expect.stringMatching(WIRE_TIME),
        created_at: expect.stringMatching(WIRE_TIME),
        updated_at: expect.stringMatching(WIRE_TIME),
      },
    ]);

    server = await restart(s, server);
    v1 = api(server.url, 'test-key');

    expect((await call(v1.get('/v1/flows/subscriptions/'))).body).toEqual(before.body);
    // Alice is still actively subscribed; Bob's cancelled one does not block a new one.
    expect(await reply(v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'alice@example.com' }))).toEqual({
      status: 400,
      body: { detail: `Recipient 'alice@example.com' is already subscribed to flow '${WELCOME}'.` },
    });
    expect(await reply(v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'bob@example.com' }))).toEqual({
      status: 201,
      body: { detail: `Recipient 'bob@example.com' successfully subscribed to flow '${WELCOME}'.`, subscription_id: 3 },
    });
    expect(await reply(v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'alice@example.com' }))).toEqual({
      status: 200,
      body: { detail: `Recipient 'alice@example.com' successfully unsubscribed from flow '${WELCOME}'.` },
    });
    const after = (await call(v1.get('/v1/flows/subscriptions/?flow_trigger=WELCOME_SIGNUP'))).body as {
      id: number;
      recipient_email: string;
      status: string;
    }[];
    expect(after.map((x) => [x.id, x.recipient_email, x.status])).toEqual([
      [3, 'bob@example.com', 'active'],
      [2, 'bob@example.com', 'cancelled'],
      [1, 'alice@example.com', 'cancelled'],
    ]);
  });

  it('keeps the daily limit counter', async () => {
    const s = await sandbox();
    let server = await start(s);
    let limited = api(server.url, LIMITED_KEY);
    const send = (n: number) => call(limited.post('/v1/email/send/', { recipient: `daily-${n}@example.com`, subject: `Daily ${n}`, body: '<p>d</p>' }));

    idOf(await send(1));
    idOf(await send(2));

    server = await restart(s, server);
    limited = api(server.url, LIMITED_KEY);
    idOf(await send(3));
    const refused = await send(4);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: 'Daily limit of 3 emails has been reached' });

    // Still reached after another restart; the refused send created nothing.
    server = await restart(s, server);
    limited = api(server.url, LIMITED_KEY);
    const again = await send(5);
    expect(again.status).toBe(429);
    expect(again.body).toEqual({ error: 'Daily limit of 3 emails has been reached' });
    const list = (await call(limited.get('/v1/email/list/'))).body as { count: number; results: { subject: string }[] };
    expect([list.count, list.results.map((r) => r.subject)]).toEqual([3, ['Daily 3', 'Daily 2', 'Daily 1']]);
    // Other senders have their own count.
    idOf(await call(api(server.url, 'test-key').post('/v1/email/send/', { recipient: 'other@example.com', subject: 'Other', body: '<p>o</p>' })));
  });

  it('keeps Encryption-Key records sealed, readable with the key only', async () => {
    const s = await sandbox();
    let server = await start(s);
    let v1 = api(server.url, 'test-key');
    const key = 'correct horse battery staple';
    const html = '<p>Your one-time code is 424242.</p>';
    const id = idOf(
      await call(
        v1.post(
          '/v1/email/send/',
          { recipient: 'secret@example.com', subject: 'Your code', body: html, use_account_template: false },
          { 'Encryption-Key': key },
        ),
      ),
    );
    const plainId = idOf(
      await call(v1.post('/v1/email/send/', { recipient: 'open@example.com', subject: 'Open', body: '<p>open</p>', use_account_template: false })),
    );

    const sealedBefore = await call(v1.get(`/v1/email/detail/${id}/`));
    const sealed = (sealedBefore.body as { body: string }).body;
    expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9+/]+={0,2}$/);

    server = await restart(s, server);
    v1 = api(server.url, 'test-key');

    const detail = (body: string) => ({ recipient: 'secret@example.com', subject: 'Your code', created_on: expect.stringMatching(WIRE_TIME), body });
    expect(await reply(v1.get(`/v1/email/detail/${id}/`, { 'Encryption-Key': key }))).toEqual({ status: 200, body: detail(html) });
    const withoutKey = await call(v1.get(`/v1/email/detail/${id}/`));
    expect(withoutKey.status).toBe(200);
    expect(withoutKey.body).toEqual(detail(sealed));
    expect(withoutKey.body).toEqual(sealedBefore.body);
    const wrongKey = await call(v1.get(`/v1/email/detail/${id}/`, { 'Encryption-Key': 'wrong horse' }));
    expect([wrongKey.status, wrongKey.body]).toEqual([400, { detail: 'Invalid encryption key.' }]);
    expect((await call(v1.get(`/v1/email/detail/${plainId}/`))).body).toEqual({
      recipient: 'open@example.com',
      subject: 'Open',
      created_on: expect.stringMatching(WIRE_TIME),
      body: '<p>open</p>',
    });
    // The inbox capture is what the recipient gets, in clear; the record says it is encrypted.
    const inbox = (await capture(server, id)).body as { encrypted: boolean; html: string };
    expect([inbox.encrypted, inbox.html]).toEqual([true, html]);

    // The key itself is never stored.
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if ((await readFile(full)).includes(key)) offenders.push(path.relative(s.dataDir, full));
      }
    };
    await walk(s.dataDir);
    expect(offenders).toEqual([]);
  });

  it('never repeats an email id, recipient sqid or subscription id after a restart', async () => {
    const s = await sandbox();
    let server = await start(s);

    const round = async (server: ServerProcess, tag: string) => {
      const v1 = api(server.url, 'test-key');
      const emails: string[] = [];
      for (let n = 1; n <= 3; n++) {
        emails.push(idOf(await call(v1.post('/v1/email/send/', { recipient: `${tag}-mail-${n}@example.com`, subject: `${tag} ${n}`, body: '<p>x</p>' }))));
      }
      const sqids: string[] = [];
      for (let n = 1; n <= 2; n++) {
        const res = await call(v1.post('/v1/recipients/', { email: `${tag}-person-${n}@example.com` }));
        expect(res.status).toBe(201);
        sqids.push((res.body as { sqid: string }).sqid);
      }
      const subscriptions: number[] = [];
      for (let n = 1; n <= 2; n++) {
        const res = await call(v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: `${tag}-flow-${n}@example.com` }));
        expect(res.status).toBe(201);
        subscriptions.push((res.body as { subscription_id: number }).subscription_id);
      }
      return { emails, sqids, subscriptions };
    };

    const first = await round(server, 'before');
    expect(first.subscriptions).toEqual([1, 2]);
    // Deleting the newest subscription must not hand its id out again.
    const removed = await api(server.url, 'test-key').request('DELETE', '/v1/flows/subscriptions/?email=before-flow-2@example.com&flow_trigger=WELCOME_SIGNUP');
    expect(removed.status).toBe(204);

    server = await restart(s, server);
    const second = await round(server, 'after');

    expect(second.subscriptions).toEqual([3, 4]);
    expect(second.emails.filter((id) => first.emails.includes(id))).toEqual([]);
    expect(second.sqids.filter((sqid) => first.sqids.includes(sqid))).toEqual([]);
    const everyone = (await call(api(server.url, 'test-key').get('/v1/recipients/'))).body as { count: number; results: { sqid: string }[] };
    expect(everyone.count).toBe(14);
    expect(new Set(everyone.results.map((r) => r.sqid)).size).toBe(14);
    const ids = [...first.emails, ...second.emails];
    expect(new Set(ids).size).toBe(6);
  });

  it('stops cleanly on SIGTERM with exit code 0 and keeps everything', async () => {
    const s = await sandbox();
    let server = await start(s);
    let v1 = api(server.url, 'test-key');
    const id = idOf(
      await call(
        v1.post('/v1/email/send/', { recipient: 'term@example.com', subject: 'Before SIGTERM', body: '<p>t</p>', use_account_template: false, flags: 'a,b' }),
      ),
    );
    expect((await call(v1.post('/v1/recipients/', { email: 'kept@example.com', first_name: 'Kept' }))).status).toBe(201);
    expect((await call(v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'term@example.com' }))).status).toBe(201);
    const recipientsBefore = (await call(v1.get('/v1/recipients/'))).body;
    const subscriptionsBefore = (await call(v1.get('/v1/flows/subscriptions/'))).body;

    // A keep-alive connection is open (fetch pools it): the stop must not wait for it.
    const first = server;
    expect(await first.stop('SIGTERM')).toBe(0);
    expect(first.child.signalCode).toBe(null);
    expect(first.output()).toContain('Pigeonhole stopping (SIGTERM)');

    server = await start(s);
    v1 = api(server.url, 'test-key');
    expect((await call(v1.get(`/v1/email/detail/${id}/`))).body).toEqual({
      recipient: 'term@example.com',
      subject: 'Before SIGTERM',
      created_on: expect.stringMatching(WIRE_TIME),
      body: '<p>t</p>',
    });
    expect((await call(v1.get('/v1/recipients/'))).body).toEqual(recipientsBefore);
    expect((await call(v1.get('/v1/flows/subscriptions/'))).body).toEqual(subscriptionsBefore);
    // The send, and the welcome email the subscription's first step captured.
    expect(server.output()).toContain('(2 captures)');
  });

  it('drains the requests in flight on SIGTERM: nothing is stored without its 200 reaching the client', async () => {
    const s = await sandbox();
    const server = await start(s);
    const bulk = api(server.url, 'bulk-key');
    const accepted: string[] = [];
    const unexpected: string[] = [];
    const send = async (i: number) => {
      const form = new FormData();
      form.append('recipient', `term-${i}@example.com`);
      form.append('subject', `Term ${i}`);
      form.append('body', '<p>t</p>');
      form.append('attachment', new Blob([`file ${i}`], { type: 'text/plain' }), `term-${i}.txt`);
      try {
        const res = await call(bulk.multipart('/v1/email/send/', form));
        if (res.status === 200) accepted.push(idOf(res));
        else unexpected.push(`${res.status} ${res.text}`);
      } catch {
        // Cut off by the stop: allowed only for a request the server never took (checked below).
      }
    };
    // Warm up, then send a wave at once and stop while part of it is still being written.
    await inParallel(
      Array.from({ length: 40 }, (_, i) => i),
      8,
      send,
    );
    const WAVE = 48;
    let stopping: Promise<number | null> | null = null;
    let answered = 0;
    await Promise.all(
      Array.from({ length: WAVE }, async (_, k) => {
        await send(1000 + k);
        if (++answered === WAVE / 4) stopping = server.stop('SIGTERM');
      }),
    );
    expect(unexpected).toEqual([]);
    expect(stopping).not.toBe(null);
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([stopping, new Promise((resolve) => (timer = setTimeout(() => resolve('still running after 10 s'), 10_000)))]);
    clearTimeout(timer);
    expect(code).toBe(0);

    const restarted = await start(s);
    const stored = await allMessages(restarted.url);
    const storedIds = stored.messages.map((m) => m.id);
    // Every 200 is kept, and every kept email was answered with its 200: a send whose client saw
    // a reset was either never taken or would be retried into a duplicate.
    expect(accepted.filter((id) => !storedIds.includes(id))).toEqual([]);
    expect(storedIds.filter((id) => !accepted.includes(id))).toEqual([]);
  });
});
