import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { flow, flowClient } from '../../support/flow-helpers.ts';
import { test } from '../../support/fixtures.ts';

const T0 = Date.parse('2030-04-01T12:00:00Z');
test.override('appOptions', {
  now: () => T0,
  config: (c) => {
    c.teams.push({ id: 'other', name: 'Other', senders: [{ id: 'other-main', email: 'o@other.example', apiKey: 'other-key' }] } as never);
    c.flows.push(
      flow(
        'OTHER_WAIT',
        [
          { type: 'wait', untilFlag: 'ready', timeout: '3h' },
          { type: 'action', action: 'suppress' },
          { type: 'condition', flag: 'ready', whenMissing: 'end' },
          { type: 'action', action: 'set_flag', flag: 'welcomed' },
          { name: 'end', type: 'action', action: 'clear_flag', flag: 'ready' },
        ],
        'other-main',
      ) as never,
    );
    return c;
  },
});
/** `sandbox()`: sandbox API requests to the file's app (no key). */
const it = test.extend(
  'sandbox',
  { scope: 'file' },
  ({ app }) =>
    () =>
      api(app.url, null),
);

describe('GET /api/subscriptions', () => {
  it("lists every team's subscriptions newest first with the step timeline", async ({ app, sandbox }) => {
    await flowClient(app.url).subscribe('WELCOME_SIGNUP', 'one@example.com');
    await flowClient(app.url, 'other-key').subscribe('OTHER_WAIT', 'two@example.com');
    const res = await read(await sandbox().get('/api/subscriptions'));
    expect(res.status).toBe(200);
    const body = res.body as any;
    expect(body).toMatchObject({ total: 2, offset: 0, limit: 50 });
    expect(body.subscriptions[0]).toEqual({
      id: 2,
      team: 'other',
      trigger: 'OTHER_WAIT',
      flow_name: 'OTHER_WAIT flow',
      email: 'two@example.com',
      status: 'active',
      current_step_order: 1,
      next_send_date: '2030-04-01T15:00:00Z',
      created_at: '2030-04-01T12:00:00Z',
      updated_at: '2030-04-01T12:00:00Z',
      steps: [
        { order: 1, name: null, type: 'wait', state: 'current', summary: 'Wait 3h or until flag ready' },
        { order: 2, name: null, type: 'action', state: 'pending', summary: 'Suppress the recipient' },
        { order: 3, name: null, type: 'condition', state: 'pending', summary: 'If not ready → end' },
        { order: 4, name: null, type: 'action', state: 'pending', summary: 'Set flag welcomed' },
        { order: 5, name: 'end', type: 'action', state: 'pending', summary: 'Clear flag ready' },
      ],
    });
    expect(body.subscriptions[1].steps.map((s: any) => [s.name, s.state, s.summary])).toEqual([
      ['welcome', 'done', 'Send “Welcome to Acme, {{first_name}}!”'],
      ['wait-for-onboarding', 'current', 'Wait 2d or until flag onboarded'],
      ['check-onboarded', 'pending', 'If onboarded → thanks'],
      ['nudge', 'pending', 'Send “Need a hand getting started, {{first_name}}?”'],
      ['mark-nudged', 'pending', 'Set flag nudged'],
      ['thanks', 'pending', 'Send “Thanks for joining Acme”'],
    ]);
  });

  it('filters by team, email (any case) and status, and pages', async ({ app, sandbox }) => {
    await flowClient(app.url).advance('3h');
    const ids = async (query: string) => ((await read(await sandbox().get(`/api/subscriptions${query}`))).body as any).subscriptions.map((s: any) => s.id);
    expect(await ids('?team=acme')).toEqual([1]);
    expect(await ids('?email=TWO@example.com')).toEqual([2]);
    expect(await ids('?status=completed')).toEqual([2]);
    expect(await ids('?status=active')).toEqual([1]);
    expect(await ids('?status=cancelled')).toEqual([]);
    expect(await ids('?limit=1&offset=1')).toEqual([1]);
    const other = ((await read(await sandbox().get('/api/subscriptions?team=other'))).body as any).subscriptions[0];
    // The timeout passed without the flag: suppressed, then the condition jumped to the end.
    expect(other.steps.map((s: any) => s.state)).toEqual(['done', 'done', 'done', 'skipped', 'done']);
    expect(other).toMatchObject({ status: 'completed', current_step_order: 5, next_send_date: null, updated_at: '2030-04-01T15:00:00Z' });
  });

  it('refuses bad parameters with 400 and a detail', async ({ sandbox }) => {
    const cases: [string, string][] = [
      ['?status=done', '{"detail":"status must be one of active, completed, cancelled."}'],
      ['?limit=0', '{"detail":"limit must be a whole number from 1 to 500."}'],
      ['?limit=501', '{"detail":"limit must be a whole number from 1 to 500."}'],
      ['?offset=-1', '{"detail":"offset must be a whole number from 0 to 9007199254740991."}'],
    ];
    for (const [query, text] of cases) {
      const res = await read(await sandbox().get(`/api/subscriptions${query}`));
      expect([res.status, res.text]).toEqual([400, text]);
    }
  });
});
