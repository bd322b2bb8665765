import { describe, expect } from 'vitest';
import { nodeFs, type Fs } from '../../server/storage/disk/fs.ts';
import { api, read } from '../support/app.ts';
import { test as it } from '../support/fixtures.ts';

/**
 * The store's repositories (docs/architecture.md, "Storage"): blocks, daily counts, the clock
 * offset and the request log each queue their own write, which their command's unit of work puts
 * on disk. Through the real server: what a 2xx answered survives a restart, and a write that
 * fails is the documented 507 (nothing of it kept), never a 2xx.
 */

/** An Fs whose writes fail with EROFS (a file system remounted read-only) while `failing.on`. */
function failableFs(): { fs: Fs; failing: { on: boolean } } {
  const failing = { on: false };
  const refuse = () => Promise.reject(Object.assign(new Error('EROFS: injected'), { code: 'EROFS' }));
  const fs: Fs = {
    ...nodeFs,
    open: (file, flags) => (failing.on && flags !== 'r' ? refuse() : nodeFs.open(file, flags)),
    writeFile: (file, data) => (failing.on ? refuse() : nodeFs.writeFile(file, data)),
    writeAt: (handle, buffers, position) => (failing.on ? refuse() : nodeFs.writeAt(handle, buffers, position)),
    rename: (from, to) => (failing.on ? refuse() : nodeFs.rename(from, to)),
    unlink: (file) => (failing.on ? refuse() : nodeFs.unlink(file)),
  };
  return { fs, failing };
}

/** The 507 body of a write refused by a read-only file system at `file` (docs/storage.md). */
const readOnly = (file: string) => ({
  detail: `Not stored: the file system is read-only (${file}). Make the data directory writable; Pigeonhole picks it up by itself.`,
});

const call = async (url: string, method: string, p: string, body?: unknown) => {
  const init = { method, headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) };
  const { status, body: answer } = await read(await fetch(`${url}${p}`, init));
  return { status, body: answer };
};
/**
 * The sandbox clock set to noon (UTC) of the next day, so that a test counting the day's sends
 * and moving the clock an hour on stays within one day whatever time of day it runs (daily
 * counts are per UTC day: run at 23:30, an hour on was the next day's count, 0).
 */
const atNoon = async (url: string) => {
  const noon = new Date();
  noon.setUTCDate(noon.getUTCDate() + 1);
  noon.setUTCHours(12, 0, 0, 0);
  expect((await call(url, 'POST', '/api/clock/set', { at: noon.toISOString() })).status).toBe(200);
};

const sentToday = async (url: string, sender: string) =>
  ((await call(url, 'GET', '/api/senders')).body as { senders: { id: string; sent_today: number }[] }).senders.find((s) => s.id === sender)!.sent_today;

describe('each repository writes what its command answered, and it survives a restart', () => {
  it('blocks added and lifted, the clock offset and the request log', async ({ apps }) => {
    const first = await apps.start();
    expect((await call(first.url, 'POST', '/api/blocks', { team: 'acme', email: 'kept@example.com' })).status).toBe(201);
    expect((await call(first.url, 'DELETE', '/api/blocks?team=acme&email=blocked@example.com')).status).toBe(204);
    for (let i = 0; i < 3; i++)
      expect((await api(first.url, 'test-key').post('/v1/email/send/', { recipient: `d${i}@example.com`, subject: 's', body: 'b' })).status).toBe(200);
    expect(await sentToday(first.url, 'acme-main')).toBe(3);
    expect((await call(first.url, 'DELETE', '/api/senders/daily-counts?sender=acme-main')).body).toEqual({ daily_counters: 1 });
    expect((await api(first.url, 'test-key').post('/v1/email/send/', { recipient: 'after@example.com', subject: 's', body: 'b' })).status).toBe(200);
    expect((await call(first.url, 'POST', '/api/clock/advance', { duration: '2d' })).status).toBe(200);
    const offset = ((await call(first.url, 'GET', '/api/clock')).body as { offset_ms: number }).offset_ms;
    expect(offset).toBeGreaterThanOrEqual(2 * 86_400_000);
    expect((await api(first.url, 'test-key').get('/v1/email/list/')).status).toBe(200);
    await first.close();

    const second = await apps.start({ dataDir: first.dataDir });
    const blocks = ((await call(second.url, 'GET', '/api/blocks?team=acme')).body as { blocks: { email: string; reason: string }[] }).blocks;
    expect(blocks.map((b) => [b.email, b.reason])).toEqual([['kept@example.com', 'manual']]);
    // The count started over stays started over: the three sends before it no longer count.
    // (The clock moved two days on: the day's count is of another day; the stored figures still are.)
    expect((await call(second.url, 'GET', '/api/clock')).body).toMatchObject({ offset_ms: offset, real_time: false });
    const requests = ((await call(second.url, 'GET', '/api/requests?path=/v1/email/list/')).body as { requests: { status: number }[] }).requests;
    expect(requests.map((r) => r.status)).toEqual([200]);
  });

  it("a send's daily count: the sends of the day are counted again after a restart, and a count started over stays so", async ({ apps }) => {
    const first = await apps.start();
    await atNoon(first.url);
    for (let i = 0; i < 3; i++) await api(first.url, 'test-key').post('/v1/email/send/', { recipient: `d${i}@example.com`, subject: 's', body: 'b' });
    expect((await call(first.url, 'DELETE', '/api/senders/daily-counts?sender=acme-main')).status).toBe(200);
    await api(first.url, 'test-key').post('/v1/email/send/', { recipient: 'after@example.com', subject: 's', body: 'b' });
    await api(first.url, 'bulk-key').post('/v1/email/send/', { recipient: 'bulk@example.com', subject: 's', body: 'b' });
    expect([await sentToday(first.url, 'acme-main'), await sentToday(first.url, 'acme-bulk')]).toEqual([1, 1]);
    await first.close();
    const second = await apps.start({ dataDir: first.dataDir });
    expect([await sentToday(second.url, 'acme-main'), await sentToday(second.url, 'acme-bulk')]).toEqual([1, 1]);
  });
});

