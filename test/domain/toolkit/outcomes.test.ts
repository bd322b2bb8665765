import { describe, expect } from 'vitest';
import type { MessageRecord } from '../../../server/domain/entities.ts';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('apiKey', 'bulk-key');

/** Requests to the app at `url`: `send(recipient, key?)` a /v1 send, read; `call(method, path, body?)` a sandbox API request, read. */
const on = (url: string) => ({
  send: async (recipient: string, key = 'bulk-key') =>
    (await read(await api(url, key).post('/v1/email/send/', { recipient, subject: 's', body: 'b' }))).body as { id: string; error?: string },
  call: async (method: string, p: string, body?: unknown) =>
    read(
      await fetch(url + p, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    ),
});

/** `send` and `call` on the file's app; `status(id)` the delivery status /v1 reports. */
const it = test
  .extend('send', { scope: 'file' }, ({ app }) => on(app.url).send)
  .extend('call', { scope: 'file' }, ({ app }) => on(app.url).call)
  .extend(
    'status',
    { scope: 'file' },
    ({ v1 }) =>
      async (id: string) =>
        ((await read(await v1.get(`/v1/email/delivery/${id}/`))).body as { status: string }).status,
  );

describe('POST /api/messages/:id/status', () => {
  it('forces each outcome, seen by /v1 and announced as message.status', async ({ app, send, call, status }) => {
    const { id } = await send('force@example.com');
    const seen: string[] = [];
    const listener = (r: MessageRecord) => seen.push(`${r.id}:${r.status}`);
    app.sandbox.events.on('message.status', listener);
    for (const outcome of ['failed', 'delivered'] as const) {
      const res = await call('POST', `/api/messages/${id}/status`, { status: outcome });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: outcome });
      expect(await status(id)).toBe(outcome);
    }
    app.sandbox.events.off('message.status', listener);
    expect(seen).toEqual([`${id}:failed`, `${id}:delivered`]);
  });

  it('a forced bounce or complaint blocks the original recipient for later sends (docs/api-contract.md §6)', async ({ send, call, status }) => {
    for (const outcome of ['bounced', 'complained']) {
      const address = `${outcome}@example.com`;
      const { id } = await send(address);
      await call('POST', `/api/messages/${id}/status`, { status: outcome });
      expect(await status(id)).toBe(outcome);
      const again = await send(address);
      expect(again.error).toBe('Recipient is blocked');
      expect(await status(again.id)).toBe('failed');
    }
    const blocks = (await call('GET', '/api/blocks?team=acme')).body as { blocks: { email: string; reason: string }[] };
    expect(blocks.blocks.filter((b) => /^(bounced|complained)@/.test(b.email)).map((b) => b.reason)).toEqual(['bounce', 'complaint']);
  });

  it('a bounce forced on a Development Mode capture blocks the address the sender asked for', async ({ send, call }) => {
    const { id } = await send('wanted@example.com', 'dev-key');
    await call('POST', `/api/messages/${id}/status`, { status: 'bounced' });
    expect((await send('wanted@example.com')).error).toBe('Recipient is blocked');
    expect((await send('dev-inbox@example.com')).error).toBeUndefined();
  });

  it('refuses an unknown id or status with a JSON error', async ({ send, call }) => {
    const { id } = await send('bad-status@example.com');
    for (const body of [{}, { status: 'pending' }, { status: 'lost' }, { status: 3 }]) {
      const res = await call('POST', `/api/messages/${id}/status`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: typeof body.status === 'number' ? 'status must be a string.' : 'status must be one of delivered, bounced, complained, failed.',
      });
    }
    expect((await call('POST', '/api/messages/nope/status', { status: 'delivered' })).body).toEqual({ detail: 'Not found.' });
  });
});

describe('SES simulator addresses (docs/api-contract.md §6)', () => {
  it('give their outcomes, +label forms too, and a bounce or complaint blocks the address', async ({ send, status }) => {
    const cases: [string, string][] = [
      ['success@simulator.amazonses.com', 'delivered'],
      ['bounce+t1@simulator.amazonses.com', 'bounced'],
      ['complaint@simulator.amazonses.com', 'complained'],
      ['suppressionlist@simulator.amazonses.com', 'bounced'],
    ];
    for (const [address, outcome] of cases) expect(await status((await send(address)).id), address).toBe(outcome);
    expect((await send('success@simulator.amazonses.com')).error).toBeUndefined();
    for (const address of ['bounce+t1@simulator.amazonses.com', 'complaint@simulator.amazonses.com', 'suppressionlist@simulator.amazonses.com']) {
      expect((await send(address)).error, address).toBe('Recipient is blocked');
    }
  });
});

describe('/api/blocks', () => {
  it('blocks and unblocks a recipient for a team', async ({ send, call }) => {
    const created = await call('POST', '/api/blocks', { team: 'acme', email: 'Manual@Example.com' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ team: 'acme', email: 'Manual@Example.com', reason: 'manual' });
    expect((await call('POST', '/api/blocks', { team: 'acme', email: 'manual@example.com' })).status).toBe(200);
    expect((await send('manual@example.com')).error).toBe('Recipient is blocked');
    expect((await call('DELETE', '/api/blocks?team=acme&email=MANUAL@example.com')).status).toBe(204);
    expect((await send('manual@example.com')).error).toBeUndefined();
    const again = await call('DELETE', '/api/blocks', { team: 'acme', email: 'manual@example.com' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ detail: 'Not found.' });
  });

  it('lifts a configured block until a reset restores the fixtures, across a restart', async ({ apps }) => {
    // An app of its own, restarted in the middle.
    const first = await apps.start();
    let { send, call } = on(first.url);
    const listed = (await call('GET', '/api/blocks?team=acme')).body as { blocks: { email: string; reason: string }[] };
    expect(listed.blocks[0]).toEqual({ team: 'acme', email: 'blocked@example.com', reason: 'config', created_at: null });
    expect((await call('DELETE', '/api/blocks?team=acme&email=blocked@example.com')).status).toBe(204);
    expect((await send('blocked@example.com')).error).toBeUndefined();
    await first.close();
    const again = await apps.start({ dataDir: first.dataDir });
    ({ send, call } = on(again.url));
    expect((await send('blocked@example.com')).error).toBeUndefined();
    await call('POST', '/api/reset', { team: 'acme' });
    expect((await send('blocked@example.com')).error).toBe('Recipient is blocked');
  });

  it('refuses a missing or bad team or email', async ({ call }) => {
    for (const [body, message] of [
      [{ email: 'a@example.com' }, 'team is required.'],
      [{ team: 'nope', email: 'a@example.com' }, 'team "nope" is not a configured team.'],
      [{ team: 'acme' }, 'email must be a valid email address.'],
      [{ team: 'acme', email: 'not-an-address' }, 'email must be a valid email address.'],
    ] as const) {
      const res = await call('POST', '/api/blocks', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: message });
    }
    expect((await call('GET', '/api/blocks?team=nope')).status).toBe(400);
  });
});
