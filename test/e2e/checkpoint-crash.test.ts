import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, read } from '../support/app.ts';
import { allMessages, inParallel, processTracker } from '../support/process-helpers.ts';

/**
 * docs/storage.md, "Start-up": a clean stop writes the checkpoints; a SIGKILL that lands while
 * they are being written (after SIGTERM, at a different moment each round) must never cost a
 * capture or a start. Each round sends, stops with SIGTERM, kills the process a few
 * milliseconds later (whatever it was doing), and the next start must list every capture that
 * got a 200 in any round, set nothing aside as damaged, and leave no temporary file behind.
 */

const tracker = processTracker();
afterAll(() => tracker.cleanup());

/** Milliseconds between SIGTERM and SIGKILL, one per round: from before the checkpoints start to after they are done. */
const DELAYS = [0, 1, 2, 4, 8, 16, 32];
const SENDS_PER_ROUND = 120;

describe('SIGKILL while checkpoints are written at a stop', () => {
  it('loses no capture and never stops a start, wherever the kill lands', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-checkpoint-crash-');
    const accepted: string[] = [];
    for (const [round, delay] of DELAYS.entries()) {
      const server = await tracker.spawn({ dataDir, args: ['--max-messages', '0'] });
      const listed = await allMessages(server.url);
      expect(listed.messages.map((m) => m.id).sort(), `round ${round}: every capture accepted before`).toEqual([...accepted].sort());
      expect(server.output()).not.toMatch(/damaged|failed the checksum/);
      const v1 = api(server.url, 'bulk-key');
      await inParallel(
        Array.from({ length: SENDS_PER_ROUND }, (_, i) => i),
        4,
        async (i) => {
          const reply = await read(
            await v1.post('/v1/email/send/', { recipient: `r${round}-${i}@example.com`, subject: `Round ${round} #${i}`, body: `<p>${i}</p>` }),
          );
          expect(reply.status).toBe(200);
          accepted.push((reply.body as { id: string }).id);
        },
      );
      const exited = new Promise((resolve) => server.child.once('exit', resolve));
      server.child.kill('SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, delay));
      server.child.kill('SIGKILL');
      await exited;
    }
    const last = await tracker.spawn({ dataDir, args: ['--max-messages', '0'] });
    const listed = await allMessages(last.url);
    expect(listed.total).toBe(DELAYS.length * SENDS_PER_ROUND);
    expect(listed.messages.map((m) => m.id).sort()).toEqual([...accepted].sort());
    expect(last.output()).not.toMatch(/damaged|failed the checksum/);
    expect((await readdir(path.join(dataDir, 'messages'))).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(await readdir(path.join(dataDir, 'damaged')).catch(() => [])).toEqual([]);
    // Eight starts of the real server: 10 s alone here, more beside the rest of the suite.
  }, 120_000);
});
