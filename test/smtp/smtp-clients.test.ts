import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { describe, expect } from 'vitest';
import { startApp, type TestServer } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { eventually } from '../support/eventually.ts';
import { rawSmtp } from '../support/smtp.ts';

const run = promisify(execFile);

/**
 * An app with small per-client limits (docs/security.md, "SMTP clients"): 8 sessions in all, 3
 * per client address, the last 2 kept for addresses that hold none, 5 junk commands between
 * messages. Loopback addresses are clients of their own: 127.0.0.2 hoards, 127.0.0.3 sends.
 */
const it = test.extend('limited', { scope: 'file' }, async ({}, { onCleanup }) => {
  const logged: string[] = [];
  const app = await startApp({
    flags: ['--smtp-max-connections', '8', '--smtp-max-client-sessions', '3', '--smtp-reserved-sessions', '2', '--smtp-junk-command-limit', '5'],
    logger: { error: (message: string) => logged.push(message) },
  });
  onCleanup(() => app.destroy());
  return { app, logged };
});

const HOARDER = '127.0.0.2';
const SENDER = '127.0.0.3';
const perClient = (address: string) => `421 4.7.0 Too many sessions from ${address} (3 at once), try again later`;
const JUNK = '421 4.7.0 Too many commands without a message (5 NOOP, RSET, HELP or VRFY), closing';

/** nodemailer from a loopback address of its own: one message, its reply. */
async function sendFrom(app: TestServer, localAddress: string, subject: string): Promise<string> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: app.smtpPort, secure: false, ignoreTLS: true, localAddress });
  try {
    return (await transport.sendMail({ from: 'app@example.com', to: 'user@example.com', subject, text: 'hello' })).response;
  } finally {
    transport.close();
  }
}

/** A session from `address`, once the server has let go of the ones a test before closed (the client sees its close first). */
const served = (app: TestServer, address: string) =>
  eventually(async () => {
    const session = await rawSmtp(app.smtpPort, { localAddress: address });
    if (session.greeting.startsWith('220 ')) return session;
    session.destroy();
    return undefined;
  });

/** Opens sessions from `address` until one is refused; the open ones and the refusal. */
async function hoard(app: TestServer, address: string) {
  const open: Awaited<ReturnType<typeof rawSmtp>>[] = [];
  for (;;) {
    const session = await rawSmtp(app.smtpPort, { localAddress: address });
    if (!session.greeting.startsWith('220 ')) {
      await session.ended;
      return { open, refusal: session.greeting };
    }
    open.push(session);
  }
}

describe('one SMTP client cannot lock the others out (issue 28, finding 1)', () => {
  it('serves a client connecting again and again while another hoards sessions with NOOPs', async ({ limited: { app, logged } }) => {
    for (let round = 1; round <= 6; round++) {
      // The hoarder takes what it may (3 sessions), then keeps them busy with NOOPs.
      const { open, refusal } = await hoard(app, HOARDER);
      expect([open.length, refusal]).toEqual([3, perClient(HOARDER)]);
      const replies = await Promise.all(open.map(async (session) => [await session.command('NOOP'), await session.command('NOOP')]));
      expect(replies.flat()).toEqual(Array(6).fill('250 OK'));
      // Every round, the other client is served.
      expect(await sendFrom(app, SENDER, `round ${round}`)).toMatch(/^250 2\.0\.0 Captured as \w+$/);
      // NOOPs do not buy time for ever: the junk-command limit closes each hoarded session.
      for (const session of open) {
        for (let n = 3; n <= 5; n++) expect(await session.command('NOOP')).toBe('250 OK');
        expect(await session.command('NOOP')).toBe(JUNK);
        await session.ended;
      }
    }
    // Refused six times for each limit, logged once.
    expect(logged.filter((line) => line.includes(`"${perClient(HOARDER)}"`))).toHaveLength(1);
    expect(logged.filter((line) => line.includes(`"${JUNK}"`))).toHaveLength(1);
  });

  it('keeps the last sessions for addresses that hold none, when several addresses hoard', async ({ limited: { app } }) => {
    const first = await hoard(app, HOARDER);
    expect(first.open).toHaveLength(3);
    const second = await rawSmtp(app.smtpPort, { localAddress: '127.0.0.4' });
    const third = await rawSmtp(app.smtpPort, { localAddress: '127.0.0.4' });
    const fourth = await rawSmtp(app.smtpPort, { localAddress: '127.0.0.4' });
    // 6 of 8 are taken: 127.0.0.5 holds none and gets one; its second would take a kept place.
    const fifth = await rawSmtp(app.smtpPort, { localAddress: '127.0.0.5' });
    const sixth = await rawSmtp(app.smtpPort, { localAddress: '127.0.0.5' });
    expect([second, third, fourth, fifth].map((s) => s.greeting.slice(0, 4))).toEqual(['220 ', '220 ', '220 ', '220 ']);
    expect(sixth.greeting).toBe('421 4.7.0 Too many connected clients: the last 2 sessions are kept for other clients, try again later');
    expect(await sendFrom(app, SENDER, 'kept place')).toMatch(/^250 2\.0\.0 Captured as/);
    for (const session of [...first.open, second, third, fourth, fifth]) {
      await session.close();
      await session.ended;
    }
  });

  it('counts junk commands from the last message: a client that sends mail between NOOPs is never cut off', async ({ limited: { app } }) => {
    const session = await served(app, '127.0.0.6');
    await session.command('EHLO client.example');
    for (let message = 0; message < 3; message++) {
      for (let n = 0; n < 4; n++) expect(await session.command(n % 2 ? 'RSET' : 'NOOP')).toMatch(/^250 /);
      expect(await session.command('MAIL FROM:<app@example.com>')).toBe('250 Accepted');
      expect(await session.command('RCPT TO:<user@example.com>')).toBe('250 Accepted');
      expect(await session.command('DATA')).toMatch(/^354 /);
      expect(await session.command('Subject: between\r\n\r\nbody\r\n.')).toMatch(/^250 2\.0\.0 Captured as/);
    }
    await session.close();
  });
});

