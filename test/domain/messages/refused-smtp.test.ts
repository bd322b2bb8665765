import { describe, expect, it } from 'vitest';
import { refusedSmtp, smtpRefusalSentence } from '../../../server/domain/messages/refused-sends.ts';
import { RequestLog, SMTP_REFUSAL_RECIPIENTS, type SmtpRefusal } from '../../../server/domain/toolkit/request-log.ts';
import type { Store } from '../../../server/storage/store.ts';

/**
 * The SMTP half of a failed wait's explanation (docs/testing.md, "When the mail never came"):
 * which refusals fit which filters, their kinds, the bound of 500 and the sentence.
 */

/** A request log whose store is never asked for anything but its bound (SMTP refusals stay in memory). */
function emptyLog(): RequestLog {
  const removed: unknown[] = [];
  const store = { requests: { keepNewest: () => undefined, remove: async () => removed.length } } as unknown as Store;
  return new RequestLog(store);
}

const refusal = (fields: Partial<SmtpRefusal>): SmtpRefusal => ({
  at: '2030-05-10T10:00:00.000Z',
  code: 535,
  reply: '5.7.8 Authentication failed: the password must be a valid API key',
  rejection: 'auth_failed',
  stage: 'auth',
  sender: null,
  team: null,
  mailFrom: null,
  recipients: [],
  ...fields,
});

describe('refusedSmtp', () => {
  it('fits what the session carried: sender, team, recipients and namespace, time; a refusal before RCPT TO fits any recipient', () => {
    const log = emptyLog();
    log.noteSmtpRefusal(refusal({ at: '2030-05-10T09:00:00.000Z' }));
    log.noteSmtpRefusal(
      refusal({
        at: '2030-05-10T10:00:00.000Z',
        code: 552,
        reply: '5.3.4 Message exceeds the size limit of 10 bytes',
        rejection: 'size',
        stage: 'data',
        sender: 'acme-main',
        team: 'acme',
        mailFrom: 'app@example.com',
        recipients: ['Ada+t1@example.com', 'bob@example.com'],
      }),
    );
    const stages = (filter: Parameters<typeof refusedSmtp>[1], afterMs: number | null = null) => refusedSmtp(log, filter, afterMs).listed.map((r) => r.stage);
    expect(stages({})).toEqual(['data', 'auth']);
    expect(stages({ recipient: 'ada+T1@example.com' })).toEqual(['data', 'auth']);
    expect(stages({ recipient: 'eve@example.com' })).toEqual(['auth']);
    expect(stages({ namespace: 't1' })).toEqual(['data', 'auth']);
    expect(stages({ namespace: 't2' })).toEqual(['auth']);
    expect(stages({ sender: 'acme-main' })).toEqual(['data']);
    expect(stages({ team: 'globex' })).toEqual([]);
    expect(stages({ since: new Date('2030-05-10T09:30:00.000Z') })).toEqual(['data']);
    expect(stages({}, Date.parse('2030-05-10T09:00:00.000Z'))).toEqual(['data']);
    expect(stages({ afterId: 'gone' }, null)).toEqual([]);
    expect(stages({ subject: 'anything', q: 'words' })).toEqual(['data', 'auth']);
    expect(stages({ source: 'smtp' })).toEqual(['data', 'auth']);
    expect(stages({ source: 'api' })).toEqual([]);
    expect(refusedSmtp(log, { sender: 'acme-main' }, null).listed).toEqual([
      {
        at: '2030-05-10T10:00:00.000Z',
        code: 552,
        kind: 'invalid',
        reason: '5.3.4 Message exceeds the size limit of 10 bytes',
        stage: 'data',
        sender: 'acme-main',
        mail_from: 'app@example.com',
        recipients: ['Ada+t1@example.com', 'bob@example.com'],
      },
    ]);
  });

  it('names each refusal by a kind of the refused sends, a client limit throttled', () => {
    const log = emptyLog();
    const kinds: [string | null, number, string][] = [
      ['auth_failed', 535, 'unauthorized'],
      ['auth_required', 530, 'unauthorized'],
      ['tls_required', 530, 'invalid'],
      ['daily_limit', 451, 'daily_limit'],
      ['recipients', 452, 'invalid'],
      ['fault', 550, 'fault'],
      ['storage', 452, 'error'],
      [null, 421, 'throttled'],
      [null, 451, 'error'],
    ];
    for (const [rejection, code] of kinds) log.noteSmtpRefusal(refusal({ rejection, code }));
    expect(
      refusedSmtp(log, {}, null)
        .listed.map((r) => r.kind)
        .reverse(),
    ).toEqual(kinds.map(([, , kind]) => kind));
  });

  it('keeps the first 100 recipients of a refusal: a session of 1,000 is not held whole 500 times', () => {
    const log = emptyLog();
    const many = Array.from({ length: 1000 }, (_, i) => `r${i}+bulk@example.com`);
    log.noteSmtpRefusal(refusal({ stage: 'data', recipients: many }));
    const [kept] = refusedSmtp(log, { namespace: 'bulk' }, null).listed;
    expect(kept!.recipients).toEqual(many.slice(0, SMTP_REFUSAL_RECIPIENTS));
    expect(SMTP_REFUSAL_RECIPIENTS).toBe(100);
  });

  it('keeps the newest 500, lists 10, and a reset of some senders forgets only theirs', async () => {
    const log = emptyLog();
    for (let i = 0; i < 505; i++) log.noteSmtpRefusal(refusal({ code: 400 + (i % 100), sender: i % 2 ? 'acme-main' : null }));
    const found = refusedSmtp(log, {}, null);
    expect(found.total).toBe(500);
    expect(found.listed).toHaveLength(10);
    expect(found.listed[0]!.code).toBe(404);
    await log.clear(new Set(['acme-main']));
    expect(refusedSmtp(log, {}, null).total).toBe(250);
    await log.clear();
    expect(refusedSmtp(log, {}, null).total).toBe(0);
  });
});

describe('smtpRefusalSentence', () => {
  it('names the newest three with stage, reply, recipients and time, and how many more', () => {
    const listed = ['connect', 'auth', 'mail', 'rcpt', 'data'].map((stage, i) => ({
      at: `2030-05-10T10:00:0${i}.000Z`,
      code: 421 + i,
      kind: 'error' as const,
      reason: `reply ${i}`,
      stage: stage as SmtpRefusal['stage'],
      sender: null,
      mail_from: null,
      recipients: i === 0 ? [] : ['a@example.com', 'b@example.com'],
    }));
    expect(smtpRefusalSentence({ total: 0, listed: [] })).toBe('');
    expect(smtpRefusalSentence({ total: 5, listed })).toBe(
      '5 SMTP commands that could have carried it were refused: 421 at the connection (reply 0) at 2030-05-10T10:00:00.000Z; ' +
        '422 at AUTH (reply 1) for a@example.com, b@example.com at 2030-05-10T10:00:01.000Z; ' +
        '423 at MAIL FROM (reply 2) for a@example.com, b@example.com at 2030-05-10T10:00:02.000Z; and 2 more.',
    );
  });
});
