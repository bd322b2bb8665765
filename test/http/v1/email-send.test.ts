import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

/** `capture(id)`: the sandbox API's detail of a capture of the file's app. */
const it = test.extend(
  'capture',
  { scope: 'file' },
  ({ app }) =>
    (id: string) =>
      fetch(`${app.url}/api/messages/${id}`).then((r) => r.json()) as Promise<Record<string, any>>,
);

describe('POST /v1/email/send/ field errors', () => {
  it('lists every missing required field in one object', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/email/send/', {}));
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"recipient":["This field is required."],"subject":["This field is required."],"body":["This field is required."]}');
  });

  it('says blank for empty strings and validates the address', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/email/send/', { recipient: '', subject: '  ', body: '' }));
    expect(res.body).toEqual({
      recipient: ['This field may not be blank.'],
      subject: ['This field may not be blank.'],
      body: ['This field may not be blank.'],
    });
    const bad = await read(await v1.post('/v1/email/send/', { recipient: 'not-an-address', subject: 's', body: 'b' }));
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('{"recipient":["Enter a valid email address."]}');
  });

  it('refuses addresses the real validator refuses and takes the ones it takes', async ({ v1 }) => {
    for (const address of ['a@b', 'a@@b.com', '@b.com', 'a b@c.com', 'a@-b.com', 'a@b.c', '"a@b.com']) {
      const res = await read(await v1.post('/v1/email/send/', { recipient: address, subject: 's', body: 'b' }));
      expect(res.body, address).toEqual({ recipient: ['Enter a valid email address.'] });
    }
    for (const address of ['a.b+tag@example.co.uk', 'x@localhost', 'user@[127.0.0.1]', 'ü@bücher.de'.replace('ü@', 'u@')]) {
      const res = await v1.post('/v1/email/send/', { recipient: address, subject: 's', body: 'b' });
      expect(res.status, address).toBe(200);
    }
  });

  it('names wrong types with the standard messages', async ({ v1 }) => {
    const res = await read(
      await v1.post('/v1/email/send/', { recipient: ['a@example.com'], subject: { a: 1 }, body: null, use_account_template: 'maybe', first_name: true }),
    );
    expect(res.body).toEqual({
      recipient: ['Not a valid string.'],
      subject: ['Not a valid string.'],
      body: ['This field may not be null.'],
      first_name: ['Not a valid string.'],
      use_account_template: ['Must be a valid boolean.'],
    });
  });

  it('takes numbers as strings, as the real serializer does', async ({ v1, capture }) => {
    const res = await read(await v1.post('/v1/email/send/', { recipient: 'num@example.com', subject: 42, body: 7 }));
    expect(res.status).toBe(200);
    expect((await capture((res.body as { id: string }).id)).subject).toBe('42');
  });
});

