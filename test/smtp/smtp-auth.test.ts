import { describe, expect } from 'vitest';
import { api } from '../support/app.ts';
import { capturedId, rawSmtp, smtpClient, trySend } from '../support/smtp.ts';
import type { SmtpRejection } from '../../server/smtp/smtp-server.ts';
import { test } from '../support/fixtures.ts';

test.override('appOptions', {
  config: (sample: any) => {
    sample.teams[0].senders.push({ id: 'acme-small', email: 'small@acme.example', apiKey: 'small-key', dailyLimit: 2 });
    sample.teams[0].senders.push({ id: 'acme-old', email: 'old@acme.example', apiKey: 'revoked-key', revoked: true });
    return sample;
  },
});
/** On the file's app: `get(path)` a GET's JSON body; `plain(pass)` an SMTP client logging in with that password (an API key). */
const it = test.extend(
  'plain',
  { scope: 'file' },
  ({ app }) =>
    (pass: string) =>
      smtpClient(app.smtpPort, { user: 'anything', pass }),
);
const mail = (to: string | string[], extra: Record<string, unknown> = {}) => ({
  from: 'app@example.com',
  to,
  subject: 'Hi',
  text: 'Hello',
  html: '<p>Hello</p>',
  ...extra,
});

describe('SMTP AUTH with an API key', () => {
  it('applies that sender: team, sender id and recipient records, without the account template', async ({ get, plain }) => {
    const id = capturedId((await plain('test-key').sendMail(mail('smtp-user@example.com'))).response);
    expect(await get(`/api/messages/${id}`)).toMatchObject({ source: 'smtp', team: 'acme', sender: 'acme-main', used_template: false, html: '<p>Hello</p>' });
    const recipients = await get('/api/recipients?q=smtp-user');
    expect(recipients.recipients).toMatchObject([{ team: 'acme', email: 'smtp-user@example.com', has_been_sent_email: true, blocked: false }]);
  });

  it('redirects every recipient to the development address with AUTH LOGIN and a Development Mode key', async ({ app, get }) => {
    const client = smtpClient(app.smtpPort, { user: 'dev', pass: 'dev-key', method: 'LOGIN' });
    const id = capturedId(
      (await client.sendMail(mail(['first@example.com', 'second@example.com'], { cc: 'cc@example.com', bcc: 'bcc@example.com' }))).response,
    );
    const m = await get(`/api/messages/${id}`);
    expect(m).toMatchObject({ sender: 'acme-dev', redirected: true, recipient: 'first@example.com', to: ['dev-inbox@example.com'], cc: [], bcc: [] });
    expect(m.headers).toContainEqual({ name: 'X-Original-To', value: 'first@example.com, second@example.com, cc@example.com, bcc@example.com' });
  });

  it('accepts a message to a blocked recipient and records it blocked and failed', async ({ get, plain }) => {
    const sent = await trySend(plain('test-key'), mail(['ok@example.com', 'blocked@example.com']));
    expect(sent).toMatchObject({
      ok: true,
      response: expect.stringMatching(/^250 2\.0\.0 Captured as \w+ \(a recipient is blocked: recorded as failed, nothing delivered\)$/),
    });
    const m = await get(`/api/messages/${capturedId(sent.response)}`);
    expect(m).toMatchObject({ blocked: true, status: 'failed', to: ['ok@example.com', 'blocked@example.com'] });
  });

  it('refuses at MAIL FROM with a 4xx naming the limit once the daily limit is used', async ({ app }) => {
    const client = smtpClient(app.smtpPort, { user: 'x', pass: 'small-key' });
    expect((await trySend(client, mail('a@example.com'))).ok).toBe(true);
    expect((await trySend(client, mail('b@example.com'))).ok).toBe(true);
    const before = app.sandbox.messages.count();
    expect(await trySend(client, mail('c@example.com'))).toEqual({ ok: false, code: 451, response: '451 4.7.1 Daily limit of 2 emails has been reached' });
    expect(app.sandbox.messages.count()).toBe(before);
  });

  it('refuses at the end of DATA when the limit ran out during the session', async ({ apps }) => {
    const server = await apps.start({
      config: (sample: any) => {
        sample.teams[0].senders[0].dailyLimit = 1;
        return sample;
      },
    });
    const smtp = await rawSmtp(server.smtpPort);
    expect(await smtp.command('EHLO test')).toMatch(/^250-/);
    expect(await smtp.command(`AUTH PLAIN ${Buffer.from('\0user\0test-key').toString('base64')}`)).toMatch(/^235 /);
    expect(await smtp.command('MAIL FROM:<a@example.com>')).toMatch(/^250 /);
    expect(await smtp.command('RCPT TO:<b@example.com>')).toMatch(/^250 /);
    // The API uses the sender's last send of the day while the SMTP session is open.
    expect((await api(server.url, 'test-key').post('/v1/email/send/', { recipient: 'c@example.com', subject: 's', body: 'b' })).status).toBe(200);
    expect(await smtp.command('DATA')).toMatch(/^354 /);
    expect(await smtp.command('Subject: late\r\n\r\nbody\r\n.')).toBe('451 4.7.1 Daily limit of 1 emails has been reached');
    expect(server.sandbox.messages.count()).toBe(1);
    await smtp.close();
  });

  it('answers 535 for an unknown or revoked key and for a key whose team has flows off', async ({ plain }) => {
    for (const key of ['no-such-key', 'revoked-key']) {
      expect(await trySend(plain(key), mail('a@example.com')), key).toEqual({
        ok: false,
        code: 535,
        response: '535 5.7.8 Authentication failed: the password must be a valid API key',
      });
    }
    expect(await trySend(plain('noflows-key'), mail('a@example.com'))).toEqual({
      ok: false,
      code: 535,
      response: "535 5.7.8 Authentication failed: this API key's team does not have email flows enabled",
    });
  });

  it('does not offer STARTTLS (its built-in certificate has expired) but offers AUTH PLAIN LOGIN and SIZE', async ({ app }) => {
    const smtp = await rawSmtp(app.smtpPort);
    expect(smtp.greeting).toMatch(/^220 pigeonhole /);
    const ehlo = await smtp.command('EHLO test');
    expect(ehlo).not.toContain('STARTTLS');
    expect(ehlo).toContain('AUTH PLAIN LOGIN');
    expect(ehlo).toContain(`SIZE ${25 * 1024 * 1024}`);
    await smtp.close();
  });
});

