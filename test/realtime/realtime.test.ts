import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { api, read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { connectEvents } from '../support/ws.ts';

let now = Date.parse('2026-03-02T10:00:00Z');
test.override('appOptions', { now: () => now, config: (sample: any) => ({ ...sample, delivery: { delay: '1h' } }) });
/** `get(path)`: the JSON body of a sandbox API GET; `call(method, path, body?)`: any sandbox API request. */
const it = test.extend(
  'call',
  { scope: 'file' },
  ({ app }) =>
    (method: string, path: string, body?: unknown) =>
      fetch(app.url + path, {
        method,
        headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
);

describe('WebSocket /api/events', () => {
  it('greets every client with hello, again after a reconnect', async ({ app, v1 }) => {
    await v1.post('/v1/email/send/', { recipient: 'hello@example.com', subject: 'before', body: 'b' });
    const first = await connectEvents(app.wsUrl);
    expect(first.frames[0] ?? (await first.next('hello'))).toEqual({
      type: 'hello',
      data: { server_time: '2026-03-02T10:00:00Z', total: 1, smtp_port: app.smtpPort },
    });
    await first.close();
    const again = await connectEvents(app.wsUrl);
    expect(await again.next('hello')).toEqual({ type: 'hello', data: { server_time: '2026-03-02T10:00:00Z', total: 1, smtp_port: app.smtpPort } });
    await again.close();
  });

  it('pushes each frame type with the sandbox API shape of its thing', async ({ app, v1, get, call }) => {
    const client = await connectEvents(app.wsUrl);
    await client.next('hello');

    const { id } = (await read(await v1.post('/v1/email/send/', { recipient: 'live@example.com', subject: 'Live', body: '<p>Hi</p>' }))).body as any;
    const created = await client.next('message.created');
    expect(created.data).toEqual((await get('/api/messages?limit=1')).messages[0]);
    expect(created.data).toMatchObject({ id, subject: 'Live', status: 'pending' });
    const recipient = await client.next('recipient.changed');
    expect(recipient.data).toEqual((await get('/api/recipients?q=live@example.com')).recipients[0]);

    now += 2 * 3600_000;
    await get(`/api/messages/${id}`);
    expect((await client.next('message.status')).data).toMatchObject({ id, status: 'delivered' });

    await call('PATCH', `/api/messages/${id}`, { read: true });
    expect((await client.next('message.updated')).data).toMatchObject({ id, read: true });

    await call('DELETE', `/api/messages/${id}`);
    expect((await client.next('message.deleted')).data).toEqual({ ids: [id] });

    await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com' });
    const subscription = (await client.next('subscription.changed')).data;
    expect(subscription).toMatchObject({
      team: 'acme',
      trigger: 'WELCOME_SIGNUP',
      flow_name: 'Welcome Signup Flow',
      email: 'flow@example.com',
      status: 'active',
      current_step_order: 1,
    });
    await v1.request('DELETE', '/v1/flows/subscriptions/?email=flow@example.com&flow_trigger=WELCOME_SIGNUP');
    expect((await client.next('subscription.removed')).data).toEqual({ id: subscription.id });

    const total = (await get('/api/messages?limit=1')).total;
    await call('DELETE', '/api/messages');
    expect((await client.next('message.cleared')).data).toEqual({ count: total });
    await client.close();
  });

  it('subscribes to nothing while no client is connected', async ({ app }) => {
    const events = app.sandbox.events;
    const idle = events.listenerCount('message.created');
    const client = await connectEvents(app.wsUrl);
    expect(events.listenerCount('message.created')).toBe(idle + 1);
    await client.close();
    await expect.poll(() => events.listenerCount('message.created')).toBe(idle);
    expect(app.realtime.clients).toBe(0);
  });

  it('refuses other upgrade paths with a 404', async ({ app }) => {
    const ws = new WebSocket(`${app.url.replace('http', 'ws')}/api/other`);
    const error = await new Promise<Error>((resolve) => ws.once('error', resolve));
    expect(error.message).toBe('Unexpected server response: 404');
  });
});

describe('heartbeat and slow clients', () => {
  it('cuts a client that stops answering pings and keeps one that answers', async ({ apps }) => {
    const server = await apps.start({ realtime: { heartbeatMs: 50 } });
    const healthy = await connectEvents(server.wsUrl);
    const dead = await connectEvents(server.wsUrl, { autoPong: false });
    expect((await dead.closed).code).toBe(1006);
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    expect(server.realtime.clients).toBe(1);
    await healthy.close();
  });

  it('drops a client that does not read instead of buffering for it, while others keep receiving', async ({ apps }) => {
    const server = await apps.start({ realtime: { maxBufferedBytes: 256 * 1024 } });
    await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: 'x@example.com', subject: 'x'.repeat(400), body: 'b' });
    const record = (await server.sandbox.messages.page({}, 0, 1)).items[0]!;
    const fast = await connectEvents(server.wsUrl);
    const slow = await connectEvents(server.wsUrl);
    (slow.ws as any)._socket.pause();
    let sent = 0;
    while (server.realtime.clients === 2 && sent < 200_000) {
      for (let i = 0; i < 50; i++) server.sandbox.events.emit('message.updated', record);
      sent += 50;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(server.realtime.clients).toBe(1);
    server.sandbox.events.emit('message.cleared', 424242);
    await expect.poll(() => fast.frames.filter((f) => f.type === 'message.cleared').map((f) => f.data.count)).toContain(424242);
    expect(fast.frames.filter((f) => f.type === 'message.updated').length).toBe(sent);
    await fast.close();
  });

  it('reports the number of connected clients as it changes (the metrics seam)', async ({ apps }) => {
    const counts: number[] = [];
    const server = await apps.start({ realtime: { onClients: (count) => void counts.push(count) } });
    const a = await connectEvents(server.wsUrl);
    const b = await connectEvents(server.wsUrl);
    await a.close();
    await b.close();
    await expect.poll(() => counts.length).toBe(4);
    expect(counts).toEqual([1, 2, 1, 0]);
  });

  it('closes every client with 1001 on shutdown', async ({ apps }) => {
    const server = await apps.start();
    const client = await connectEvents(server.wsUrl);
    await server.close();
    expect(await client.closed).toEqual({ code: 1001, reason: 'Server is shutting down' });
  });
});
