import { describe, expect } from 'vitest';
import { startRetention, type Retention } from '../../../server/domain/messages/retention.ts';
import type { MessageRecord } from '../../../server/domain/entities.ts';
import { api, read, type TestServer } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { allMessages } from '../../support/process-helpers.ts';

const DAY = 86_400_000;

/**
 * `clockedApp()`: a real app of the test's own whose sandbox clock reads `clock.now` (real time
 * shifted by the test). `retention(server, limits)`: retention started on an app's sandbox,
 * closed after the test (before the apps).
 */
const it = test
  .extend('clockedApp', ({ apps }) => async () => {
    const clock = { now: Date.now() };
    const server = await apps.start({ now: () => clock.now });
    return { server, clock };
  })
  .extend('retention', async ({ apps: _apps }, { onCleanup }) => {
    const retentions: Retention[] = [];
    onCleanup(async () => {
      await Promise.all(retentions.map((r) => r.close()));
    });
    return (
      server: TestServer,
      limits: { maxMessages?: number; maxAgeMs?: number; batchSize?: number; burstDelayMs?: number; pruneRecipients?: () => Promise<number> },
    ): Retention => {
      const r = startRetention({
        pruneRecipients: limits.pruneRecipients ?? (() => server.sandbox.pruneRecipients()),
        messages: server.sandbox.messages,
        events: server.sandbox.events,
        clock: server.sandbox.clock,
        maxMessages: limits.maxMessages ?? 0,
        maxAgeMs: limits.maxAgeMs ?? 0,
        batchSize: limits.batchSize,
        burstDelayMs: limits.burstDelayMs,
      });
      retentions.push(r);
      return r;
    };
  });

async function capture(server: TestServer, n: number, subject = 'keep'): Promise<MessageRecord[]> {
  const made: MessageRecord[] = [];
  for (let i = 0; i < n; i++) {
    made.push(
      await server.sandbox.messages.ingest({
        source: 'smtp',
        caller: null,
        from: 'app@example.com',
        recipient: `r${i}@example.com`,
        subject: `${subject} ${i}`,
        html: `<p>${i}</p>`,
        text: `${i}`,
        attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from(`attachment ${i}`) }],
        useAccountTemplate: false,
      }),
    );
  }
  return made;
}

/** The ids stored, oldest first. */
const storedIds = async (server: TestServer) => (await server.sandbox.messages.page({}, 0, 10_000)).items.map((m) => m.id).reverse();

/** Whether a capture's record and its attachment can still be read through the sandbox API. */
const readable = async (server: TestServer, record: MessageRecord) => {
  const [detail, attachment] = await Promise.all([
    fetch(`${server.url}/api/messages/${record.id}`),
    fetch(`${server.url}/api/messages/${record.id}/attachments/0`),
  ]);
  await Promise.all([detail.arrayBuffer(), attachment.arrayBuffer()]);
  return detail.status === 200 && attachment.status === 200;
};