describe('SMTP with AUTH required', () => {
  const rejections: SmtpRejection[] = [];
  let sessions = 0;

  it('refuses anonymous mail with 530 and wrong keys with 535, and accepts a valid key', async ({ apps }) => {
    const server = await apps.start({
      smtp: {
        authRequired: true,
        hooks: {
          session: () => void sessions++,
          rejected: (reason) => void rejections.push(reason),
        },
      },
    });
    const anonymous = await trySend(smtpClient(server.smtpPort), mail('a@example.com'));
    expect(anonymous).toEqual({ ok: false, code: 530, response: '530 5.7.0 Authentication required: AUTH PLAIN or LOGIN with an API key as the password' });
    const wrong = await trySend(smtpClient(server.smtpPort, { user: 'u', pass: 'wrong' }), mail('a@example.com'));
    expect(wrong).toMatchObject({ ok: false, code: 535 });
    const good = await trySend(smtpClient(server.smtpPort, { user: 'u', pass: 'test-key' }), mail('a@example.com'));
    expect(good.ok).toBe(true);
    expect(server.sandbox.messages.count()).toBe(1);

    // A fault rule from the sandbox API refuses RCPT for one address with its own reply.
    const rule = {
      target: 'smtp',
      match: { stage: 'rcpt', recipient: 'fault@example.com', sender: 'acme-main' },
      action: { type: 'smtp_reply', code: 450, message: '4.2.0 Injected fault' },
    };
    const added = await fetch(`${server.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rule) });
    expect(added.status).toBe(201);
    const faulted = await trySend(smtpClient(server.smtpPort, { user: 'u', pass: 'test-key' }), mail('fault@example.com'));
    expect(faulted).toMatchObject({ ok: false, code: 450, response: '450 4.2.0 Injected fault' });
    expect(rejections).toEqual(['auth_required', 'auth_failed', 'fault']);
    expect(sessions).toBe(4);
    expect(server.sandbox.messages.count()).toBe(1);
  });
});
