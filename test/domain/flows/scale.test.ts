import { createHook } from 'node:async_hooks';
import { describe, expect } from 'vitest';
import { test as it, type Apps } from '../../support/fixtures.ts';
import { flow, flowClient } from '../../support/flow-helpers.ts';
import { GROWTH, LINEAR } from '../../support/scale.ts';

/** The sample configuration plus LATER: a day's wait, then one send. */
const withLaterFlow = (c: any) => {
  c.flows.push(
    flow('LATER', [
      { type: 'wait', duration: '1d' },
      { type: 'send_email', subject: 'Later', html: '<p>l</p>' },
    ]),
  );
  return c;
};

/**
 * Subscribes `count` recipients (in-process, no HTTP), then measures the advance that runs all
 * their sends in CPU time of this process (the app runs in it, its parser workers too), not wall
 * time: another process busy on the machine does not count, so the ratio below holds on a busy
 * 2-core machine as on a quiet one.
 */
async function advanceCost(apps: Apps, count: number): Promise<number> {
  const server = await apps.start({
    now: () => Date.parse('2030-07-01T00:00:00Z'),
    config: withLaterFlow,
  });
  try {
    for (let n = 0; n < count; n++) await server.sandbox.subscriptions.subscribe('acme', { trigger: 'LATER', email: `s${n}@example.com` });
    // One due entry per waiting subscription, under one timer.
    expect(server.sandbox.scheduler.size).toBe(count);
    const before = process.cpuUsage();
    await flowClient(server.url, 'bulk-key').advance('1d');
    const used = process.cpuUsage(before);
    expect(server.sandbox.messages.count()).toBe(count);
    expect(server.sandbox.scheduler.size).toBe(0);
    return used.user + used.system;
  } finally {
    // Stopped before the next measurement (its directory goes after the test).
    await server.close();
  }
}

describe('scale', () => {
  it('waiting subscriptions hold no timer each: one timer for the earliest', async ({ apps }) => {
    const server = await apps.start({
      config: withLaterFlow,
    });
    // Counts every timer created (unref'd ones too) while the subscriptions are made; no HTTP,
    // whose connections make timers of their own.
    let created = 0;
    const hook = createHook({ init: (_id, type) => void (type === 'Timeout' && created++) });
    try {
      hook.enable();
      for (let n = 0; n < 300; n++) await server.sandbox.subscriptions.subscribe('acme', { trigger: 'LATER', email: `t${n}@example.com` });
      hook.disable();
      expect(server.sandbox.scheduler.size).toBe(300);
      expect(created).toBeLessThanOrEqual(2);
    } finally {
      hook.disable();
    }
  });

  it(`an advance over ${GROWTH}× the due steps costs less than ${LINEAR}× the time`, async ({ apps }) => {
    // Sizes whose advance takes tens of milliseconds of CPU, so timer granularity and a stray
    // pause are small beside it. Each size's lowest of three, measured alternately (test/support/scale.ts).
    await advanceCost(apps, 50);
    let small = Infinity;
    let large = Infinity;
    for (let run = 0; run < 3; run++) {
      small = Math.min(small, await advanceCost(apps, 150));
      large = Math.min(large, await advanceCost(apps, 150 * GROWTH));
    }
    expect(large / small).toBeLessThan(LINEAR);
  }, 120_000);
});
