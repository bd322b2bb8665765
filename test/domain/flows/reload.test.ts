import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';
import { flowClient } from '../../support/flow-helpers.ts';

it.override('appOptions', { now: () => Date.parse('2030-08-01T00:00:00Z') });

describe('FlowEngine.reload (for a sandbox reset that replaces the data underneath)', () => {
  it('forgets the schedules of subscriptions that are gone and picks up the ones that remain', async ({ app }) => {
    const c = flowClient(app.url);
    await c.subscribe('WELCOME_SIGNUP', 'gone@example.com');
    await c.subscribe('WELCOME_SIGNUP', 'stays@example.com');
    const { scheduler, flows } = app.sandbox;
    const store = app.store;
    expect(scheduler.size).toBe(2);
    // What a reset does to the store: the subscription disappears without an unsubscribe.
    store.subscriptions.remove(1);
    flows.reload();
    expect(scheduler.size).toBe(1);
    await c.advance('2d');
    expect(await c.subjects('gone@example.com')).toHaveLength(1);
    expect(await c.subjects('stays@example.com')).toHaveLength(3);
  });
});

describe('a flow removed from the configuration', () => {
  it('leaves its subscriptions as they are, not running', async ({ apps }) => {
    const first = await apps.start({ now: () => Date.parse('2030-08-01T00:00:00Z') });
    await flowClient(first.url).subscribe('WELCOME_SIGNUP', 'orphan@example.com');
    await first.close();
    const logged: string[] = [];
    const second = await apps.start({
      dataDir: first.dataDir,
      now: () => Date.parse('2030-08-01T00:00:00Z'),
      config: (c) => ({ ...c, flows: [] }),
      log: (message) => logged.push(message),
    });
    const c = flowClient(second.url);
    await c.advance('3d');
    expect(await c.subjects('orphan@example.com')).toEqual(['Welcome to Acme, !']);
    expect(await c.subscription('orphan@example.com', 'WELCOME_SIGNUP')).toMatchObject({ status: 'active', current_step_order: 2 });
    expect((await c.timeline('orphan@example.com')).steps).toEqual([]);
    expect(logged).toEqual(['flow WELCOME_SIGNUP is no longer configured: its active subscriptions do not run']);
  });
});

describe('Subscriptions.clear (for the sandbox reset)', () => {
  it('removes every subscription and its schedule; nothing runs afterwards, ids keep counting', async ({ freshApp: server }) => {
    const c = flowClient(server.url);
    await c.subscribe('WELCOME_SIGNUP', 'a@example.com');
    await c.subscribe('WELCOME_SIGNUP', 'b@example.com');
    const removed: number[] = [];
    server.sandbox.events.on('subscription.removed', (s) => removed.push(s.seq));
    expect(await server.sandbox.subscriptions.removeAll()).toBe(2);
    expect(removed).toEqual([1, 2]);
    expect(server.sandbox.scheduler.size).toBe(0);
    expect((await read(await c.v1.get('/v1/flows/subscriptions/'))).body).toEqual([]);
    await c.advance('3d');
    expect(await c.subjects('a@example.com')).toHaveLength(1);
    expect((await c.subscribe('WELCOME_SIGNUP', 'a@example.com')).subscription_id).toBe(3);
  });
});
