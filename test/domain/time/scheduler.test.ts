import { describe, expect, it } from 'vitest';
import { SandboxClock } from '../../../server/domain/time/clock.ts';
import { Scheduler } from '../../../server/domain/time/scheduler.ts';

describe('Scheduler', () => {
  it('runs the live schedule in due order after many reschedules and cancels, each at its instant', async () => {
    const clock = new SandboxClock(() => 0);
    const errors: unknown[] = [];
    const scheduler = new Scheduler(clock, (_m, e) => errors.push(e));
    const ran: [number, number][] = [];
    scheduler.handle('flow', async (key) => void ran.push([key, clock.now().getTime()]));
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const expected = new Map<number, number>();
    // 200 jobs, each rescheduled 20 times (4000 schedules: the stale entries get compacted away).
    for (let round = 0; round < 20; round++) {
      for (let key = 0; key < 200; key++) {
        const due = 1000 + Math.floor(random() * 1_000_000) * 1000;
        scheduler.schedule('flow', key, due);
        expected.set(key, due);
      }
    }
    for (let key = 0; key < 200; key += 10) {
      scheduler.cancel('flow', key);
      expected.delete(key);
    }
    expect(scheduler.size).toBe(180);
    await scheduler.exclusive(() => scheduler.runUntil(2_000_000_000));
    const order = [...expected].sort((a, b) => a[1] - b[1] || a[0] - b[0]);
    expect(ran.map(([key]) => key).sort((a, b) => a - b)).toEqual(order.map(([key]) => key).sort((a, b) => a - b));
    expect(ran.map(([, at]) => at)).toEqual(order.map(([, due]) => due));
    expect(scheduler.size).toBe(0);
    expect(errors).toEqual([]);
    await scheduler.close();
  });

  it('keeps running after a job fails, and reports the failure', async () => {
    const clock = new SandboxClock(() => 0);
    const errors: string[] = [];
    const scheduler = new Scheduler(clock, (message) => errors.push(message));
    const ran: number[] = [];
    scheduler.handle('delivery', async (key) => {
      if (key === 1) throw new Error('disk full');
      ran.push(key);
    });
    scheduler.schedule('delivery', 1, 5000);
    scheduler.schedule('delivery', 2, 6000);
    await scheduler.exclusive(() => scheduler.runUntil(10_000));
    expect(ran).toEqual([2]);
    expect(errors).toEqual(['scheduled delivery job 1 failed']);
    await scheduler.close();
  });
});