describe('retention', () => {
  it('keeps the newest --max-messages, deleting the oldest records and their content in batches', async ({ clockedApp, retention }) => {
    const { server } = await clockedApp();
    const made = await capture(server, 30);
    for (const record of made) expect(await readable(server, record), record.id).toBe(true);
    const batches: number[] = [];
    server.sandbox.events.on('message.deleted', (records) => batches.push(records.length));

    const r = retention(server, { maxMessages: 10, batchSize: 4 });
    await r.prune();
    await expect.poll(() => server.sandbox.messages.count()).toBe(10);

    expect(await storedIds(server)).toEqual(made.slice(20).map((m) => m.id));
    for (const record of made.slice(0, 20)) expect(await readable(server, record), `${record.id} still readable`).toBe(false);
    for (const record of made.slice(20)) expect(await readable(server, record), record.id).toBe(true);
    // Twenty deleted four at a time: the start-up prune and the explicit one share the work.
    expect(batches.reduce((a, b) => a + b, 0)).toBe(20);
    expect(Math.max(...batches)).toBeLessThanOrEqual(4);
    expect(batches.length).toBe(5);
    const listed = (await read(await fetch(`${server.url}/api/messages?limit=500`))).body as { total: number };
    expect(listed.total).toBe(10);
  });

  it('prunes shortly after a burst takes the inbox over its cap, without being asked', async ({ clockedApp, retention }) => {
    const { server } = await clockedApp();
    retention(server, { maxMessages: 5, burstDelayMs: 20 });
    const made = await capture(server, 12);
    await expect.poll(() => server.sandbox.messages.count()).toBe(5);
    expect(await storedIds(server)).toEqual(made.slice(7).map((m) => m.id));
  });

  it('under a sustained load, a pass started by a burst deletes whole batches and leaves the rest to the next pass', async ({ clockedApp, retention }) => {
    const { server } = await clockedApp();
    await capture(server, 5);
    // Batch sizes as they are deleted, and 'pass' where a pass ends (its recipients' prune).
    const log: (number | 'pass')[] = [];
    let late = 2;
    server.sandbox.events.on('message.deleted', (records) => {
      log.push(records.length);
      // A capture arrives while each of the first two batches is deleted (it is indexed before
      // the next batch is chosen).
      if (late-- > 0) void capture(server, 1, 'late');
    });
    retention(server, {
      maxMessages: 5,
      batchSize: 4,
      burstDelayMs: 20,
      pruneRecipients: async () => {
        log.push('pass');
        return 0;
      },
    });
    // A burst of eight at once: one group commit, then the pass one burst delay later.
    await Promise.all(Array.from({ length: 8 }, (_, i) => capture(server, 1, `burst ${i}`)));
    await expect.poll(() => log.filter((entry) => entry === 'pass').length).toBe(2);
    // Two full batches; the two captures over the cap that remain (both late) are not deleted as a
    // batch of two in the same pass, but by the next one, with whatever arrived meanwhile.
    expect(log).toEqual([4, 4, 'pass', 2, 'pass']);
    expect(server.sandbox.messages.count()).toBe(5);
  });

  it('deletes captures older than --max-age on the sandbox clock, whatever their number', async ({ clockedApp, retention }) => {
    const { server, clock } = await clockedApp();
    const old = await capture(server, 3, 'old');
    clock.now += 2 * DAY;
    const young = await capture(server, 2, 'young');
    const r = retention(server, { maxAgeMs: DAY });
    await r.prune();
    expect(await storedIds(server)).toEqual(young.map((m) => m.id));
    for (const record of old) expect(await readable(server, record)).toBe(false);

    // A day and a bit later on the sandbox clock, the young ones are old too.
    clock.now += DAY + 1000;
    expect(await r.prune()).toBe(2);
    expect(server.sandbox.messages.count()).toBe(0);
  });

  it('applies --max-age as soon as the sandbox clock is advanced through the API', async ({ clockedApp, retention }) => {
    const { server } = await clockedApp();
    await capture(server, 2, 'aging');
    retention(server, { maxAgeMs: DAY });
    expect(server.sandbox.messages.count()).toBe(2);
    const res = await fetch(`${server.url}/api/clock/advance`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ duration: '2d' }),
    });
    expect(res.status).toBe(200);
    await expect.poll(() => server.sandbox.messages.count()).toBe(0);
  });

  it('takes the recipients the pruned captures leave behind, but not those touched since or in a flow', async ({ apps, clockedApp, retention }) => {
    const { server, clock } = await clockedApp();
    const v1 = api(server.url, 'bulk-key');
    const sendTo = async (recipient: string) => expect((await v1.post('/v1/email/send/', { recipient, subject: 's', body: '<p>b</p>' })).status).toBe(200);
    for (let i = 0; i < 10; i++) {
      await sendTo(`old${i}@example.com`);
      clock.now += 1000;
    }
    // In a flow (an active subscription), and written to again later: both stay.
    expect((await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'old0@example.com' })).status).toBe(201);
    clock.now += 1000;
    for (let i = 0; i < 5; i++) {
      await sendTo(`new${i}@example.com`);
      clock.now += 1000;
    }
    await sendTo('old1@example.com');
    const recipients = () =>
      server.store.recipients
        .list({}, 0, 100)
        .items.map((r) => r.email)
        .sort();
    expect(recipients()).toHaveLength(15);

    const r = retention(server, { maxMessages: 6 });
    await r.prune();
    expect(recipients()).toEqual([
      'new0@example.com',
      'new1@example.com',
      'new2@example.com',
      'new3@example.com',
      'new4@example.com',
      'old0@example.com',
      'old1@example.com',
    ]);
    // For good: after a restart too.
    const dataDir = server.dataDir;
    await server.close();
    const again = await apps.start({ dataDir });
    expect(again.store.recipients.size).toBe(7);
  });

  it('with both limits off (0) deletes nothing', async ({ clockedApp, retention }) => {
    const { server, clock } = await clockedApp();
    await capture(server, 4);
    clock.now += 365 * DAY;
    const r = retention(server, { maxMessages: 0, maxAgeMs: 0 });
    expect(await r.prune()).toBe(0);
    expect(server.sandbox.messages.count()).toBe(4);
  });

  it('lets requests through between batches', async ({ clockedApp, retention }) => {
    const { server } = await clockedApp();
    await capture(server, 300);
    let pruneDone = 0;
    let answered = 0;
    const r = retention(server, { maxMessages: 1, batchSize: 20 });
    const pruning = r.prune().then(() => (pruneDone = performance.now()));
    const res = await fetch(`${server.url}/api/messages?limit=1`);
    answered = performance.now();
    expect(res.status).toBe(200);
    await pruning;
    expect(answered).toBeLessThan(pruneDone);
    expect(server.sandbox.messages.count()).toBe(1);
  });
});

describe('retention in the real server process', () => {
  it('--max-messages keeps the inbox at its cap, and start-up prunes to a lowered cap; their space goes too', async ({ serverProcess: tracker }) => {
    const dataDir = await tracker.tempDir('pigeonhole-retention-');
    const first = await tracker.spawn({ dataDir, args: ['--max-messages', '6'] });
    const v1 = api(first.url, 'bulk-key');
    const ids: string[] = [];
    for (let i = 0; i < 15; i++)
      ids.push(
        ((await read(await v1.post('/v1/email/send/', { recipient: `p${i}@example.com`, subject: `P ${i}`, body: '<p>p</p>' }))).body as { id: string }).id,
      );
    await expect.poll(async () => (await allMessages(first.url)).total).toBe(6);
    expect((await allMessages(first.url)).messages.map((m) => m.id)).toEqual(ids.slice(9).reverse());
    expect(await first.stop('SIGTERM')).toBe(0);

    const second = await tracker.spawn({ dataDir, env: { PIGEONHOLE_MAX_MESSAGES: '2' } });
    await expect.poll(async () => (await allMessages(second.url)).total).toBe(2);
    expect((await allMessages(second.url)).messages.map((m) => m.id)).toEqual(ids.slice(13).reverse());
    const kept = await Promise.all(ids.slice(13).map((id) => fetch(`${second.url}/api/messages/${id}/html`).then((r) => r.status)));
    expect(kept).toEqual([200, 200]);
    const gone = await Promise.all(ids.slice(0, 13).map((id) => fetch(`${second.url}/api/messages/${id}/html`).then((r) => r.status)));
    expect(new Set(gone)).toEqual(new Set([404]));
  });
});