describe('a write a repository queued that fails is a 507 and leaves nothing behind', () => {
  it('blocks, daily counts, the clock offset, the request log, a send, a subscription and a recipient', async ({ apps }) => {
    const { fs, failing } = failableFs();
    const app = await apps.start({ store: { fs } });
    const { dataDir, url } = app;
    await atNoon(url);
    expect((await api(url, 'test-key').post('/v1/email/send/', { recipient: 'one@example.com', subject: 's', body: 'b' })).status).toBe(200);
    expect(await sentToday(url, 'acme-main')).toBe(1);
    expect((await call(url, 'POST', '/api/clock/advance', { duration: '1h' })).status).toBe(200);
    const clock = (await call(url, 'GET', '/api/clock')).body;
    failing.on = true;

    // A block added: refused, and not in force.
    expect(await call(url, 'POST', '/api/blocks', { team: 'acme', email: 'refused@example.com' })).toEqual({
      status: 507,
      body: readOnly(`${dataDir}/blocks.json`),
    });
    // A configured block lifted: refused, and still in force.
    expect(await call(url, 'DELETE', '/api/blocks?team=acme&email=blocked@example.com')).toEqual({ status: 507, body: readOnly(`${dataDir}/blocks.json`) });
    const blocks = ((await call(url, 'GET', '/api/blocks?team=acme')).body as { blocks: { email: string }[] }).blocks;
    expect(blocks.map((b) => b.email)).toEqual(['blocked@example.com']);
    // A send: refused, and its daily count given back; the count started over: refused, the count kept.
    const send = await api(url, 'test-key').post('/v1/email/send/', { recipient: 'two@example.com', subject: 's', body: 'b' });
    expect(send.status).toBe(507);
    expect(await sentToday(url, 'acme-main')).toBe(1);
    expect(await call(url, 'DELETE', '/api/senders/daily-counts')).toEqual({ status: 507, body: readOnly(`${dataDir}/meta.json`) });
    expect(await sentToday(url, 'acme-main')).toBe(1);
    // The clock: refused, and it reads as before the move.
    expect(await call(url, 'POST', '/api/clock/advance', { duration: '1d' })).toEqual({ status: 507, body: readOnly(`${dataDir}/meta.json`) });
    expect(((await call(url, 'GET', '/api/clock')).body as { offset_ms: number }).offset_ms).toBe((clock as { offset_ms: number }).offset_ms);
    // The request log cleared: refused.
    expect(await call(url, 'DELETE', '/api/requests')).toEqual({ status: 507, body: readOnly(`${dataDir}/requests`) });
    // A subscription (one unit of work with the recipient it makes): refused, and neither is kept.
    const subscribe = await api(url, 'test-key').post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'sub@example.com' });
    expect(subscribe.status).toBe(507);
    const counts = async (base: string) => [
      ((await call(base, 'GET', '/api/subscriptions')).body as { total: number }).total,
      ((await call(base, 'GET', '/api/recipients?q=sub')).body as { total: number }).total,
    ];
    expect(await counts(url)).toEqual([0, 0]);
    // A recipient made through /v1: refused, and not kept.
    expect((await api(url, 'test-key').post('/v1/recipients/', { email: 'sub@example.com', first_name: 'Sub' })).status).toBe(507);
    expect(await counts(url)).toEqual([0, 0]);

    failing.on = false;
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 5000 }).toBe(200);
    await app.close();
    // After a restart: none of what was refused turns up.
    const again = await apps.start({ dataDir });
    const after = ((await call(again.url, 'GET', '/api/blocks?team=acme')).body as { blocks: { email: string }[] }).blocks;
    expect(after.map((b) => b.email)).toEqual(['blocked@example.com']);
    expect(await sentToday(again.url, 'acme-main')).toBe(1);
    expect(((await call(again.url, 'GET', '/api/clock')).body as { offset_ms: number }).offset_ms).toBe((clock as { offset_ms: number }).offset_ms);
    expect(((await call(again.url, 'GET', '/api/messages')).body as { messages: { to: string[] }[] }).messages).toHaveLength(1);
    expect(await counts(again.url)).toEqual([0, 0]);
  });
});