describe('POST /v1/email/send/ accepted', () => {
  it('answers exactly {"id"} with a short Sqids id and captures the email', async ({ v1, capture }) => {
    const res = await read(
      await v1.post('/v1/email/send/', {
        recipient: 'Ann@Example.com',
        subject: ' Hello ',
        body: '<p>Hi</p>',
        plain_body: 'Hi',
        first_name: 'Ann',
        unknown_field: 'ignored',
      }),
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object)).toEqual(['id']);
    const id = (res.body as { id: string }).id;
    expect(id).toMatch(/^[A-Za-z0-9]{3,}$/);
    const m = await capture(id);
    expect(m).toMatchObject({
      id,
      source: 'api',
      recipient: 'Ann@Example.com',
      to: ['Ann@Example.com'],
      subject: 'Hello',
      from: 'hello@acme.example',
      status: 'delivered',
      blocked: false,
      redirected: false,
      used_template: true,
      text: 'Hi',
    });
    expect(m.html).toContain('<p>Hi</p>');
    expect(m.html).toContain('Acme Inc.');
  });

  it('skips the account template when use_account_template is false in any accepted spelling', async ({ v1, capture }) => {
    for (const value of [false, 'false', 'FALSE', '0', 0, 'no', 'Off']) {
      const res = await read(
        await v1.post('/v1/email/send/', { recipient: 'plain@example.com', subject: 's', body: '<b>raw</b>', use_account_template: value }),
      );
      expect(res.status, String(value)).toBe(200);
      const m = await capture((res.body as { id: string }).id);
      expect(m.html, String(value)).toBe('<b>raw</b>');
      expect(m.used_template).toBe(false);
    }
  });

  it('works form-encoded, as the Django client sends it', async ({ v1, capture }) => {
    const res = await read(
      await v1.form('/v1/email/send/', {
        recipient: 'form@example.com',
        subject: 'Form',
        body: '<p>f</p>',
        flags: ['a, b', 'c'],
        use_account_template: 'false',
      }),
    );
    expect(res.status).toBe(200);
    const m = await capture((res.body as { id: string }).id);
    expect(m).toMatchObject({ subject: 'Form', html: '<p>f</p>', flags: ['a', 'b', 'c'] });
    const missing = await read(await v1.form('/v1/email/send/', { recipient: 'form@example.com' }));
    expect(missing.body).toEqual({ subject: ['This field is required.'], body: ['This field is required.'] });
  });

  it('works multipart with repeated attachment fields, bytes kept exactly', async ({ app, v1, capture }) => {
    const form = new FormData();
    form.append('recipient', 'files@example.com');
    form.append('subject', 'With files');
    form.append('body', '<p>see attached</p>');
    const pdf = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10]);
    form.append('attachment', new Blob([pdf], { type: 'application/pdf' }), 'report.pdf');
    form.append('attachment', new Blob(['a,b\n1,2\n'], { type: 'text/csv' }), 'data.csv');
    form.append('attachment', new Blob([], { type: 'text/plain' }), 'empty.txt');
    const res = await read(await v1.multipart('/v1/email/send/', form));
    expect(res.status).toBe(200);
    const m = await capture((res.body as { id: string }).id);
    expect(m.attachments.map((a: any) => [a.filename, a.content_type, a.size])).toEqual([
      ['report.pdf', 'application/pdf', 7],
      ['data.csv', 'text/csv', 8],
      ['empty.txt', 'text/plain', 0],
    ]);
    const bytes = new Uint8Array(await (await fetch(app.url + m.attachments[0].url)).arrayBuffer());
    expect([...bytes]).toEqual([...pdf]);
    const raw = await (await fetch(app.url + m.raw_url)).text();
    expect(raw).toContain('Subject: With files');
    expect(raw).toMatch(/filename=("?)report\.pdf\1/);
    expect(raw).toContain('Content-Type: application/pdf');
  });

  it('adds the recipient record: names, normalised flags, has_been_sent_email', async ({ v1 }) => {
    await v1.post('/v1/email/send/', { recipient: 'rec@example.com', subject: 's', body: 'b', first_name: 'Rae', flags: ' vip , beta,,vip' });
    await v1.post('/v1/email/send/', { recipient: 'REC@example.com', subject: 's', body: 'b', last_name: 'Cole', flags: ['beta', 'new'] });
    const res = await read(await v1.get('/v1/recipients/?email=rec@example.com'));
    const [r] = (res.body as { results: any[] }).results;
    expect(r).toMatchObject({ email: 'rec@example.com', first_name: 'Rae', last_name: 'Cole', flags: ['vip', 'beta', 'new'], has_been_sent_email: true });
  });
});

