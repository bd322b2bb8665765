import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { flow } from '../../support/flow-helpers.ts';
import { test } from '../../support/fixtures.ts';

const T0 = Date.parse('2030-03-01T08:00:00Z');
const FLOWS = [
  flow('DRIP', [
    { type: 'send_email', subject: 'Day 0 for {{ first_name }} {{last_name}}', html: '<p>{{first_name}}</p>' },
    { name: 'day1', type: 'wait', duration: '1d' },
    { type: 'send_email', subject: 'Day 1', html: '<p>1</p>' },
    { type: 'wait', duration: '2d' },
    { type: 'send_email', subject: 'Day 3', html: '<p>3</p>' },
  ]),
  flow('BRANCH', [
    { type: 'condition', flag: 'paid', whenMissing: 'upsell' },
    { type: 'send_email', subject: 'Thanks for paying', html: '<p>t</p>' },
    { type: 'condition', flag: 'paid', whenPresent: 'end' },
    { name: 'upsell', type: 'send_email', subject: 'Upgrade now', html: '<p>u</p>' },
    { name: 'end', type: 'action', action: 'clear_flag', flag: 'trial' },
  ]),
  flow('SUPPRESS', [
    { type: 'send_email', subject: 'First', html: '<p>1</p>' },
    { type: 'action', action: 'suppress' },
    { type: 'send_email', subject: 'Second', html: '<p>2</p>' },
  ]),
  flow('DEV', [{ type: 'send_email', subject: 'Hello {{email}}', html: '<b>{{email}}</b>', text: 'Hi {{email}}' }], 'acme-dev'),
  flow('PLAIN', [{ type: 'send_email', subject: 'Plain', html: '<p>{{last_name}}</p>', text: 'Dear {{last_name}}', useAccountTemplate: false }]),
  flow('ONCE', [
    { type: 'wait', duration: '1d' },
    { type: 'send_email', subject: 'Once', html: '<p>o</p>' },
  ]),
  flow('LOOP', [
    { name: 'remind', type: 'send_email', subject: 'Reminder', html: '<p>r</p>' },
    { type: 'wait', duration: '1d' },
    { type: 'condition', flag: 'done', whenMissing: 'remind' },
  ]),
];

test.override('appOptions', {
  now: () => T0,
  config: (c) => {
    c.flows.push(...(FLOWS as never[]));
    return c;
  },
});

describe('wait for a duration', () => {
  test('runs each step at its instant and shows where the subscription is after each', async ({ flows }) => {
    await flows.subscribe('DRIP', 'drip@example.com', { first_name: 'Ann', last_name: 'Lee' });
    expect(await flows.subjects('drip@example.com')).toEqual(['Day 0 for Ann Lee']);
    expect(await flows.subscription('drip@example.com', 'DRIP')).toMatchObject({
      status: 'active',
      current_step_order: 2,
      next_send_date: '2030-03-02T08:00:00Z',
    });
    await flows.advance('23h59m59s');
    expect(await flows.subjects('drip@example.com')).toHaveLength(1);
    await flows.advance('1s');
    expect(await flows.subjects('drip@example.com')).toEqual(['Day 0 for Ann Lee', 'Day 1']);
    expect(await flows.subscription('drip@example.com', 'DRIP')).toMatchObject({
      current_step_order: 4,
      next_send_date: '2030-03-04T08:00:00Z',
      updated_at: '2030-03-02T08:00:00Z',
    });
    const timeline = await flows.timeline('drip@example.com');
    expect(timeline).toMatchObject({
      id: 1,
      team: 'acme',
      trigger: 'DRIP',
      flow_name: 'DRIP flow',
      email: 'drip@example.com',
      status: 'active',
      current_step_order: 4,
      next_send_date: '2030-03-04T08:00:00Z',
    });
    expect(timeline.steps).toEqual([
      { order: 1, name: null, type: 'send_email', state: 'done', summary: 'Send “Day 0 for {{ first_name }} {{last_name}}”' },
      { order: 2, name: 'day1', type: 'wait', state: 'done', summary: 'Wait 1d' },
      { order: 3, name: null, type: 'send_email', state: 'done', summary: 'Send “Day 1”' },
      { order: 4, name: null, type: 'wait', state: 'current', summary: 'Wait 2d' },
      { order: 5, name: null, type: 'send_email', state: 'pending', summary: 'Send “Day 3”' },
    ]);
    await flows.advance('5d');
    const mail = await flows.mail('drip@example.com');
    expect(mail.map((m) => [m.subject, m.created_at])).toEqual([
      ['Day 0 for Ann Lee', '2030-03-01T08:00:00Z'],
      ['Day 1', '2030-03-02T08:00:00Z'],
      ['Day 3', '2030-03-04T08:00:00Z'],
    ]);
    expect(await flows.subscription('drip@example.com', 'DRIP')).toMatchObject({
      status: 'completed',
      current_step_order: 5,
      next_send_date: null,
      updated_at: '2030-03-04T08:00:00Z',
    });
  });

  test('runs the steps of many subscriptions in due order within one advance', async ({ v1, flows }) => {
    await flows.subscribe('DRIP', 'early@example.com');
    await flows.advance('12h');
    await flows.subscribe('DRIP', 'late@example.com');
    await flows.advance('3d');
    const all = (await read(await v1.get('/api/messages?limit=500'))).body as any;
    const order = (all.messages as any[])
      .filter((m) => /^(early|late)@/.test(m.recipient))
      .reverse()
      .map((m) => `${m.recipient.split('@')[0]} ${m.subject.split(' for')[0]} ${m.created_at.slice(5, 16)}`);
    expect(order).toEqual([
      'early Day 0 03-07T08:00',
      'late Day 0 03-07T20:00',
      'early Day 1 03-08T08:00',
      'late Day 1 03-08T20:00',
      'early Day 3 03-10T08:00',
      'late Day 3 03-10T20:00',
    ]);
  });
});

