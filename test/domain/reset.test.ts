import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { api, read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';

/** A second team with flows, so a team reset can be seen to leave the other team alone. */
test.override('appOptions', {
  config: (c) => {
    c.teams.push({
      ...structuredClone(c.teams[0]!),
      id: 'initech',
      name: 'Initech',
      blockedRecipients: ['fixture@initech.example'],
      senders: [{ ...c.teams[0]!.senders[2]!, id: 'initech-main', apiKey: 'initech-key' }],
    });
    return { ...c, faults: [{ id: 'configured', target: 'http', match: { route: '/v1/nothing/' }, action: { type: 'drop' } }] };
  },
});

/**
 * On the file's app: `post(path, body)` a JSON POST, read; `get(path)` a GET's JSON body;
 * `populate(key, domain)` every kind of state a test run leaves: captures with files,
 * recipients, subscriptions, blocks, counters, log, faults.
 */
const it = test
  .extend(
    'post',
    { scope: 'file' },
    ({ app }) =>
      async (p: string, body: unknown) =>
        read(await fetch(app.url + p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) })),
  )
  .extend('populate', { scope: 'file' }, ({ app, post }) => async (key: string, domain: string) => {
    const v1 = api(app.url, key);
    const form = new FormData();
    form.set('recipient', `files@${domain}`);
    form.set('subject', 'With a file');
    form.set('body', '<p>x</p>');
    form.set('plain_body', 'x');
    form.append('attachment', new Blob(['data']), 'a.txt');
    expect((await v1.multipart('/v1/email/send/', form)).status).toBe(200);
    await v1.post('/v1/email/send/', { recipient: 'bounce@simulator.amazonses.com', subject: 'b', body: 'b', flags: 'x' });
    await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: `flow@${domain}` });
    await v1.post('/v1/recipients/', { email: `r@${domain}` });
    await post('/api/blocks', { team: key === 'bulk-key' ? 'acme' : 'initech', email: `manual@${domain}` });
    await post('/api/faults', { target: 'http', match: { sender: key }, action: { type: 'delay', ms: 0 } });
  });

const files = async (dir: string): Promise<string[]> => {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) out.push(...(e.isDirectory() ? await files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
  return out;
};

describe('POST /api/reset', () => {
  it("for one team removes only that team's state", async ({ post, get, populate }) => {
    await populate('bulk-key', 'acme.test');
    await populate('initech-key', 'initech.test');
    const res = await post('/api/reset', { team: 'initech' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      team: 'initech',
      namespace: null,
      restore_fixtures: true,
      removed: { subscriptions: 0, messages: 2, recipients: 3, blocks: 2, daily_counters: 1, requests: 4, faults: 1, clock: 0 },
    });
    const { messages } = await get('/api/messages?limit=500');
    expect(new Set(messages.map((m: { team: string }) => m.team))).toEqual(new Set(['acme']));
    expect((await get('/api/blocks?team=initech')).blocks).toEqual([{ team: 'initech', email: 'fixture@initech.example', reason: 'config', created_at: null }]);
    expect((await get('/api/blocks?team=acme')).blocks.length).toBe(3);
    expect((await get('/api/requests?team=initech')).total).toBe(0);
    expect((await get('/api/requests?team=acme')).total).toBe(4);
    expect((await get('/api/faults')).faults.map((f: { source: string }) => f.source)).toEqual(['config', 'api']);
  });

  it('for everything leaves nothing behind: store empty, no capture files, fixtures back', async ({ app, v1, post, get, populate }) => {
    await populate('initech-key', 'initech.test');
    expect(app.store.subscriptions.size).toBe(1);
    expect((await post('/api/clock/advance', { duration: '3d' })).body).toMatchObject({ real_time: false });
    const res = await post('/api/reset', {});
    expect(res.body).toMatchObject({ team: null, restore_fixtures: true, removed: { subscriptions: 1, clock: 1 } });
    expect(await get('/api/clock')).toMatchObject({ offset_ms: 0, real_time: true });
    const store = app.store;
    expect([store.messages.index.size, store.recipients.size, store.subscriptions.size, store.requests.size]).toEqual([0, 0, 0, 0]);
    expect(store.blocked.blocks).toEqual([]);
    expect(JSON.parse(await readFile(path.join(app.dataDir, 'meta.json'), 'utf8')).daily.bySender).toEqual({});
    for (const dir of ['messages', 'recipients', 'subscriptions', 'requests', 'packs']) expect(await files(path.join(app.dataDir, dir)), dir).toEqual([]);
    expect((await get('/api/blocks')).blocks.map((b: { email: string }) => b.email)).toEqual(['blocked@example.com', 'fixture@initech.example']);
    expect((await get('/api/faults')).faults).toMatchObject([{ id: 'configured', source: 'config', fired: 0 }]);
    // Counters start again: the daily limit allows a full day's sends.
    expect((await read(await v1.post('/v1/email/send/', { recipient: 'blocked@example.com', subject: 's', body: 'b' }))).body).toMatchObject({
      error: 'Recipient is blocked',
    });
  });

  it('with restore_fixtures false also lifts configured blocks and rules', async ({ v1, post, get }) => {
    const res = await post('/api/reset', { restore_fixtures: false });
    expect(res.body).toMatchObject({ restore_fixtures: false, removed: { blocks: 2, faults: 1, messages: 1 } });
    expect((await get('/api/blocks')).blocks).toEqual([]);
    expect((await get('/api/faults')).faults).toEqual([]);
    expect((await read(await v1.post('/v1/email/send/', { recipient: 'blocked@example.com', subject: 's', body: 'b' }))).body).not.toHaveProperty('error');
    await post('/api/reset', { restore_fixtures: 'true' });
    expect((await get('/api/blocks')).blocks.length).toBe(2);
  });

  it('announces itself as a domain event and refuses bad input with a JSON 400', async ({ app, post }) => {
    const seen: unknown[] = [];
    app.sandbox.events.once('sandbox.reset', (e) => seen.push(e));
    await post('/api/reset', { team: 'acme' });
    expect(seen).toEqual([{ team: 'acme', namespace: null, removed: expect.objectContaining({ messages: 0 }) }]);
    const bare = await read(await fetch(`${app.url}/api/reset`, { method: 'POST' }));
    expect(bare.body).toMatchObject({ team: null, restore_fixtures: true });
    for (const [body, message] of [
      [{ team: 'nope' }, 'team "nope" is not a configured team.'],
      [{ team: 5 }, 'team must be a string.'],
      [{ restore_fixtures: 'maybe' }, 'restore_fixtures must be true or false.'],
      [{ tema: 'acme' }, 'Unknown field "tema" (this route takes team, namespace, restore_fixtures).'],
      [{ team: 'acme', all: true, force: 1 }, 'Unknown fields "all", "force" (this route takes team, namespace, restore_fixtures).'],
      [{ namespace: 'a.b' }, 'namespace must be 1 to 64 letters, digits, "-" or "_".'],
    ] as const) {
      const res = await post('/api/reset', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: message });
    }
  });
});
