import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

// Real time stands still under the sandbox clock, so every timestamp below is exact.
const T0 = Date.parse('2030-01-06T09:00:00Z');
test.override('appOptions', { now: () => T0 });

const WELCOME = 'Welcome Signup Flow';

describe('the sample WELCOME_SIGNUP flow, driven through the API', () => {
  test('sends the welcome email before subscribe answers, then waits two days for the flag', async ({ v1, flows }) => {
    const res = await read(await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'ada@example.com', first_name: 'Ada <3' }));
    expect(res.text).toBe(`{"detail":"Recipient 'ada@example.com' successfully subscribed to flow '${WELCOME}'.","subscription_id":1}`);
    const [welcome, ...rest] = await flows.mail('ada@example.com');
    expect(rest).toEqual([]);
    expect(welcome).toMatchObject({
      source: 'flow',
      from: 'hello@acme.example',
      to: ['ada@example.com'],
      subject: 'Welcome to Acme, Ada <3!',
      status: 'delivered',
      created_at: '2030-01-06T09:00:00Z',
    });
    const detail = (await read(await v1.get(`/api/messages/${welcome!.id}`))).body as any;
    // Names are escaped in HTML, kept as they are in subject and text; the account template wraps the body.
    expect(detail.html).toContain('<h1>Welcome, Ada &lt;3!</h1><p>Your account for ada@example.com is ready.</p>');
    expect(detail.html).toMatch(/^<!doctype html>/);
    expect(detail.text).toBe('Welcome, Ada <3! Your account for ada@example.com is ready.');
    expect(detail).toMatchObject({ used_template: true, flow: { trigger: 'WELCOME_SIGNUP', step: 1, subscription: 1, run: 0 } });
    expect(await flows.subscription('ada@example.com', 'WELCOME_SIGNUP')).toEqual({
      id: 1,
      flow_name: WELCOME,
      flow_trigger: 'WELCOME_SIGNUP',
      recipient_email: 'ada@example.com',
      status: 'active',
      current_step_order: 2,
      next_send_date: '2030-01-08T09:00:00Z',
      created_at: '2030-01-06T09:00:00Z',
      updated_at: '2030-01-06T09:00:00Z',
    });
  });

  test('without the flag: nothing for 47 hours, then the nudge, the flag nudged, the thanks, completed', async ({ flows }) => {
    await flows.advance('1d23h');
    expect(await flows.subjects('ada@example.com')).toEqual(['Welcome to Acme, Ada <3!']);
    expect((await flows.subscription('ada@example.com', 'WELCOME_SIGNUP')).next_send_date).toBe('2030-01-08T09:00:00Z');
    const clock = await flows.advance('1h');
    expect(clock).toMatchObject({ now: '2030-01-08T09:00:00Z', offset_ms: 2 * 86_400_000, real_time: false });
    const mail = await flows.mail('ada@example.com');
    expect(mail.map((m) => [m.subject, m.created_at])).toEqual([
      ['Welcome to Acme, Ada <3!', '2030-01-06T09:00:00Z'],
      ['Need a hand getting started, Ada <3?', '2030-01-08T09:00:00Z'],
      ['Thanks for joining Acme', '2030-01-08T09:00:00Z'],
    ]);
    expect(await flows.flags('ada@example.com')).toEqual(['nudged']);
    expect(await flows.subscription('ada@example.com', 'WELCOME_SIGNUP')).toMatchObject({
      status: 'completed',
      current_step_order: 6,
      next_send_date: null,
      updated_at: '2030-01-08T09:00:00Z',
    });
    const timeline = await flows.timeline('ada@example.com');
    expect(timeline.steps.map((s: any) => s.state)).toEqual(['done', 'done', 'done', 'done', 'done', 'done']);
  });

  test('with the flag set before the timeout: the wait ends at once and the condition jumps to the thanks', async ({ v1, flows }) => {
    await flows.subscribe('WELCOME_SIGNUP', 'bea@example.com', { first_name: 'Bea' });
    await flows.advance('3h');
    const set = await read(await v1.post('/v1/recipients/flags/set/', { email: 'bea@example.com', flags: 'onboarded' }));
    expect(set.status).toBe(200);
    // Already run when flags/set answered: no polling needed.
    expect(await flows.subjects('bea@example.com')).toEqual(['Welcome to Acme, Bea!', 'Thanks for joining Acme']);
    expect(await flows.subscription('bea@example.com', 'WELCOME_SIGNUP')).toMatchObject({
      status: 'completed',
      current_step_order: 6,
      next_send_date: null,
      updated_at: '2030-01-08T12:00:00Z',
    });
    expect(await flows.flags('bea@example.com')).toEqual(['onboarded']);
    const timeline = await flows.timeline('bea@example.com');
    expect(timeline.steps.map((s: any) => [s.order, s.name, s.state])).toEqual([
      [1, 'welcome', 'done'],
      [2, 'wait-for-onboarding', 'done'],
      [3, 'check-onboarded', 'done'],
      [4, 'nudge', 'skipped'],
      [5, 'mark-nudged', 'skipped'],
      [6, 'thanks', 'done'],
    ]);
    await flows.advance('3d');
    expect(await flows.subjects('bea@example.com')).toHaveLength(2);
  });

  test('wakes on a flag from POST /v1/recipients/ and from a send with flags, too', async ({ v1, flows }) => {
    await flows.subscribe('WELCOME_SIGNUP', 'cy@example.com');
    await flows.subscribe('WELCOME_SIGNUP', 'di@example.com');
    expect((await read(await v1.post('/v1/recipients/', { email: 'cy@example.com', flags: ['vip', 'onboarded'] }))).status).toBe(200);
    expect(await flows.subjects('cy@example.com')).toEqual(['Welcome to Acme, !', 'Thanks for joining Acme']);
    const sent = await read(await v1.post('/v1/email/send/', { recipient: 'di@example.com', subject: 'Receipt', body: '<p>r</p>', flags: 'onboarded' }));
    expect(sent.status).toBe(200);
    expect(await flows.subjects('di@example.com')).toEqual(['Welcome to Acme, !', 'Receipt', 'Thanks for joining Acme']);
  });

  test('a flag the recipient already has ends the wait as soon as it starts', async ({ flows }) => {
    await flows.subscribe('WELCOME_SIGNUP', 'eve@example.com', { flags: 'onboarded' });
    expect(await flows.subjects('eve@example.com')).toEqual(['Welcome to Acme, !', 'Thanks for joining Acme']);
    expect((await flows.subscription('eve@example.com', 'WELCOME_SIGNUP')).status).toBe('completed');
  });

  test('another flag does not end the wait', async ({ flows }) => {
    await flows.subscribe('WELCOME_SIGNUP', 'fay@example.com');
    await flows.setFlags('fay@example.com', 'other');
    expect(await flows.subjects('fay@example.com')).toHaveLength(1);
    expect((await flows.subscription('fay@example.com', 'WELCOME_SIGNUP')).current_step_order).toBe(2);
  });

  test('re-subscribing after completion starts the flow over', async ({ v1, flows }) => {
    const again = await flows.subscribe('WELCOME_SIGNUP', 'eve@example.com');
    expect(again.subscription_id).toBeGreaterThan(1);
    expect(await flows.subjects('eve@example.com')).toEqual(['Welcome to Acme, !', 'Thanks for joining Acme', 'Welcome to Acme, !', 'Thanks for joining Acme']);
    const list = (await read(await v1.get('/v1/flows/subscriptions/?email=eve@example.com'))).body as any[];
    expect(list.map((s) => s.status)).toEqual(['completed', 'completed']);
  });
});
