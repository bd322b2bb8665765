import { describe, expect } from 'vitest';
import { Directory } from '../../../server/domain/directory/directory.ts';
import { SandboxClock } from '../../../server/domain/time/clock.ts';
import { Faults } from '../../../server/domain/toolkit/faults.ts';
import { loadSandboxConfig, parseSandboxConfig } from '../../../server/domain/directory/sandbox-config.ts';
import { SAMPLE_CONFIG } from '../../../server/config.ts';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('appOptions', {
  config: (c) => ({
    ...c,
    faults: [{ id: 'slow-list', target: 'http', match: { route: '/v1/email/list/', sender: 'dev-key' }, action: { type: 'delay', ms: 1 } }],
  }),
});

/** On the file's app: `addFault(rule)` adds a rule (read), `removeFault(id)` removes one, `sendStatus(recipient?, key?)` the status of a /v1 send. */
const it = test
  .extend(
    'addFault',
    { scope: 'file' },
    ({ app }) =>
      async (rule: unknown) =>
        read(await fetch(`${app.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rule) })),
  )
  .extend(
    'removeFault',
    { scope: 'file' },
    ({ app }) =>
      (id: string) =>
        fetch(`${app.url}/api/faults/${id}`, { method: 'DELETE' }),
  )
  .extend(
    'sendStatus',
    { scope: 'file' },
    ({ app }) =>
      async (recipient = 'fault@example.com', key = 'bulk-key') =>
        (await api(app.url, key).post('/v1/email/send/', { recipient, subject: 's', body: 'b' })).status,
  );

describe('fault injection on /v1', () => {
  it('fires exactly the next N matching requests with the contract body, then lets requests through', async ({ app, addFault, removeFault, sendStatus }) => {
    const added = await addFault({ id: 'two-503', target: 'http', match: { route: '/v1/email/send/' }, action: { type: 'status', status: 503 }, times: 2 });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: 'two-503', source: 'api', remaining: 2, fired: 0 });
    const first = await read(await api(app.url, 'bulk-key').post('/v1/email/send/', { recipient: 'a@example.com', subject: 's', body: 'b' }));
    expect(first.status).toBe(503);
    expect(first.text).toBe('{"detail":"Service temporarily unavailable, try again later."}');
    expect([await sendStatus(), await sendStatus(), await sendStatus()]).toEqual([503, 200, 200]);
    expect((await read(await fetch(`${app.url}/api/faults/two-503`))).body).toMatchObject({ fired: 2, remaining: 0, matched: 2 });
    await removeFault('two-503');
  });

  it("answers 429 with the daily-limit body of the key's sender and 500 with the contract body", async ({ v1, addFault }) => {
    await addFault({ id: 'limit', target: 'http', match: { route: '/v1/email/*', sender: 'test-key' }, action: { type: 'status', status: 429 }, times: 1 });
    const limited = await read(await v1.get('/v1/email/list/'));
    expect(limited.status).toBe(429);
    expect(limited.text).toBe('{"error":"Daily limit of 100 emails has been reached"}');
    await addFault({ id: 'boom', target: 'http', match: { method: 'GET', recipient: '*@boom.example' }, action: { type: 'status', status: 500 }, times: 1 });
    const boom = await read(await v1.get('/v1/email/list/?recipient=x@BOOM.example'));
    expect(boom.status).toBe(500);
    expect(boom.text).toBe('{"detail":"Internal server error."}');
    expect((await v1.get('/v1/email/list/?recipient=x@boom.example')).status).toBe(200);
  });

  it('matches the recipient in the body by glob or regex and the sender by key or id', async ({ addFault, removeFault, sendStatus }) => {
    await addFault({ id: 'regex', target: 'http', match: { recipient: '/^vip\\+\\d+@/i', sender: 'acme-bulk' }, action: { type: 'status', status: 500 } });
    expect(await sendStatus('vip+1@example.com')).toBe(500);
    expect(await sendStatus('VIP+22@example.com')).toBe(500);
    expect(await sendStatus('vip+x@example.com')).toBe(200);
    expect(await sendStatus('vip+1@example.com', 'test-key')).toBe(200);
    await removeFault('regex');
    expect(await sendStatus('vip+1@example.com')).toBe(200);
  });

  it('runs after authentication: a bad key is 401 and does not use up a fire', async ({ app, v1, addFault }) => {
    await addFault({ id: 'any', target: 'http', action: { type: 'status', status: 503 }, times: 1 });
    const unauthenticated = await read(await api(app.url, 'wrong').get('/v1/email/list/'));
    expect(unauthenticated.status).toBe(401);
    expect((await read(await fetch(`${app.url}/api/faults/any`))).body).toMatchObject({ matched: 0, fired: 0, remaining: 1 });
    expect((await v1.get('/v1/recipients/')).status).toBe(503);
  });

  it('drops the connection without an answer', async ({ v1, addFault }) => {
    await addFault({ id: 'drop', target: 'http', match: { route: '/v1/recipients/' }, action: { type: 'drop' }, times: 1 });
    await expect(v1.get('/v1/recipients/')).rejects.toThrow();
    expect((await v1.get('/v1/recipients/')).status).toBe(200);
  });

  it('delays a request, then answers it normally', async ({ v1, addFault }) => {
    await addFault({ id: 'slow', target: 'http', match: { route: '/v1/email/list/' }, action: { type: 'delay', ms: 300 }, times: 1 });
    const started = performance.now();
    expect((await v1.get('/v1/email/list/')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });

  it('repeats the same pattern of fires for the same seed', async ({ addFault, removeFault, sendStatus }) => {
    const run = async (seed: number) => {
      await addFault({ id: 'coin', target: 'http', match: { route: '/v1/email/send/' }, action: { type: 'status', status: 500 }, probability: 0.5, seed });
      const pattern: number[] = [];
      for (let i = 0; i < 24; i++) pattern.push(await sendStatus());
      await removeFault('coin');
      return pattern.map((s) => (s === 500 ? 'x' : '.')).join('');
    };
    const first = await run(42);
    expect(await run(42)).toBe(first);
    expect(first).toMatch(/x/);
    expect(first).toMatch(/\./);
    expect(await run(7)).not.toBe(first);
  });

  it('chooses and shows a seed when none is given', async ({ addFault, removeFault }) => {
    const added = await addFault({ id: 'unseeded', target: 'http', action: { type: 'delay', ms: 0 }, probability: 0 });
    expect(typeof (added.body as { seed: number }).seed).toBe('number');
    await removeFault('unseeded');
  });

  it('lists configured rules, and refuses invalid rules with a JSON 400', async ({ app, addFault, removeFault }) => {
    const listed = (await read(await fetch(`${app.url}/api/faults`))).body as { faults: { id: string; source: string; match: { sender?: string } }[] };
    expect(listed.faults[0]).toMatchObject({ id: 'slow-list', source: 'config', match: { sender: 'acme-dev' } });
    const bad: [unknown, string][] = [
      [{ target: 'http', action: { type: 'smtp_reply', code: 451, message: 'x' } }, 'action.type: smtp_reply is for smtp rules'],
      [{ target: 'smtp', action: { type: 'status', status: 503 } }, 'action.type: status is for http rules (use smtp_reply)'],
      [{ target: 'http', action: { type: 'status', status: 404 } }, 'action.status: must be 429, 500 or 503'],
      [{ target: 'http', action: { type: 'explode' } }, 'action.type: must be status, delay, drop, smtp_reply or rate_limit'],
      [{ target: 'http', match: { recipient: '/[/' }, action: { type: 'drop' } }, 'match.recipient: not a valid /regular expression/'],
      [{ target: 'http', match: { sender: 'nobody' }, action: { type: 'drop' } }, 'match.sender: "nobody" is neither a sender id nor an API key'],
      [{ target: 'http', action: { type: 'drop' }, probability: 2 }, 'probability: Too big: expected number to be <=1'],
      [{ id: 'slow-list', target: 'http', action: { type: 'drop' } }, 'id: a fault with id "slow-list" exists'],
    ];
    for (const [rule, message] of bad) {
      const res = await addFault(rule);
      expect(res.status, message).toBe(400);
      expect(res.body, message).toEqual({ detail: message });
    }
    const notJson = await read(await fetch(`${app.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' }));
    expect(notJson.status).toBe(400);
    expect(Object.keys(notJson.body as object)).toEqual(['detail']);
    const list = await read(await fetch(`${app.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[1]' }));
    expect(list.status).toBe(400);
    expect(list.body).toEqual({ detail: 'The body must be a JSON object.' });
    expect((await read(await fetch(`${app.url}/api/faults/nope`))).body).toEqual({ detail: 'Not found.' });
    expect((await removeFault('nope')).status).toBe(404);
  });

  it('DELETE /api/faults removes every rule', async ({ app }) => {
    expect((await fetch(`${app.url}/api/faults`, { method: 'DELETE' })).status).toBe(204);
    expect((await read(await fetch(`${app.url}/api/faults`))).body).toEqual({ faults: [] });
  });
});

describe('fault matching for SMTP (domain; the SMTP server calls matchSmtp)', () => {
  const faults = () => new Faults(new Directory(loadSandboxConfig(SAMPLE_CONFIG)), [], new SandboxClock());

  it('answers by stage, recipient and sender, N times', () => {
    const f = faults();
    f.add({
      id: 'greylist',
      target: 'smtp',
      match: { stage: 'rcpt', recipient: '*@greylist.example' },
      action: { type: 'smtp_reply', code: 451, message: '4.7.1 Try again later' },
      times: 2,
    });
    f.add({ target: 'smtp', match: { stage: 'auth', sender: 'test-key' }, action: { type: 'smtp_reply', code: 535, message: '5.7.8 Authentication failed' } });
    expect(f.matchSmtp({ stage: 'mail', recipient: 'a@greylist.example' })).toBeNull();
    expect(f.matchSmtp({ stage: 'rcpt', recipient: 'a@other.example' })).toBeNull();
    expect(f.matchSmtp({ stage: 'rcpt', recipient: 'a@greylist.example' })).toEqual({
      type: 'smtp_reply',
      code: 451,
      message: '4.7.1 Try again later',
      rule: 'greylist',
    });
    expect(f.matchSmtp({ stage: 'rcpt', recipient: 'b@greylist.example' })).not.toBeNull();
    expect(f.matchSmtp({ stage: 'rcpt', recipient: 'c@greylist.example' })).toBeNull();
    expect(f.matchSmtp({ stage: 'auth', sender: 'acme-bulk' })).toBeNull();
    expect(f.matchSmtp({ stage: 'auth', sender: 'acme-main' })).toMatchObject({ code: 535 });
    expect(f.matchHttp({ route: '/v1/email/send/', method: 'POST', sender: 'acme-main' })).toBeNull();
  });

  it('drops and delays at any stage, and tells listeners (metrics) of each injection', () => {
    const f = faults();
    const seen: string[] = [];
    f.onInjected((i) => seen.push(`${i.target}:${i.rule.id}`));
    f.add({ id: 'cut', target: 'smtp', match: { stage: 'data' }, action: { type: 'drop' } });
    f.add({ id: 'lag', target: 'smtp', match: { stage: 'connect' }, action: { type: 'delay', ms: 50 } });
    expect(f.matchSmtp({ stage: 'data' })).toEqual({ type: 'drop', rule: 'cut' });
    expect(f.matchSmtp({ stage: 'connect' })).toEqual({ type: 'delay', ms: 50, rule: 'lag' });
    expect(seen).toEqual(['smtp:cut', 'smtp:lag']);
  });

  it('gives rules free ids, and a reset brings configured rules back even over an API rule with their id', () => {
    const config = parseSandboxConfig(
      { ...structuredClone(loadSandboxConfig(SAMPLE_CONFIG)), faults: [{ id: 'fixed', target: 'smtp', action: { type: 'drop' } }] },
      'x.json',
    );
    const f = new Faults(new Directory(config), config.faults, new SandboxClock());
    f.add({ id: 'fault-1', target: 'http', action: { type: 'drop' } });
    expect(f.add({ target: 'http', action: { type: 'drop' } }).id).toBe('fault-2');
    f.reset({ restoreConfigured: false });
    f.add({ id: 'fixed', target: 'http', action: { type: 'delay', ms: 1 } });
    f.reset({ restoreConfigured: true });
    expect(f.list()).toMatchObject([{ id: 'fixed', source: 'config', target: 'smtp' }]);
  });

  it('takes rules from the configuration file, validated with the rest', () => {
    const sample = loadSandboxConfig(SAMPLE_CONFIG);
    const config = parseSandboxConfig(
      {
        ...structuredClone(sample),
        faults: [{ target: 'smtp', match: { stage: 'rcpt' }, action: { type: 'smtp_reply', code: 550, message: 'No such user' } }],
      },
      'x.json',
    );
    const f = new Faults(new Directory(config), config.faults, new SandboxClock());
    expect(f.list()).toMatchObject([{ id: 'config-1', source: 'config' }]);
    expect(() =>
      parseSandboxConfig({ ...structuredClone(sample), faults: [{ target: 'smtp', match: { sender: 'ghost' }, action: { type: 'drop' } }] }, 'x.json'),
    ).toThrow('Invalid configuration file x.json:\n  faults[0].match.sender: no sender has id or apiKey "ghost"');
    expect(() =>
      parseSandboxConfig({ ...structuredClone(sample), faults: [{ target: 'http', match: { stage: 'rcpt' }, action: { type: 'drop' } }] }, 'x.json'),
    ).toThrow('faults[0].match.stage: stage is for smtp rules');
  });
});
