import { expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';

/**
 * Issue 27, item 4: a sandbox clock moved ahead outlives restarts (it is stored); the start-up
 * banner and GET /api/clock say so, and by how much.
 */
it('says at start-up and in /api/clock how far the stored sandbox clock is ahead of real time', async ({ serverProcess }) => {
  const dataDir = await serverProcess.tempDir('pigeonhole-clock-');
  const first = await serverProcess.spawn({ dataDir });
  // The banner's last line is out before the clock line would be.
  await expect.poll(() => first.output()).toContain('  API keys:');
  expect(first.output()).not.toContain('sandbox clock:');
  const real = (await (await fetch(`${first.url}/api/clock`)).json()) as Record<string, unknown>;
  expect(real).toMatchObject({ offset_ms: 0, real_time: true, note: 'The sandbox clock follows real time.' });
  const moved = await fetch(`${first.url}/api/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"duration":"12d3h"}',
  });
  expect(moved.status).toBe(200);
  expect(await first.stop()).toBe(0);

  const second = await serverProcess.spawn({ dataDir });
  await expect
    .poll(() => second.output())
    .toMatch(
      /\n {2}sandbox clock: {2}12 days 3 hours ahead of real time \(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\); POST \/api\/clock\/reset returns it to real time\n/,
    );
  const clock = (await (await fetch(`${second.url}/api/clock`)).json()) as Record<string, unknown>;
  expect(clock).toMatchObject({
    real_time: false,
    note: 'The sandbox clock is 12 days 3 hours ahead of real time: dates, daily limits and schedules use it. POST /api/clock/reset returns it to real time.',
  });
  expect(clock.offset_ms).toBe(12 * 86_400_000 + 3 * 3_600_000);
});
