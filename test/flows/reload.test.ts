import { describe, expect, it } from 'vitest';
import { useApp } from '../support/app.ts';
import { flowClient } from '../support/flow-helpers.ts';

const app = useApp({ now: () => Date.parse('2030-08-01T00:00:00Z') });

describe('FlowEngine.reload (for a sandbox reset that replaces the data underneath)', () => {
  it('forgets the schedules of subscriptions that are gone and picks up the ones that remain', async () => {
    const c = flowClient(app.url);
    await c.subscribe('WELCOME_SIGNUP', 'gone@example.com');
    await c.subscribe('WELCOME_SIGNUP', 'stays@example.com');
    const { scheduler, flows } = app.server.sandbox;
    const store = app.server.store;
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
