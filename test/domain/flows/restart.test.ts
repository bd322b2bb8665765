import { copyFile, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { test as it } from '../../support/fixtures.ts';
import { sampleConfig, writeConfig, type processTracker } from '../../support/process-helpers.ts';
import { flow, flowClient } from '../../support/flow-helpers.ts';

/**
 * Flows across a restart of the real server process (and, for the crash window between a
 * capture and its subscription's advance, of the app on the same data directory).
 */

const STEPS = [
  { type: 'send_email', subject: 'Day 0', html: '<p>0</p>' },
  { type: 'wait', duration: '1d' },
  { type: 'send_email', subject: 'Day 1', html: '<p>1</p>' },
  { type: 'wait', duration: '1d' },
  { type: 'send_email', subject: 'Day 2', html: '<p>2</p>' },
];

/** A data directory and a configuration file with the DAILY flow, in a temporary directory of `tracker`. */
async function setup(tracker: ReturnType<typeof processTracker>) {
  const root = await tracker.tempDir('pigeonhole-flow-restart-');
  const config = await sampleConfig();
  config.flows.push(flow('DAILY', STEPS));
  return { dataDir: path.join(root, 'data'), configFile: await writeConfig(root, config) };
}

const MINUTE = 60_000;

describe('a restart mid-flow', () => {
  it('keeps the sandbox clock and the schedule; nothing is sent twice, the rest runs when due', async ({ serverProcess: tracker }) => {
    const s = await setup(tracker);
    let server = await tracker.spawn(s);
    let c = flowClient(server.url);
    await c.setClock('2030-01-01T00:00:00Z');
    await c.subscribe('DAILY', 'kept@example.com');
    await c.advance('1d');
    expect(await c.subjects('kept@example.com')).toEqual(['Day 0', 'Day 1']);
    const before = await c.subscription('kept@example.com', 'DAILY');
    expect(before).toMatchObject({ status: 'active', current_step_order: 4, next_send_date: '2030-01-03T00:00:00Z' });

    // SIGKILL: only what a 200 promised is on disk.
    await server.stop('SIGKILL');
    server = await tracker.spawn(s);
    c = flowClient(server.url);

    const clock = await c.clock();
    expect(clock.real_time).toBe(false);
    const now = Date.parse(clock.now);
    expect(now).toBeGreaterThanOrEqual(Date.parse('2030-01-02T00:00:00Z'));
    expect(now).toBeLessThan(Date.parse('2030-01-02T00:00:00Z') + MINUTE);
    expect(await c.subscription('kept@example.com', 'DAILY')).toEqual(before);
    expect(await c.subjects('kept@example.com')).toEqual(['Day 0', 'Day 1']);

    await c.advance('1d');
    expect(await c.subjects('kept@example.com')).toEqual(['Day 0', 'Day 1', 'Day 2']);
    expect(await c.subscription('kept@example.com', 'DAILY')).toMatchObject({ status: 'completed', current_step_order: 5, next_send_date: null });
  });

  it('runs a step that fell due while the server was down once, on start; later waits count from then', async ({ serverProcess: tracker }) => {
    const s = await setup(tracker);
    let server = await tracker.spawn(s);
    let c = flowClient(server.url);
    await c.setClock('2030-01-01T00:00:00Z');
    await c.subscribe('DAILY', 'late@example.com');
    expect(await server.stop('SIGTERM')).toBe(0);

    // Two days pass on the sandbox clock while the server is down.
    const metaFile = path.join(s.dataDir, 'meta.json');
    const meta = JSON.parse(await readFile(metaFile, 'utf8'));
    meta.clockOffsetMs += 2 * 86_400_000;
    await writeFile(metaFile, JSON.stringify(meta));

    server = await tracker.spawn(s);
    c = flowClient(server.url);
    await expect.poll(async () => (await c.subscription('late@example.com', 'DAILY')).current_step_order).toBe(4);
    const sub = await c.subscription('late@example.com', 'DAILY');
    const now = Date.parse((await c.clock()).now);
    expect(Date.parse(sub.next_send_date!) - now).toBeGreaterThan(86_400_000 - MINUTE);
    expect(Date.parse(sub.next_send_date!) - now).toBeLessThanOrEqual(86_400_000);
    expect(await c.subjects('late@example.com')).toEqual(['Day 0', 'Day 1']);

    // And again: a second restart does not send it again.
    await server.stop('SIGKILL');
    server = await tracker.spawn(s);
    c = flowClient(server.url);
    expect(await c.subjects('late@example.com')).toEqual(['Day 0', 'Day 1']);
    expect((await c.subscription('late@example.com', 'DAILY')).current_step_order).toBe(4);
  });
});

describe('a crash between a capture and its subscription advance', () => {
  it('replays the subscription from its stored step without sending the captured email again', async ({ apps, serverProcess: tracker }) => {
    const root = await tracker.tempDir('pigeonhole-flow-crash-');
    const options = {
      dataDir: root,
      now: () => Date.parse('2030-02-01T00:00:00Z'),
      config: (c: any) => {
        c.flows.push(flow('DAILY', STEPS));
        return c;
      },
    };
    let server = await apps.start(options);
    let c = flowClient(server.url);
    await c.subscribe('DAILY', 'crash@example.com');
    const dir = path.join(root, 'subscriptions');
    const [segment] = await readdir(dir);
    // The subscription as stored while it waited at step 2.
    await copyFile(path.join(dir, segment!), path.join(root, 'waiting-at-step-2.json'));
    await c.advance('1d');
    expect(await c.subjects('crash@example.com')).toEqual(['Day 0', 'Day 1']);
    await server.close();

    // As if the capture of "Day 1" reached the disk but the subscription's advance did not.
    await copyFile(path.join(root, 'waiting-at-step-2.json'), path.join(dir, segment!));
    server = await apps.start(options);
    c = flowClient(server.url);
    await expect.poll(async () => (await c.subscription('crash@example.com', 'DAILY')).current_step_order).toBe(4);
    const sub = await c.subscription('crash@example.com', 'DAILY');
    expect(sub).toMatchObject({ status: 'active', next_send_date: '2030-02-03T00:00:00Z' });
    expect(await c.subjects('crash@example.com')).toEqual(['Day 0', 'Day 1']);
    await c.advance('1d');
    expect(await c.subjects('crash@example.com')).toEqual(['Day 0', 'Day 1', 'Day 2']);
    await server.close();
  });
});
