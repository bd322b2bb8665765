import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

test.override('appOptions', {
  config: (c) => {
    c.delivery = { delay: '1h' };
    return c;
  },
});
test.override('apiKey', 'bulk-key');

/** The delivery status /v1 reports for a capture, asked with `v1`. */
const statusWith = (v1: ReturnType<typeof api>) => async (id: string) =>
  ((await read(await v1.get(`/v1/email/delivery/${id}/`))).body as { status: string }).status;

/** On the file's app: `status(id)` its delivery status, `send(recipient)` a /v1 send, its id. */
const it = test
  .extend('status', { scope: 'file' }, ({ v1 }) => statusWith(v1))
  .extend(
    'send',
    { scope: 'file' },
    ({ v1 }) =>
      async (recipient: string) =>
        ((await (await v1.post('/v1/email/send/', { recipient, subject: 's', body: 'b' })).json()) as { id: string }).id,
  );

/** Moves the app's sandbox clock forward; what falls due on the way has run when it resolves. */
const advance = async (url: string, duration: string) =>
  expect((await fetch(`${url}/api/clock/advance?duration=${duration}`, { method: 'POST' })).status).toBe(200);

// The delay runs on the sandbox clock (an hour that the tests move past), never on real time, so
// a slow machine cannot see an email delivered before the test looked at it.
describe('delivery lifecycle with a delay (docs/api-contract.md §6)', () => {
  it('starts pending and becomes delivered after the delay', async ({ app, status, send }) => {
    const id = await send('later@example.com');
    expect(await status(id)).toBe('pending');
    await advance(app.url, '59m');
    expect(await status(id)).toBe('pending');
    await advance(app.url, '1m');
    expect(await status(id)).toBe('delivered');
  });

  it('blocks a bounced recipient only once the bounce has happened', async ({ app, v1, status, send }) => {
    const id = await send('bounce+late@simulator.amazonses.com');
    expect(await status(id)).toBe('pending');
    const second = await read(await v1.post('/v1/email/send/', { recipient: 'bounce+late@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(Object.keys(second.body as object)).toEqual(['id']);
    await advance(app.url, '1h');
    expect(await status(id)).toBe('bounced');
    const third = await read(await v1.post('/v1/email/send/', { recipient: 'bounce+late@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(third.body).toMatchObject({ error: 'Recipient is blocked' });
    expect(await status((third.body as { id: string }).id)).toBe('failed');
  });

  it('settles pending emails whose time passed while the server was down', async ({ app, apps, status, send }) => {
    const id = await send('restart@example.com');
    expect(await status(id)).toBe('pending');
    // The file's app stops (this is the file's last test).
    await app.close();
    // The server comes back two hours later by its real-time source: the delay passed while it was down.
    const again = await apps.start({ dataDir: app.dataDir, now: () => Date.now() + 2 * 3_600_000, config: (c: any) => ({ ...c, delivery: { delay: '1h' } }) });
    expect(await statusWith(api(again.url, 'bulk-key'))(id)).toBe('delivered');
  });
});
