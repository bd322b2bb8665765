import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { smtpClient, trySend } from '../../support/smtp.ts';
import { test } from '../../support/fixtures.ts';

/** Fault rules for SMTP, added through the sandbox API and met by a real SMTP client. */

const mail = (to: string) => ({ from: 'app@example.com', to, subject: 'Fault test', text: 'body' });

/** On the file's app: `addRule(rule)` adds an SMTP fault rule (201), `rule(id)` reads one back. */
const it = test
  .extend('addRule', { scope: 'file' }, ({ app }) => async (rule: object) => {
    const res = await read(
      await fetch(`${app.url}/api/faults`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ target: 'smtp', ...rule }),
      }),
    );
    expect(res.status).toBe(201);
    return res.body as { id: string };
  })
  .extend(
    'rule',
    { scope: 'file' },
    ({ app }) =>
      async (id: string) =>
        (await read(await fetch(`${app.url}/api/faults/${id}`))).body as { fired: number; remaining: number | null },
  );

describe('SMTP fault injection', () => {
  it('answers the next N matching RCPTs with the rule reply, then lets mail through', async ({ app, addRule, rule }) => {
    const { id } = await addRule({
      match: { stage: 'rcpt', recipient: 'flaky@example.com' },
      action: { type: 'smtp_reply', code: 451, message: '4.3.0 Try again later' },
      times: 2,
    });
    const client = smtpClient(app.smtpPort);
    expect(await trySend(client, mail('flaky@example.com'))).toMatchObject({ ok: false, code: 451, response: '451 4.3.0 Try again later' });
    expect(await trySend(client, mail('other@example.com'))).toMatchObject({ ok: true });
    expect(await trySend(client, mail('flaky@example.com'))).toMatchObject({ ok: false, code: 451 });
    expect(await trySend(client, mail('flaky@example.com'))).toMatchObject({ ok: true });
    expect(await rule(id)).toMatchObject({ fired: 2, remaining: 0 });
    expect((await app.sandbox.messages.page({ recipient: 'flaky@example.com' }, 0, 10)).total).toBe(1);
  });

  it('matches the logged-in sender: a rule for one API key leaves anonymous mail alone', async ({ app, addRule, rule }) => {
    const { id } = await addRule({
      match: { stage: 'mail', sender: 'test-key' },
      action: { type: 'smtp_reply', code: 550, message: '5.7.1 Sender refused by a fault' },
      times: 1,
    });
    expect(await trySend(smtpClient(app.smtpPort), mail('anon@example.com'))).toMatchObject({ ok: true });
    const refused = await trySend(smtpClient(app.smtpPort, { user: 'u', pass: 'test-key' }), mail('keyed@example.com'));
    expect(refused).toMatchObject({ ok: false, code: 550, response: '550 5.7.1 Sender refused by a fault' });
    expect(await rule(id)).toMatchObject({ fired: 1, remaining: 0 });
  });

  it('drops the connection at DATA with no reply, and nothing is captured', async ({ app, addRule }) => {
    await addRule({ match: { stage: 'data', recipient: 'dropped@example.com' }, action: { type: 'drop' }, times: 1 });
    const before = app.sandbox.messages.count();
    const dropped = await trySend(smtpClient(app.smtpPort), mail('dropped@example.com'));
    expect(dropped.ok).toBe(false);
    // No SMTP reply code: the client saw the connection close, not a refusal.
    expect(dropped).toMatchObject({ code: undefined });
    expect(app.sandbox.messages.count()).toBe(before);
    // The server is still there for the next client.
    expect(await trySend(smtpClient(app.smtpPort), mail('dropped@example.com'))).toMatchObject({ ok: true });
  });

  it('holds a command for the rule delay, then goes on', async ({ app, addRule }) => {
    await addRule({ match: { stage: 'rcpt', recipient: 'slow@example.com' }, action: { type: 'delay', ms: 300 }, times: 1 });
    const started = process.hrtime.bigint();
    const sent = await trySend(smtpClient(app.smtpPort), mail('slow@example.com'));
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(sent).toMatchObject({ ok: true });
    // A lower bound only: the delay must have happened; how much longer the machine took is not asserted.
    expect(elapsedMs).toBeGreaterThanOrEqual(300);
  });
});