describe('conditions and actions', () => {
  test('continues when the flag is there and jumps when it is missing (whenMissing / whenPresent)', async ({ flows }) => {
    await flows.v1.post('/v1/recipients/', { email: 'paid@example.com', flags: 'paid,trial' });
    await flows.subscribe('BRANCH', 'paid@example.com');
    expect(await flows.subjects('paid@example.com')).toEqual(['Thanks for paying']);
    expect(await flows.flags('paid@example.com')).toEqual(['paid']);
    expect((await flows.timeline('paid@example.com')).steps.map((s: any) => s.state)).toEqual(['done', 'done', 'done', 'skipped', 'done']);

    await flows.subscribe('BRANCH', 'free@example.com', { flags: 'trial,beta' });
    expect(await flows.subjects('free@example.com')).toEqual(['Upgrade now']);
    expect(await flows.flags('free@example.com')).toEqual(['beta']);
    expect((await flows.timeline('free@example.com')).steps.map((s: any) => s.state)).toEqual(['done', 'skipped', 'skipped', 'done', 'done']);
    expect(await flows.subscription('free@example.com', 'BRANCH')).toMatchObject({ status: 'completed', current_step_order: 5, next_send_date: null });
  });

  test('suppress blocks the recipient: later flow emails and API sends are captured as blocked', async ({ flows }) => {
    await flows.subscribe('SUPPRESS', 'gone@example.com');
    const mail = await flows.mail('gone@example.com');
    expect(mail.map((m) => [m.subject, m.status, m.blocked])).toEqual([
      ['First', 'delivered', false],
      ['Second', 'failed', true],
    ]);
    const send = await read(await flows.v1.post('/v1/email/send/', { recipient: 'gone@example.com', subject: 's', body: 'b' }));
    expect(send.status).toBe(200);
    expect((send.body as any).error).toBe('Recipient is blocked');
  });

  test('loops back to a named step (with a wait between) until the flag arrives', async ({ flows }) => {
    await flows.subscribe('LOOP', 'loop@example.com');
    await flows.advance('2d');
    expect(await flows.subjects('loop@example.com')).toEqual(['Reminder', 'Reminder', 'Reminder']);
    expect(await flows.subscription('loop@example.com', 'LOOP')).toMatchObject({ status: 'active', current_step_order: 2 });
    await flows.setFlags('loop@example.com', 'done');
    await flows.advance('1d');
    expect(await flows.subjects('loop@example.com')).toHaveLength(3);
    expect(await flows.subscription('loop@example.com', 'LOOP')).toMatchObject({ status: 'completed', current_step_order: 3 });
  });
});

