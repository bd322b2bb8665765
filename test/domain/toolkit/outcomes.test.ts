import { describe, expect, it } from 'vitest';
import type { MessageRecord } from '../../../server/domain/entities.ts';
import { api, read, useApp } from '../../support/app.ts';

const app = useApp({}, 'bulk-key');

const send = async (recipient: string, key = 'bulk-key') =>
  (await read(await api(app.url, key).post('/v1/email/send/', { recipient, subject: 's', body: 'b' }))).body as { id: string; error?: string };
const status = async (id: string) => ((await read(await app.v1.get(`/v1/email/delivery/${id}/`))).body as { status: string }).status;
const call = async (method: string, p: string, body?: unknown) =>
  read(await fetch(app.url + p, { method, headers: body === undefined ? {} : { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }));

describe('POST /api/messages/:id/status', () => {
  it('forces each outcome, seen by /v1 and announced as message.status', async () => {
    const { id } = await send('force@example.com');
    const seen: string[] = [];
    const listener = (r: MessageRecord) => seen.push(`${r.id}:${r.status}`);
    app.server.sandbox.events.on('message.status', listener);
    for (const outcome of ['failed', 'delivered'] as const) {
      const res = await call('POST', `/api/messages/${id}/status`, { status: outcome });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, status: outcome });
      expect(await status(id)).toBe(outcome);
    }
    app.server.sandbox.events.off('message.status', listener);
    expect(seen).toEqual([`${id}:failed`, `${id}:delivered`]);
  });

  it('a forced bounce or complaint blocks the original recipient for later sends (docs/api-contract.md §6)', async () => {
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

  it('a bounce forced on a Development Mode capture blocks the address the sender asked for', async () => {
    const { id } = await send('wanted@example.com', 'dev-key');
    await call('POST', `/api/messages/${id}/status`, { status: 'bounced' });
    expect((await send('wanted@example.com')).error).toBe('Recipient is blocked');
    expect((await send('dev-inbox@example.com')).error).toBeUndefined();
  });

  it('refuses an unknown id or status with a JSON error', async () => {
    const { id } = await send('bad-status@example.com');
    for (const body of [{}, { status: 'pending' }, { status: 'lost' }, { status: 3 }]) {
      const res = await call('POST', `/api/messages/${id}/status`, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: typeof body.status === 'number' ? 'status must be a string.' : 'status must be one of delivered, bounced, complained, failed.' });
    }
    expect((await call('POST', '/api/messages/nope/status', { status: 'delivered' })).body).toEqual({ detail: 'Not found.' });
  });
});

describe('SES simulator addresses (docs/api-contract.md §6)', () => {
  it('give their outcomes, +label forms too, and a bounce or complaint blocks the address', async () => {
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
  it('blocks and unblocks a recipient for a team', async () => {
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

  it('lifts a configured block until a reset restores the fixtures, across a restart', async () => {
    const listed = (await call('GET', '/api/blocks?team=acme')).body as { blocks: { email: string; reason: string }[] };
    expect(listed.blocks[0]).toEqual({ team: 'acme', email: 'blocked@example.com', reason: 'config', created_at: null });
    expect((await call('DELETE', '/api/blocks?team=acme&email=blocked@example.com')).status).toBe(204);
    expect((await send('blocked@example.com')).error).toBeUndefined();
    await app.server.close();
    const { startApp } = await import('../../support/app.ts');
    app.server = await startApp({ dataDir: app.server.dataDir });
    app.url = app.server.url;
    app.v1 = api(app.url, 'bulk-key');
    expect((await send('blocked@example.com')).error).toBeUndefined();
    await call('POST', '/api/reset', { team: 'acme' });
    expect((await send('blocked@example.com')).error).toBe('Recipient is blocked');
  });

  it('refuses a missing or bad team or email', async () => {
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
