import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, read, startApp, type TestServer } from '../../support/app.ts';
import { waitFor } from '../../support/poll.ts';

let server: TestServer;
let v1: ReturnType<typeof api>;
beforeAll(async () => {
  server = await startApp({
    config: (c) => {
      c.delivery = { delay: '300ms' };
      return c;
    },
  });
  v1 = api(server.url, 'bulk-key');
});
afterAll(() => server.destroy());

const status = async (id: string) => ((await read(await v1.get(`/v1/email/delivery/${id}/`))).body as { status: string }).status;
const send = async (recipient: string) => ((await (await v1.post('/v1/email/send/', { recipient, subject: 's', body: 'b' })).json()) as { id: string }).id;

describe('delivery lifecycle with a delay (docs/api-contract.md §6)', () => {
  it('starts pending and becomes delivered after the delay', async () => {
    const id = await send('later@example.com');
    expect(await status(id)).toBe('pending');
    await waitFor(async () => ((await status(id)) === 'delivered' ? true : undefined));
  });

  it('blocks a bounced recipient only once the bounce has happened', async () => {
    const id = await send('bounce+late@simulator.amazonses.com');
    expect(await status(id)).toBe('pending');
    const second = await read(await v1.post('/v1/email/send/', { recipient: 'bounce+late@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(Object.keys(second.body as object)).toEqual(['id']);
    await waitFor(async () => ((await status(id)) === 'bounced' ? true : undefined));
    const third = await read(await v1.post('/v1/email/send/', { recipient: 'bounce+late@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(third.body).toMatchObject({ error: 'Recipient is blocked' });
    expect(await status((third.body as { id: string }).id)).toBe('failed');
  });

  it('settles pending emails whose time passed while the server was down', async () => {
    const id = await send('restart@example.com');
    expect(await status(id)).toBe('pending');
    await server.close();
    // The server comes back 350 ms later by its real-time source: the 300 ms delay passed while it was down.
    server = await startApp({ dataDir: server.dataDir, now: () => Date.now() + 350, config: (c) => ((c.delivery = { delay: '300ms' }), c) });
    v1 = api(server.url, 'bulk-key');
    expect(await status(id)).toBe('delivered');
  });
});
