import { describe, expect } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { startApp, type TestServer } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { rawSmtp } from '../support/smtp.ts';

/** A second app with small limits (3 recipients, 2 connections), for the file. */
const it = test.extend('limited', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestServer> => {
  const app = await startApp({ smtp: { maxRecipients: 3, maxConnections: 2 } });
  onCleanup(() => app.destroy());
  return app;
});

const TOO_MANY_CLIENTS = '421 pigeonhole Too many connected clients, try again in a moment';

describe('SMTP recipients per message', () => {
  it('refuses the RCPT TO beyond the limit with 452 4.5.3, and captures the message with the ones accepted', async ({ limited }) => {
    const smtp = await rawSmtp(limited.smtpPort);
    expect(await smtp.command('EHLO client.example')).toMatch(/^250-/);
    expect(await smtp.command('MAIL FROM:<app@example.com>')).toBe('250 Accepted');
    for (const n of [1, 2, 3]) expect(await smtp.command(`RCPT TO:<r${n}@example.com>`)).toBe('250 Accepted');
    expect(await smtp.command('RCPT TO:<r4@example.com>')).toBe('452 4.5.3 Too many recipients');
    expect(await smtp.command('RCPT TO:<r5@example.com>')).toBe('452 4.5.3 Too many recipients');
    // The same address again replaces its RCPT TO: it is not one more recipient.
    expect(await smtp.command('RCPT TO:<R2@example.com>')).toBe('250 Accepted');
    expect(await smtp.command('DATA')).toMatch(/^354 /);
    const reply = await smtp.command('Subject: Limited\r\n\r\nThree recipients.\r\n.');
    const id = /^250 2\.0\.0 Captured as (\w+)$/.exec(reply)?.[1];
    expect(id, reply).toBeDefined();
    const capture = (await (await fetch(`${limited.url}/api/messages/${id}`)).json()) as { to: string[] };
    expect(capture.to).toEqual(['r1@example.com', 'R2@example.com', 'r3@example.com']);

    // The limit is per message: the next transaction of the session takes 3 again.
    expect(await smtp.command('MAIL FROM:<app@example.com>')).toBe('250 Accepted');
    for (const n of [4, 5, 6]) expect(await smtp.command(`RCPT TO:<r${n}@example.com>`)).toBe('250 Accepted');
    expect(await smtp.command('RCPT TO:<r7@example.com>')).toBe('452 4.5.3 Too many recipients');
    expect(await smtp.command('RSET')).toBe('250 Flushed');
    expect(await smtp.command('QUIT')).toMatch(/^221 /);
    await smtp.ended;
  });

  it('accepts 1000 recipients by default, as Postfix does, and refuses the 1001st', async ({ app }) => {
    const smtp = await rawSmtp(app.smtpPort);
    await smtp.command('EHLO client.example');
    await smtp.command('MAIL FROM:<app@example.com>');
    for (let n = 1; n <= 1000; n++) {
      const reply = await smtp.command(`RCPT TO:<bulk${n}@example.com>`);
      if (reply !== '250 Accepted') expect(`${n}: ${reply}`).toBe(`${n}: 250 Accepted`);
    }
    expect(await smtp.command('RCPT TO:<bulk1001@example.com>')).toBe('452 4.5.3 Too many recipients');
    await smtp.close();
  });
});

describe('SMTP connections at once', () => {
  it('answers one connection more than the limit with 421 and closes it; a place that frees up is taken again', async ({ limited }) => {
    const first = await rawSmtp(limited.smtpPort);
    const second = await rawSmtp(limited.smtpPort);
    expect(first.greeting).toMatch(/^220 /);
    expect(second.greeting).toMatch(/^220 /);
    const third = await rawSmtp(limited.smtpPort);
    expect(third.greeting).toBe(TOO_MANY_CLIENTS);
    await third.ended;
    // The two sessions still work.
    expect(await first.command('NOOP')).toBe('250 OK');
    expect(await second.command('QUIT')).toMatch(/^221 /);
    await second.ended;
    // The server forgets the closed session a moment after the client sees the close.
    await expect
      .poll(async () => {
        const next = await rawSmtp(limited.smtpPort);
        next.destroy();
        return next.greeting.slice(0, 4);
      })
      .toBe('220 ');
    await first.close();
  });
});

describe('SMTP limit options', () => {
  it('default to 1000 recipients and 100 connections, and take flags and PIGEONHOLE_* variables', () => {
    expect(loadConfig([], {})).toMatchObject({ smtpMaxRecipients: 1000, smtpMaxConnections: 100 });
    expect(loadConfig(['--smtp-max-recipients', '50', '--smtp-max-connections', '8'], {})).toMatchObject({ smtpMaxRecipients: 50, smtpMaxConnections: 8 });
    expect(loadConfig([], { PIGEONHOLE_SMTP_MAX_RECIPIENTS: '5', PIGEONHOLE_SMTP_MAX_CONNECTIONS: '3' })).toMatchObject({
      smtpMaxRecipients: 5,
      smtpMaxConnections: 3,
    });
    expect(() => loadConfig(['--smtp-max-recipients', '0', '--smtp-max-connections', 'many'], {})).toThrow(
      '--smtp-max-recipients: "0" is not a positive whole number\n--smtp-max-connections: "many" is not a positive whole number',
    );
    expect(() => loadConfig([], { PIGEONHOLE_SMTP_MAX_CONNECTIONS: '' })).toThrow('PIGEONHOLE_SMTP_MAX_CONNECTIONS: "" is not a positive whole number');
  });

  it('default the per-client limits as docs/security.md says, and take flags and PIGEONHOLE_* variables', () => {
    expect(loadConfig([], {})).toMatchObject({ smtpMaxClientSessions: 10, smtpReservedSessions: 5, smtpSessionLifetimeMs: 600_000, smtpJunkCommandLimit: 100 });
    expect(
      loadConfig(['--smtp-max-client-sessions', '3', '--smtp-reserved-sessions', '0', '--smtp-session-lifetime', '90s'], {
        PIGEONHOLE_SMTP_JUNK_COMMAND_LIMIT: '7',
      }),
    ).toMatchObject({ smtpMaxClientSessions: 3, smtpReservedSessions: 0, smtpSessionLifetimeMs: 90_000, smtpJunkCommandLimit: 7 });
    expect(() => loadConfig(['--smtp-session-lifetime', 'soon', '--smtp-max-client-sessions', '0'], {})).toThrow(
      '--smtp-max-client-sessions: "0" is not a positive whole number\n--smtp-session-lifetime: "soon" is not a duration such as 10m, 90s or 1h',
    );
  });
});
