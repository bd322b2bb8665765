import { describe, expect } from 'vitest';
import { PigeonholeClient, TooFewMessages, WaitTimeout } from '../../../client/pigeonhole-client.ts';
import { test } from '../../support/fixtures.ts';
import { smtpClient, trySend } from '../../support/smtp.ts';

/**
 * Issue 27, item 4: a wait or an expectation that fails names the sends through /v1 that would
 * have matched but were refused (the daily limit, a wrong key, a team without flows, a bad body,
 * a blocked recipient the status filter leaves out), from the request log, with the reason.
 */

/** The sandbox clock held at 10:00 UTC: a daily limit never meets midnight mid-test. */
const TEN_AM = () => Date.UTC(2030, 4, 10, 10);

test.override('appOptions', {
  now: TEN_AM,
  config: (sample: any) => {
    sample.teams[0].senders.push({ id: 'acme-small', email: 'small@acme.example', apiKey: 'small-key', dailyLimit: 1 });
    return sample;
  },
});

/** `send(key, fields)`: a /v1 send as JSON, answered; `logged(status)`: the newest request log entry with that status. */
const it = test
  .extend('send', { scope: 'file' }, ({ app }) => async (key: string, fields: Record<string, unknown>) => {
    const res = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: `Api-Key ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(fields),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  })
  .extend('logged', { scope: 'file' }, ({ app }) => async (status: number) => {
    const page = (await (await fetch(`${app.url}/api/requests?status=${status}&limit=1`)).json()) as { requests: { id: number; at: string }[] };
    return page.requests[0]!;
  })
  .extend('get', { scope: 'file' }, ({ app }) => async (path: string) => {
    const res = await fetch(app.url + path);
    return { status: res.status, text: await res.text() };
  });

describe('a wait that times out', () => {
  it('names a send refused by the daily limit, with the reason, in detail and refused', async ({ send, logged, get }) => {
    expect((await send('small-key', { recipient: 'first+limit@example.com', subject: 'First', body: '<p>1</p>' })).status).toBe(200);
    const refused = await send('small-key', { recipient: 'ada+limit@example.com', subject: 'Confirm your address', body: '<p>2</p>' });
    expect(refused).toEqual({ status: 429, body: { error: 'Daily limit of 1 emails has been reached' } });
    const entry = await logged(429);
    const answer = await get('/api/messages/wait?namespace=limit&subject=confirm&timeout=0');
    expect(answer.status).toBe(408);
    expect(answer.text).toBe(
      JSON.stringify({
        detail: `No message matching the filters arrived within 0 ms. 1 send that would have matched was refused: 429 daily limit (Daily limit of 1 emails has been reached), request ${entry.id} to ada+limit@example.com at ${entry.at}.`,
        refused: [
          {
            request: entry.id,
            at: entry.at,
            status: 429,
            kind: 'daily_limit',
            reason: 'Daily limit of 1 emails has been reached',
            sender: 'acme-small',
            recipient: 'ada+limit@example.com',
            subject: 'Confirm your address',
            fault: null,
          },
        ],
      }),
    );
    // A filter the refused send does not fit: the answer is as it always was.
    expect(await get('/api/messages/wait?recipient=someone-else%40example.com&timeout=0')).toEqual({
      status: 408,
      text: '{"detail":"No message matching the filters arrived within 0 ms."}',
    });
    expect((await get('/api/messages/wait?namespace=limit&subject=confirm&source=smtp&timeout=0')).text).not.toContain('refused');
  });

  it('names a wrong API key (its body read for the log), a team without flows and a bad body', async ({ app, send, logged }) => {
    expect((await send('no-such-key', { recipient: 'bob+keys@example.com', subject: 'Welcome', body: '<p>hi</p>' })).status).toBe(401);
    const unauthorized = await logged(401);
    expect((await send('noflows-key', { recipient: 'bob+keys@example.com', subject: 'Welcome', body: '<p>hi</p>' })).status).toBe(403);
    const forbidden = await logged(403);
    expect((await send('test-key', { recipient: 'bob+keys@example.com', subject: 'Welcome' })).status).toBe(400);
    const invalid = await logged(400);
    const client = new PigeonholeClient({ baseUrl: app.url });
    const error = await client.waitForMessage({ namespace: 'keys', timeout: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaitTimeout);
    const timeout = error as WaitTimeout;
    expect(timeout.status).toBe(408);
    expect(timeout.refused.map((r) => [r.request, r.status, r.kind, r.reason, r.sender, r.recipient])).toEqual([
      [invalid.id, 400, 'invalid', 'body: This field is required.', 'acme-main', 'bob+keys@example.com'],
      [forbidden.id, 403, 'forbidden', 'Authentication credentials were not provided.', null, 'bob+keys@example.com'],
      [unauthorized.id, 401, 'unauthorized', 'Authentication credentials were not provided.', null, 'bob+keys@example.com'],
    ]);
    expect(timeout.message).toBe(
      `No message matching the filters arrived within 0 ms. 3 sends that would have matched were refused: ` +
        `400 invalid request (body: This field is required.), request ${invalid.id} to bob+keys@example.com at ${invalid.at}; ` +
        `403 team without flows (Authentication credentials were not provided.), request ${forbidden.id} to bob+keys@example.com at ${forbidden.at}; ` +
        `401 unknown API key (Authentication credentials were not provided.), request ${unauthorized.id} to bob+keys@example.com at ${unauthorized.at}. ` +
        `(GET ${app.url}/api/messages/wait?namespace=keys&timeout=0)`,
    );
  });

  it('names a blocked send only when the status filter leaves its failed capture out', async ({ app, send, get }) => {
    await fetch(`${app.url}/api/blocks`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ team: 'acme', email: 'cy+blocked@example.com' }),
    });
    const sent = await send('test-key', { recipient: 'cy+blocked@example.com', subject: 'Hello', body: '<p>hi</p>' });
    expect(sent.body).toEqual({ id: expect.any(String), error: 'Recipient is blocked' });
    // The blocked send is a capture (status failed): a plain wait finds it.
    expect((await get('/api/messages/wait?namespace=blocked&timeout=0')).status).toBe(200);
    const delivered = JSON.parse((await get('/api/messages/wait?namespace=blocked&status=delivered&timeout=0')).text);
    expect(delivered.refused).toMatchObject([{ status: 200, kind: 'blocked', reason: 'Recipient is blocked', recipient: 'cy+blocked@example.com' }]);
  });
});

describe('an expectation that falls short', () => {
  it('lists the refused sends beside the matches (TooFewMessages.refused), never when more matched', async ({ app, send, logged }) => {
    expect((await send('test-key', { recipient: 'dee+expect@example.com', subject: 'One', body: '<p>1</p>' })).status).toBe(200);
    expect((await send('wrong-key-expect', { recipient: 'dee+expect@example.com', subject: 'Two', body: '<p>2</p>' })).status).toBe(401);
    const entry = await logged(401);
    const client = new PigeonholeClient({ baseUrl: app.url });
    const error = await client.expect({ namespace: 'expect', count: 2, within: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooFewMessages);
    const fewer = error as TooFewMessages;
    expect(fewer.count).toBe(1);
    expect(fewer.refused).toMatchObject([{ request: entry.id, status: 401, kind: 'unauthorized', subject: 'Two' }]);
    expect(fewer.detail).toBe(
      `Expected 2 messages matching the filters within 0 ms; 1 matched. 1 send that would have matched was refused: 401 unknown API key (Authentication credentials were not provided.), request ${entry.id} to dee+expect@example.com at ${entry.at}.`,
    );
    const none = await client.expectNone({ namespace: 'expect', within: 0 }).catch((e: { status: number; refused: unknown[] }) => e);
    expect(none).toMatchObject({ status: 409, refused: [] });
  });
});

describe('the daily counts of a shared sandbox', () => {
  it('GET /api/senders shows them; DELETE /api/senders/daily-counts starts one over, and a restart keeps it so', async ({ apps }) => {
    const config = (sample: any) => {
      sample.teams[0].senders.push({ id: 'acme-small', email: 'small@acme.example', apiKey: 'small-key', dailyLimit: 1 });
      return sample;
    };
    const first = await apps.start({ config, now: TEN_AM });
    const client = new PigeonholeClient({ baseUrl: first.url });
    const sendSmall = () =>
      client.sendEmail({ apiKey: 'small-key', recipient: 'a@example.com', subject: 's', body: 'b' }).then(
        () => 200,
        (e: { status: number }) => e.status,
      );
    expect(await sendSmall()).toBe(200);
    expect(await sendSmall()).toBe(429);
    const small = async () => (await client.senders()).find((s) => s.id === 'acme-small')!;
    expect(await small()).toMatchObject({ daily_limit: 1, sent_today: 1 });
    expect(await client.resetDailyCounts({ sender: 'small-key' })).toBe(1);
    expect(await small()).toMatchObject({ sent_today: 0 });
    // The capture stays; a restart counts only what was sent since the reset.
    await first.close();
    const again = await apps.start({ config, now: TEN_AM, dataDir: first.dataDir });
    const restarted = new PigeonholeClient({ baseUrl: again.url });
    expect((await restarted.list()).total).toBe(1);
    expect((await restarted.senders()).find((s) => s.id === 'acme-small')).toMatchObject({ sent_today: 0 });
    expect((await restarted.sendEmail({ apiKey: 'small-key', recipient: 'b@example.com', subject: 's', body: 'b' })).id).toEqual(expect.any(String));
    const refused = await fetch(`${again.url}/api/senders/daily-counts?team=nope`, { method: 'DELETE' });
    expect([refused.status, await refused.json()]).toEqual([400, { detail: 'team "nope" is not a configured team.' }]);
  });
});

describe('SMTP refusals', () => {
  // Each on an app of its own: a refusal before RCPT TO fits every wait, and the file's shared
  // app compares whole bodies above.
  const waitBody = async (url: string, query: string) => {
    const res = await fetch(`${url}/api/messages/wait?${query}&timeout=0`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const at = new Date(TEN_AM()).toISOString();
  /** A message over SMTP, logged in with `pass`: the server's reply or refusal. */
  const sendOverSmtp = async (port: number, pass: string, to: string) => {
    const transport = smtpClient(port, { user: 'app', pass });
    try {
      return await trySend(transport, { from: 'app@example.com', to, subject: 'Hi', text: 'hi' });
    } finally {
      transport.close();
    }
  };

  it('a failed AUTH is named by every failed wait after it (it could have been for anyone), not by one for /v1 sends only', async ({ freshApp }) => {
    expect(await sendOverSmtp(freshApp.smtpPort, 'not-a-key', 'ada+smtp@example.com')).toMatchObject({ ok: false, code: 535 });
    const refusal = {
      at,
      code: 535,
      kind: 'unauthorized',
      reason: '5.7.8 Authentication failed: the password must be a valid API key',
      stage: 'auth',
      sender: null,
      mail_from: null,
      recipients: [],
    };
    expect(await waitBody(freshApp.url, 'namespace=smtp')).toEqual({
      status: 408,
      body: {
        detail: `No message matching the filters arrived within 0 ms. 1 SMTP command that could have carried it was refused: 535 at AUTH (5.7.8 Authentication failed: the password must be a valid API key) at ${at}.`,
        smtp_refused: [refusal],
      },
    });
    expect((await waitBody(freshApp.url, 'namespace=smtp&source=api')).body).toEqual({ detail: 'No message matching the filters arrived within 0 ms.' });
    // A sender filter: a session that never logged in had none.
    expect((await waitBody(freshApp.url, 'sender=acme-main')).body).not.toHaveProperty('smtp_refused');
    // A reset forgets it, as it forgets the request log.
    expect((await fetch(`${freshApp.url}/api/reset`, { method: 'POST' })).status).toBe(200);
    expect((await waitBody(freshApp.url, 'namespace=smtp')).body).toEqual({ detail: 'No message matching the filters arrived within 0 ms.' });
  });

  it('a refused RCPT TO is named for its recipient and namespace only, with the MAIL FROM, through the typed client too', async ({ freshApp }) => {
    const client = new PigeonholeClient({ baseUrl: freshApp.url });
    await client.faults.add({
      target: 'smtp',
      match: { stage: 'rcpt', recipient: 'bob+rcpt@example.com' },
      action: { type: 'smtp_reply', code: 550, message: '5.1.1 No such user' },
    });
    expect(await sendOverSmtp(freshApp.smtpPort, 'test-key', 'bob+rcpt@example.com')).toMatchObject({ ok: false, code: 550 });
    const refusal = {
      at,
      code: 550,
      kind: 'fault',
      reason: '5.1.1 No such user',
      stage: 'rcpt',
      sender: 'acme-main',
      mail_from: 'app@example.com',
      recipients: ['bob+rcpt@example.com'],
    };
    expect((await waitBody(freshApp.url, 'recipient=BOB%2Brcpt@example.com')).body.smtp_refused).toEqual([refusal]);
    expect((await waitBody(freshApp.url, 'namespace=rcpt&sender=acme-main')).body.smtp_refused).toEqual([refusal]);
    expect((await waitBody(freshApp.url, 'namespace=other')).body).toEqual({ detail: 'No message matching the filters arrived within 0 ms.' });
    expect((await waitBody(freshApp.url, 'namespace=rcpt&sender=acme-dev')).body).not.toHaveProperty('smtp_refused');
    const waited = await client.waitForMessage({ namespace: 'rcpt', timeout: 0 }).catch((e: unknown) => e);
    expect(waited).toBeInstanceOf(WaitTimeout);
    expect((waited as WaitTimeout).smtpRefused).toEqual([refusal]);
    expect((waited as WaitTimeout).refused).toEqual([]);
    const fewer = await client.expect({ namespace: 'rcpt', count: 1, within: 0 }).catch((e: unknown) => e);
    expect(fewer).toBeInstanceOf(TooFewMessages);
    expect((fewer as TooFewMessages).smtpRefused).toEqual([refusal]);
    expect((fewer as TooFewMessages).detail).toBe(
      `Expected 1 message matching the filters within 0 ms; 0 matched. 1 SMTP command that could have carried it was refused: 550 at RCPT TO (5.1.1 No such user) for bob+rcpt@example.com at ${at}.`,
    );
  });
});