describe('failed SMTP AUTH (issue 28, finding 8)', () => {
  it('closes the session at the third failed AUTH with 421, logged once', async ({ limited: { app, logged } }) => {
    const plain = (password: string) => `AUTH PLAIN ${Buffer.from(`\0user\0${password}`).toString('base64')}`;
    for (const client of ['127.0.0.7', '127.0.0.7']) {
      const session = await served(app, client);
      await session.command('EHLO client.example');
      expect(await session.command(plain('guess-1'))).toBe('535 5.7.8 Authentication failed: the password must be a valid API key');
      expect(await session.command(plain('guess-2'))).toBe('535 5.7.8 Authentication failed: the password must be a valid API key');
      expect(await session.command(plain('guess-3'))).toBe('421 4.7.0 Too many failed AUTH attempts (3), closing');
      await session.ended;
    }
    expect(logged.filter((line) => line.includes('Too many failed AUTH attempts'))).toHaveLength(1);
  });

  it('still lets real clients log in: nodemailer and Python smtplib, after a wrong key too', async ({ limited: { app } }) => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: app.smtpPort,
      secure: false,
      ignoreTLS: true,
      auth: { user: 'app', pass: 'test-key' },
    });
    expect((await transport.sendMail({ from: 'app@example.com', to: 'user@example.com', subject: 'auth', text: 'x' })).response).toMatch(/^250 2\.0\.0/);
    transport.close();
    const script = `
import smtplib, sys
s = smtplib.SMTP('127.0.0.1', ${app.smtpPort})
try:
    s.login('app', 'wrong-key')
except smtplib.SMTPAuthenticationError as e:
    print('refused', e.smtp_code)
s.login('app', 'test-key')
s.sendmail('app@example.com', ['user@example.com'], 'Subject: smtplib\\r\\n\\r\\nhello\\r\\n')
s.quit()
print('sent')
`;
    const { stdout } = await run('/usr/bin/python3', ['-c', script]);
    expect(stdout.trim().split('\n')).toEqual(['refused 535', 'sent']);
  });
});

describe('SMTP session lifetime', () => {
  it('answers a session open past --smtp-session-lifetime with 421 and closes it', async ({ apps }) => {
    // A real wait: the lifetime is what is tested (a fifth of a second).
    const app = await apps.start({ flags: ['--smtp-session-lifetime', '200ms'] });
    const session = await rawSmtp(app.smtpPort);
    // Nothing is asserted about how far the session got before the lifetime ran out: on a busy
    // machine the greeting alone can take longer than 200 ms. Whatever it was doing, it ends so.
    await session.ended;
    expect(session.lastReply()).toBe('421 4.4.2 Session open longer than 200 ms, closing: connect again to go on');
  });

  it('lets a message being received when the lifetime ends finish, and closes the session at the next command', async ({ apps }) => {
    // Two seconds: room for four commands on a busy machine before the lifetime runs out.
    const app = await apps.start({ flags: ['--smtp-session-lifetime', '2s'] });
    const session = await rawSmtp(app.smtpPort);
    await session.command('EHLO client.example');
    await session.command('MAIL FROM:<app@example.com>');
    await session.command('RCPT TO:<user@example.com>');
    expect(await session.command('DATA')).toMatch(/^354 /);
    // A real wait: the lifetime running out in the middle of the message is what is tested.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect(await session.command('Subject: slow\r\n\r\nbody\r\n.')).toMatch(/^250 2\.0\.0 Captured as \w+$/);
    expect(await session.command('NOOP')).toBe('421 4.4.2 Session open longer than 2 s, closing: connect again to go on');
    await session.ended;
  });
});
