import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describe('POST /v1/flows/subscribe/', () => {
  it('subscribes, creates the recipient, and answers 201 with the exact message', async ({ v1 }) => {
    const res = await read(
      await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com', first_name: 'Flo', flags: 'trial' }),
    );
    expect(res.status).toBe(201);
    expect(res.text).toBe(`{"detail":"Recipient 'flow@example.com' successfully subscribed to flow 'Welcome Signup Flow'.","subscription_id":1}`);
    const recipient = await read(await v1.get('/v1/recipients/?email=flow@example.com'));
    // The flow's first step (the welcome email) has run before the 201.
    expect((recipient.body as { results: unknown[] }).results[0]).toMatchObject({ first_name: 'Flo', flags: ['trial'], has_been_sent_email: true });
  });

  it('refuses a second active subscription, an unknown trigger and a flow without steps', async ({ v1 }) => {
    const again = await read(await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com' }));
    expect(again.status).toBe(400);
    expect(again.text).toBe(`{"detail":"Recipient 'flow@example.com' is already subscribed to flow 'Welcome Signup Flow'."}`);
    const unknown = await read(await v1.post('/v1/flows/subscribe/', { flow_trigger: 'NOPE', email: 'flow@example.com' }));
    expect(unknown.text).toBe(`{"detail":"Flow with trigger 'NOPE' not found."}`);
    const empty = await read(await v1.post('/v1/flows/subscribe/', { flow_trigger: 'EMPTY_FLOW', email: 'flow@example.com' }));
    expect(empty.status).toBe(400);
    expect(empty.text).toBe(`{"detail":"Flow 'Empty Flow' has no steps."}`);
  });

  it('reports field errors for missing or invalid fields', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/flows/subscribe/', {}));
    expect(res.text).toBe('{"flow_trigger":["This field is required."],"email":["This field is required."]}');
    const bad = await read(await v1.form('/v1/flows/subscribe/', { flow_trigger: '', email: 'x' }));
    expect(bad.body).toEqual({ flow_trigger: ['This field may not be blank.'], email: ['Enter a valid email address.'] });
  });
});

describe('subscriptions list, unsubscribe and delete', () => {
  it('lists subscriptions newest first with the exact fields, filtered', async ({ v1 }) => {
    await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'second@example.com' });
    const res = await read(await v1.get('/v1/flows/subscriptions/'));
    const list = res.body as any[];
    expect(Array.isArray(list)).toBe(true);
    expect(list.map((s) => s.recipient_email)).toEqual(['second@example.com', 'flow@example.com']);
    expect(Object.keys(list[0])).toEqual([
      'id',
      'flow_name',
      'flow_trigger',
      'recipient_email',
      'status',
      'current_step_order',
      'next_send_date',
      'created_at',
      'updated_at',
    ]);
    expect(list[0]).toMatchObject({ id: 2, flow_name: 'Welcome Signup Flow', flow_trigger: 'WELCOME_SIGNUP', status: 'active', current_step_order: 2 });
    expect(list[0].next_send_date).toMatch(TIME);
    expect(list[0].created_at).toMatch(TIME);
    const filtered = (await read(await v1.get('/v1/flows/subscriptions/?email=FLOW@example.com&flow_trigger=WELCOME_SIGNUP'))).body as any[];
    expect(filtered.map((s) => s.id)).toEqual([1]);
    expect((await read(await v1.get('/v1/flows/subscriptions/?flow_trigger=OTHER'))).body).toEqual([]);
  });

  it('unsubscribes: cancelled, no next send date; then a new subscription is allowed', async ({ v1 }) => {
    const res = await read(await v1.form('/v1/flows/unsubscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com' }));
    expect(res.status).toBe(200);
    expect(res.text).toBe(`{"detail":"Recipient 'flow@example.com' successfully unsubscribed from flow 'Welcome Signup Flow'."}`);
    const [sub] = (await read(await v1.get('/v1/flows/subscriptions/?email=flow@example.com'))).body as any[];
    expect(sub).toMatchObject({ status: 'cancelled', next_send_date: null });
    const again = await read(await v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com' }));
    expect(again.status).toBe(400);
    expect(again.text).toBe(`{"detail":"Recipient 'flow@example.com' is not subscribed to flow 'Welcome Signup Flow'."}`);
    const unknown = await read(await v1.post('/v1/flows/unsubscribe/', { flow_trigger: 'NOPE', email: 'flow@example.com' }));
    expect(unknown.text).toBe(`{"detail":"Flow with trigger 'NOPE' not found."}`);
    const resubscribe = await read(await v1.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'flow@example.com' }));
    expect(resubscribe.status).toBe(201);
    expect((resubscribe.body as { subscription_id: number }).subscription_id).toBe(3);
  });

  it("deletes a recipient's subscriptions to a flow: 204, then 404", async ({ v1 }) => {
    const del = await v1.request('DELETE', '/v1/flows/subscriptions/?email=flow@example.com&flow_trigger=WELCOME_SIGNUP');
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    expect((await read(await v1.get('/v1/flows/subscriptions/?email=flow@example.com'))).body).toEqual([]);
    const again = await read(await v1.request('DELETE', '/v1/flows/subscriptions/?email=flow@example.com&flow_trigger=WELCOME_SIGNUP'));
    expect(again.status).toBe(404);
    expect(again.text).toBe('{"detail":"Not found."}');
  });

  it('reads DELETE parameters from a JSON or form body too, and needs both', async ({ v1 }) => {
    const json = await v1.request('DELETE', '/v1/flows/subscriptions/', {
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'second@example.com', flow_trigger: 'WELCOME_SIGNUP' }),
    });
    expect(json.status).toBe(204);
    const missing = await read(await v1.request('DELETE', '/v1/flows/subscriptions/?email=a@example.com'));
    expect(missing.status).toBe(400);
    expect(missing.text).toBe('{"detail":"Both email and flow_trigger are required."}');
  });

  it('keeps teams apart: another team cannot see or use the flows', async ({ apps }) => {
    const other = await apps.start({
      config: (c) => {
        c.teams.push({ id: 'other', flowsEnabled: true, senders: [{ id: 'o', email: 'o@other.example', apiKey: 'other-key' }] } as never);
        return c;
      },
    });
    await api(other.url, 'test-key').post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'x@example.com' });
    const o = api(other.url, 'other-key');
    expect((await read(await o.get('/v1/flows/subscriptions/'))).body).toEqual([]);
    const res = await read(await o.post('/v1/flows/subscribe/', { flow_trigger: 'WELCOME_SIGNUP', email: 'x@example.com' }));
    expect(res.text).toBe(`{"detail":"Flow with trigger 'WELCOME_SIGNUP' not found."}`);
  });
});
