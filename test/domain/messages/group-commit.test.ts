import { setTimeout as realTimeout } from 'node:timers';
import { describe, expect, vi } from 'vitest';
import { nodeFs, type Fs } from '../../../server/storage/disk/fs.ts';
import { test as it } from '../../support/fixtures.ts';

/** An Fs that counts the writes made through it (every file). */
function countingFs(): { fs: Fs; writes: () => number } {
  let writes = 0;
  return {
    fs: {
      ...nodeFs,
      writeAt: (handle, buffers, position) => {
        writes++;
        return nodeFs.writeAt(handle, buffers, position);
      },
    },
    writes: () => writes,
  };
}

describe('captures share the group commit', () => {
  it('/v1 sends made in one turn of the event loop are written together, not each its own pack and segment writes', async ({ apps }) => {
    const counting = countingFs();
    const server = await apps.start({ store: { fs: counting.fs } });
    const caller = server.sandbox.directory.byApiKey('test-key')!;
    const before = counting.writes();
    // Each from a callback of its own, as requests read from different sockets are.
    const sends = Array.from(
      { length: 20 },
      (_, n) =>
        new Promise((resolve, reject) =>
          setImmediate(() =>
            server.sandbox.messages
              .ingest({
                source: 'api',
                caller,
                recipient: `batch-${n}@example.com`,
                subject: `Batch ${n}`,
                html: `<p>${n}</p>`,
                text: null,
                attachments: [],
                useAccountTemplate: false,
              })
              .then(resolve, reject),
          ),
        ),
    );
    await Promise.all(sends);
    // The pack, the captures' segment, the recipients' segment and meta.json (new since the
    // store opened): one write each. Without gathering, the first send went alone (7 writes).
    expect(counting.writes() - before).toBeLessThanOrEqual(4);
    expect((await server.sandbox.messages.page({}, 0, 50)).total).toBe(20);
  });

  it('is written with the global timers faked (a suite running Pigeonhole in its own process)', async ({ apps }) => {
    const server = await apps.start();
    const caller = server.sandbox.directory.byApiKey('test-key')!;
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval', 'setImmediate', 'Date'] });
    try {
      const sent = server.sandbox.messages.ingest({
        source: 'api',
        caller,
        recipient: 'fake@example.com',
        subject: 'Faked',
        html: '<p>x</p>',
        text: null,
        attachments: [],
        useAccountTemplate: false,
      });
      // A real timer (node:timers' own): a write held by the faked ones fails here rather than hanging the run.
      const held = new Promise<never>((_, reject) => realTimeout(() => reject(new Error('the capture was not written with the timers faked')), 3000).unref());
      const record = await Promise.race([sent, held]);
      expect((await server.sandbox.messages.page({}, 0, 10)).items.map((m) => m.id)).toEqual([record.id]);
    } finally {
      // What the faked timers hold (a held write, the delivery's timer) runs, so the app can close.
      vi.runOnlyPendingTimers();
      vi.useRealTimers();
    }
  });
});
