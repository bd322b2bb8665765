import { describe, expect } from 'vitest';
import type { ClockState } from '../../../server/domain/time/clock.ts';
import { api, read } from '../../support/app.ts';
import { flow, flowClient } from '../../support/flow-helpers.ts';
import { test } from '../../support/fixtures.ts';

const T0 = Date.parse('2030-05-10T10:00:00Z');
let real = T0;
/** Milliseconds real time moves on each time the sandbox reads it (0: it stands still). */
let tick = 0;
test.override('appOptions', {
  now: () => (real += tick),
  config: (c) => {
    c.teams[0]!.senders[0]!.dailyLimit = 2;
    c.delivery.delay = '1h';
    return c;
  },
});
/** On the file's app, with no key: `post(path, body?)` a JSON POST, `form(path, body)` a form POST, read. */
const it = test
  .extend(
    'post',
    { scope: 'file' },
    ({ app }) =>
      async (path: string, body?: unknown) =>
        read(await (body === undefined ? api(app.url, null).request('POST', path) : api(app.url, null).post(path, body))),
  )
  .extend(
    'form',
    { scope: 'file' },
    ({ app }) =>
      async (path: string, body: Record<string, string>) =>
        read(await api(app.url, null).form(path, body)),
  );

describe('/api/clock', () => {
  it('reads real time by default', async ({ app }) => {
    expect((await read(await api(app.url, null).get('/api/clock'))).text).toBe(
      '{"now":"2030-05-10T10:00:00Z","offset_ms":0,"real_time":true,"note":"The sandbox clock follows real time."}',
    );
  });

  it('advances by a duration (JSON, form or query), and keeps ticking with real time from there', async ({ app, post, form }) => {
    const changes: ClockState[] = [];
    app.sandbox.events.on('clock.changed', (state) => changes.push(state));
    expect((await post('/api/clock/advance', { duration: '1d12h' })).text).toBe(
      '{"now":"2030-05-11T22:00:00Z","offset_ms":129600000,"real_time":false,"note":"The sandbox clock is 1 day 12 hours ahead of real time: dates, daily limits and schedules use it. POST /api/clock/reset returns it to real time."}',
    );
    expect((await form('/api/clock/advance', { duration: '90m' })).body).toMatchObject({ now: '2030-05-11T23:30:00Z', offset_ms: 135000000, real_time: false });
    expect((await post('/api/clock/advance?duration=30m')).body).toMatchObject({ now: '2030-05-12T00:00:00Z' });
    real += 5000;
    expect((await read(await api(app.url, null).get('/api/clock'))).body).toEqual({
      now: '2030-05-12T00:00:05Z',
      offset_ms: 136800000,
      real_time: false,
      note: 'The sandbox clock is 1 day 14 hours ahead of real time: dates, daily limits and schedules use it. POST /api/clock/reset returns it to real time.',
    });
    expect(changes.map((s) => [s.now.toISOString(), s.offsetMs, s.realTime])).toEqual([
      ['2030-05-11T22:00:00.000Z', 129600000, false],
      ['2030-05-11T23:30:00.000Z', 135000000, false],
      ['2030-05-12T00:00:00.000Z', 136800000, false],
    ]);
  });

  it('advances by exactly the duration asked for, however much real time passes while the move runs', async ({ app, post }) => {
    const offsetOf = (res: { body: unknown }) => (res.body as { offset_ms: number }).offset_ms;
    const offset = async () => offsetOf(await read(await api(app.url, null).get('/api/clock')));
    const before = await offset();
    tick = 7;
    try {
      expect(offsetOf(await post('/api/clock/advance', { duration: '1m' }))).toBe(before + 60_000);
      expect(offsetOf(await post('/api/clock/advance?duration=1s'))).toBe(before + 61_000);
    } finally {
      tick = 0;
    }
    expect(await offset()).toBe(before + 61_000);
  });

  it('sets a later instant; an earlier one is refused', async ({ post }) => {
    expect((await post('/api/clock/set', { at: '2030-06-01T00:00:00+02:00' })).body).toMatchObject({ now: '2030-05-31T22:00:00Z', real_time: false });
    const back = await post('/api/clock/set', { at: '2030-05-31T21:59:59Z' });
    expect(back.status).toBe(400);
    expect(back.text).toBe('{"detail":"The sandbox clock cannot move backwards: it is already at 2030-05-31T22:00:00Z."}');
    expect((await post('/api/clock/set', { at: '2030-05-31T22:00:00Z' })).status).toBe(200);
  });

  it('refuses bad input with 400 and a detail, byte for byte', async ({ app, post }) => {
    const cases: [string, unknown, string][] = [
      ['/api/clock/advance', {}, '{"detail":"duration is required: a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}'],
      ['/api/clock/advance', { duration: '  ' }, '{"detail":"duration is required: a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}'],
      ['/api/clock/advance', { duration: 'soon' }, '{"detail":"\\"soon\\" is not a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}'],
      ['/api/clock/advance', { duration: -5 }, '{"detail":"\\"-5\\" is not a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}'],
      [
        '/api/clock/advance',
        { duration: '9999999999999999w' },
        '{"detail":"\\"9999999999999999w\\" is not a duration like \\"30s\\", \\"15m\\", \\"2h\\", \\"1d\\" or \\"1d12h\\"."}',
      ],
      ['/api/clock/advance', { duration: '500000w' }, '{"detail":"The sandbox clock cannot go past 9999-12-31T23:59:59Z."}'],
      ['/api/clock/set', {}, '{"detail":"at is required: an ISO 8601 instant such as \\"2026-02-17T12:00:00Z\\"."}'],
      ['/api/clock/set', { at: 'tomorrow' }, '{"detail":"\\"tomorrow\\" is not an ISO 8601 instant such as \\"2026-02-17T12:00:00Z\\"."}'],
      [
        '/api/clock/set',
        { at: '2031-02-30T00:00:00' },
        '{"detail":"\\"2031-02-30T00:00:00\\" is not an ISO 8601 instant such as \\"2026-02-17T12:00:00Z\\"."}',
      ],
      [
        '/api/clock/set',
        { at: '2031-13-01T00:00:00Z' },
        '{"detail":"\\"2031-13-01T00:00:00Z\\" is not an ISO 8601 instant such as \\"2026-02-17T12:00:00Z\\"."}',
      ],
    ];
    for (const [path, body, text] of cases) {
      const res = await post(path, body);
      expect([res.status, res.text]).toEqual([400, text]);
    }
    const broken = await read(
      await api(app.url, null).request('POST', '/api/clock/advance', { headers: { 'Content-Type': 'application/json' }, body: '{"duration":' }),
    );
    expect(broken.status).toBe(400);
    expect((broken.body as { detail: string }).detail).toMatch(/^JSON parse error - /);
    expect((await read(await api(app.url, null).get('/api/clock'))).body).toMatchObject({ now: '2030-05-31T22:00:00Z' });
  });

  it('the daily limit day follows the advanced clock (flow emails do not count)', async ({ app, post }) => {
    await flowClient(app.url).subscribe('WELCOME_SIGNUP', 'limit@example.com');
    const v1 = api(app.url, 'test-key');
    const send = async () => read(await v1.post('/v1/email/send/', { recipient: 'limit@example.com', subject: 's', body: 'b' }));
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
    expect((await send()).text).toBe('{"error":"Daily limit of 2 emails has been reached"}');
    await post('/api/clock/advance', { duration: '2h' });
    expect((await send()).status).toBe(200);
    expect((await flowClient(app.url).mail('limit@example.com')).map((m) => m.source)).toEqual(['flow', 'api', 'api', 'api']);
  });

  it('settles pending delivery outcomes as it passes them, bounces blocking the recipient', async ({ app, post }) => {
    const v1 = api(app.url, 'bulk-key');
    const ok = (await read(await v1.post('/v1/email/send/', { recipient: 'success@simulator.amazonses.com', subject: 's', body: 'b' }))).body as { id: string };
    const bounce = (await read(await v1.post('/v1/email/send/', { recipient: 'bounce@simulator.amazonses.com', subject: 's', body: 'b' }))).body as {
      id: string;
    };
    const status = async (id: string) => ((await read(await v1.get(`/v1/email/delivery/${id}/`))).body as { status: string }).status;
    expect([await status(ok.id), await status(bounce.id)]).toEqual(['pending', 'pending']);
    await post('/api/clock/advance', { duration: '59m59s' });
    expect(await status(ok.id)).toBe('pending');
    await post('/api/clock/advance', { duration: '1s' });
    expect([await status(ok.id), await status(bounce.id)]).toEqual(['delivered', 'bounced']);
    const again = await read(await v1.post('/v1/email/send/', { recipient: 'bounce@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect((again.body as { error?: string }).error).toBe('Recipient is blocked');
  });

  it('resets to real time; what is scheduled keeps its instant', async ({ app, post }) => {
    const c = flowClient(app.url);
    await c.subscribe('WELCOME_SIGNUP', 'reset@example.com');
    const before = await c.subscription('reset@example.com', 'WELCOME_SIGNUP');
    expect(before.next_send_date).toBe('2030-06-03T01:00:00Z');
    expect((await post('/api/clock/reset')).text).toBe(
      `{"now":"2030-05-10T10:00:05Z","offset_ms":0,"real_time":true,"note":"The sandbox clock follows real time."}`,
    );
    expect((await read(await api(app.url, null).get('/api/clock'))).body).toMatchObject({ real_time: true });
    expect(await c.subscription('reset@example.com', 'WELCOME_SIGNUP')).toEqual(before);
  });
});

describe('real time', () => {
  it('runs a due step when real time reaches it, with no clock call (one timer for the earliest)', async ({ apps }) => {
    const live = await apps.start({
      config: (c) => {
        c.flows.push(
          flow('SOON', [
            { type: 'wait', duration: '1s' },
            { type: 'send_email', subject: 'A second later', html: '<p>x</p>' },
          ]) as never,
        );
        return c;
      },
    });
    const c = flowClient(live.url);
    const started = Date.now();
    await c.subscribe('SOON', 'soon@example.com');
    expect(await c.subjects('soon@example.com')).toEqual([]);
    await expect.poll(async () => (await c.mail('soon@example.com')).length, { timeout: 5000 }).toBeGreaterThan(0);
    const [mail] = await c.mail('soon@example.com');
    expect(mail!.subject).toBe('A second later');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await expect.poll(async () => (await c.subscription('soon@example.com', 'SOON')).status).toBe('completed');
    expect(live.sandbox.scheduler.size).toBe(0);
  });
});