describe('flow emails follow the sender rules', () => {
  test('Development Mode redirects a flow email; the record keeps the original recipient', async ({ flows }) => {
    await flows.subscribe('DEV', 'real.person@example.com');
    const [capture] = await flows.mail('real.person@example.com');
    expect(capture).toMatchObject({
      source: 'flow',
      from: 'dev@acme.example',
      recipient: 'real.person@example.com',
      to: ['dev-inbox@example.com'],
      redirected: true,
      subject: 'Hello real.person@example.com',
    });
    const detail = (await read(await flows.sandbox.get(`/api/messages/${capture!.id}`))).body as any;
    expect(detail).toMatchObject({ html: '<b>real.person@example.com</b>', text: 'Hi real.person@example.com', used_template: false });
  });

  test('without the account template when the step says so', async ({ flows }) => {
    await flows.subscribe('PLAIN', 'plain@example.com', { last_name: "O'Hara & Co" });
    const [capture] = await flows.mail('plain@example.com');
    const detail = (await read(await flows.sandbox.get(`/api/messages/${capture!.id}`))).body as any;
    expect(detail).toMatchObject({ html: '<p>O&#39;Hara &amp; Co</p>', text: "Dear O'Hara & Co", used_template: false });
  });

  test('a configured blocked recipient gets the flow email as a blocked capture', async ({ flows }) => {
    await flows.subscribe('PLAIN', 'blocked@example.com');
    expect((await flows.mail('blocked@example.com')).map((m) => [m.status, m.blocked])).toEqual([['failed', true]]);
  });
});

describe('stopping a subscription mid-flow', () => {
  test('unsubscribe: cancelled at once, nothing more is ever sent', async ({ flows }) => {
    await flows.subscribe('DRIP', 'quit@example.com');
    await flows.advance('1d');
    expect(await flows.subjects('quit@example.com')).toEqual(['Day 0 for  ', 'Day 1']);
    const res = await read(await flows.v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'DRIP', email: 'quit@example.com' }));
    expect(res.status).toBe(200);
    expect(await flows.subscription('quit@example.com', 'DRIP')).toMatchObject({ status: 'cancelled', current_step_order: 4, next_send_date: null });
    await flows.advance('10d');
    expect(await flows.subjects('quit@example.com')).toHaveLength(2);
    expect((await flows.timeline('quit@example.com')).steps.map((s: any) => s.state)).toEqual(['done', 'done', 'done', 'skipped', 'skipped']);
  });

  test('an unsubscribe racing an advance lands between steps: cancelled with no email, or too late with it', async ({ flows }) => {
    const emails = Array.from({ length: 40 }, (_, i) => `race${i}@example.com`);
    for (const email of emails) await flows.subscribe('ONCE', email);
    const advancing = flows.advance('1d');
    const unsubscribe = flows.v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'ONCE', email: 'race39@example.com' });
    await advancing;
    const res = await read(await unsubscribe);
    const sent = await flows.subjects('race39@example.com');
    const status = (await flows.subscription('race39@example.com', 'ONCE')).status;
    // Before the advance: cancelled, nothing sent. After it: sent and completed, so not subscribed any more.
    // Never both: a 200 with the email sent would mean it stopped in the middle of the step.
    if (res.status === 200) expect([sent.length, status]).toEqual([0, 'cancelled']);
    else expect([res.status, sent, status]).toEqual([400, ['Once'], 'completed']);
  });

  test('delete: the subscription is gone and nothing more is sent', async ({ flows }) => {
    await flows.subscribe('DRIP', 'deleted@example.com');
    await flows.advance('1d');
    const del = await flows.v1.request('DELETE', '/v1/flows/subscriptions/?email=deleted@example.com&flow_trigger=DRIP');
    expect(del.status).toBe(204);
    await flows.advance('10d');
    expect(await flows.subjects('deleted@example.com')).toEqual(['Day 0 for  ', 'Day 1']);
    expect(await flows.timeline('deleted@example.com')).toBeUndefined();
  });
});