describe('sender rules', () => {
  it('captures a blocked recipient as failed and says so beside the id', async ({ v1, capture }) => {
    const res = await read(await v1.post('/v1/email/send/', { recipient: 'Blocked@example.com', subject: 's', body: 'b' }));
    expect(res.status).toBe(200);
    const { id } = res.body as { id: string };
    expect(res.text).toBe(`{"id":"${id}","error":"Recipient is blocked"}`);
    expect(await capture(id)).toMatchObject({ blocked: true, status: 'failed' });
    const delivery = await read(await v1.get(`/v1/email/delivery/${id}/`));
    expect(delivery.body).toMatchObject({ id, status: 'failed' });
  });

  it('redirects in Development Mode and keeps the original recipient on the record', async ({ app, capture }) => {
    const dev = api(app.url, 'dev-key');
    const res = await read(await dev.post('/v1/email/send/', { recipient: 'customer@example.com', subject: 'Dev', body: '<p>d</p>' }));
    const { id } = res.body as { id: string };
    expect(await capture(id)).toMatchObject({ recipient: 'customer@example.com', to: ['dev-inbox@example.com'], redirected: true });
    const detail = await read(await dev.get(`/v1/email/detail/${id}/`));
    expect(detail.body).toMatchObject({ recipient: 'customer@example.com' });
    const raw = await (await fetch(`${app.url}/api/messages/${id}/raw`)).text();
    expect(raw).toContain('To: dev-inbox@example.com');
    expect(raw).toContain('X-Original-To: customer@example.com');
  });

  it('decides blocking on the original recipient, before the Development Mode redirect', async ({ app }) => {
    const dev = api(app.url, 'dev-key');
    const res = await read(await dev.post('/v1/email/send/', { recipient: 'blocked@example.com', subject: 's', body: 'b' }));
    expect(res.body).toMatchObject({ error: 'Recipient is blocked' });
  });

  it('follows the SES simulator: a bounce or complaint blocks the recipient afterwards', async ({ v1 }) => {
    const cases = [
      ['success@simulator.amazonses.com', 'delivered'],
      ['bounce@simulator.amazonses.com', 'bounced'],
      ['complaint+x@simulator.amazonses.com', 'complained'],
      ['suppressionlist@simulator.amazonses.com', 'bounced'],
    ] as const;
    for (const [address, status] of cases) {
      const { id } = (await (await v1.post('/v1/email/send/', { recipient: address, subject: 's', body: 'b' })).json()) as { id: string };
      const delivery = await read(await v1.get(`/v1/email/delivery/?id=${id}`));
      expect(delivery.status).toBe(200);
      expect(Object.keys(delivery.body as object)).toEqual(['id', 'status', 'ses_id']);
      expect(delivery.body).toMatchObject({ id, status });
      expect((delivery.body as { ses_id: string }).ses_id).toMatch(/^0100[0-9a-f]{12}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-000000$/);
    }
    const again = await read(await v1.post('/v1/email/send/', { recipient: 'bounce@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(again.body).toMatchObject({ error: 'Recipient is blocked' });
    const complaint = await read(await v1.post('/v1/email/send/', { recipient: 'complaint+x@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(complaint.body).toMatchObject({ error: 'Recipient is blocked' });
    const success = await read(await v1.post('/v1/email/send/', { recipient: 'success@simulator.amazonses.com', subject: 's', body: 'b' }));
    expect(Object.keys(success.body as object)).toEqual(['id']);
  });
});

describe('daily limit', () => {
  it('answers 429 once the sender created its limit today, blocked sends included, and creates nothing', async ({ apps }) => {
    const limited = await apps.start({
      config: (c) => {
        c.teams[0]!.senders[0]!.dailyLimit = 3;
        return c;
      },
    });
    const send = (recipient: string) => api(limited.url, 'test-key').post('/v1/email/send/', { recipient, subject: 's', body: 'b' }).then(read);
    expect((await send('one@example.com')).status).toBe(200);
    expect((await send('blocked@example.com')).status).toBe(200);
    expect((await send('three@example.com')).status).toBe(200);
    const over = await send('four@example.com');
    expect(over.status).toBe(429);
    expect(over.text).toBe('{"error":"Daily limit of 3 emails has been reached"}');
    expect(limited.sandbox.messages.count()).toBe(3);
    // Another sender of the team has its own count.
    expect((await api(limited.url, 'bulk-key').post('/v1/email/send/', { recipient: 'x@example.com', subject: 's', body: 'b' })).status).toBe(200);
    // Field errors still come first: validation precedes business rules.
    expect((await read(await api(limited.url, 'test-key').post('/v1/email/send/', {}))).status).toBe(400);
  });

  it('counts per UTC day of the sandbox clock: a new day starts a new count', async ({ apps }) => {
    let now = Date.parse('2026-02-17T23:59:58Z');
    const limited = await apps.start({
      now: () => now,
      config: (c) => {
        c.teams[0]!.senders[0]!.dailyLimit = 1;
        return c;
      },
    });
    const send = () => api(limited.url, 'test-key').post('/v1/email/send/', { recipient: 'day@example.com', subject: 's', body: 'b' }).then(read);
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(429);
    now = Date.parse('2026-02-18T00:00:01Z');
    const next = await send();
    expect(next.status).toBe(200);
    const detail = await read(await api(limited.url, 'test-key').get(`/v1/email/detail/${(next.body as { id: string }).id}/`));
    expect((detail.body as { created_on: string }).created_on).toBe('2026-02-18T00:00:01Z');
    expect((await send()).status).toBe(429);
  });

  it('holds under concurrent sends: exactly the limit gets through', async ({ apps }) => {
    const limited = await apps.start({
      config: (c) => {
        c.teams[0]!.senders[0]!.dailyLimit = 5;
        return c;
      },
    });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api(limited.url, 'test-key').post('/v1/email/send/', { recipient: `c${i}@example.com`, subject: 's', body: 'b' })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 429)).toHaveLength(15);
  });
});
