import { cp } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

/** On the file's app: `detail(id)` the capture's full JSON, `summary(id)` its list entry, `send(key, fields)` a /v1 send's id. */
const it = test
  .extend(
    'detail',
    { scope: 'file' },
    ({ app }) =>
      async (id: string) =>
        (await read(await fetch(`${app.url}/api/messages/${id}`))).body as any,
  )
  .extend(
    'summary',
    { scope: 'file' },
    ({ app }) =>
      async (id: string) =>
        ((await read(await fetch(`${app.url}/api/messages?limit=500`))).body as any).messages.find((m: any) => m.id === id),
  )
  .extend(
    'send',
    { scope: 'file' },
    ({ app }) =>
      async (key: string, fields: Record<string, unknown>) =>
        ((await read(await api(app.url, key).post('/v1/email/send/', fields))).body as any).id as string,
  );

const BODY = '<p>Hello <b>Ada</b>, your code is 482913.</p>';

describe('the body as sent, kept beside the wrapped HTML', () => {
  it('a /v1 send wrapped in the account template keeps its body and the version that wrapped it', async ({ send, detail, summary, app }) => {
    const id = await send('test-key', { recipient: 'kept@example.com', subject: 'Kept', body: BODY });
    const capture = await detail(id);
    expect(capture.used_template).toBe(true);
    expect(capture.unwrapped_body).toBe('kept');
    expect(capture.template_version).toBe(0);
    expect(capture.unwrapped_html).toBe(BODY);
    const configured = app.sandbox.directory.sender('acme-main')!.sender.accountTemplate!;
    expect(capture.html).toBe(configured.replace('{{content}}', BODY));
    expect(await summary(id)).toMatchObject({ template_version: 0, unwrapped_body: 'kept' });
  });

  it('a send without the template, a sender without one and an SMTP message say not_wrapped: the HTML is the body as sent', async ({ send, detail, smtp }) => {
    const off = await detail(await send('test-key', { recipient: 'off@example.com', subject: 'Off', body: BODY, use_account_template: false }));
    const none = await detail(await send('bulk-key', { recipient: 'none@example.com', subject: 'None', body: BODY }));
    const mailed = await detail(await smtp.send({ from: 'a@example.com', to: 'smtp@example.com', subject: 'SMTP', html: BODY }));
    for (const capture of [off, none, mailed]) {
      expect({ used: capture.used_template, state: capture.unwrapped_body, version: capture.template_version }).toEqual({
        used: false,
        state: 'not_wrapped',
        version: null,
      });
      expect(capture.unwrapped_html).toBe(capture.html);
    }
    expect(off.html).toBe(BODY);
  });

  it('an encrypted send keeps its body as sent too', async ({ v1, detail }) => {
    const response = await read(
      await v1.post('/v1/email/send/', { recipient: 'sealed@example.com', subject: 'Sealed', body: BODY }, { 'Encryption-Key': 'k3y' }),
    );
    const capture = await detail((response.body as any).id);
    expect({ encrypted: capture.encrypted, state: capture.unwrapped_body, html: capture.unwrapped_html }).toEqual({
      encrypted: true,
      state: 'kept',
      html: BODY,
    });
  });

  it('a flow step wrapped in the template keeps its body as sent', async ({ flows, detail }) => {
    await flows.subscribe('WELCOME_SIGNUP', 'flow-kept@example.com', { first_name: 'Ada' });
    const [first] = await flows.mail('flow-kept@example.com');
    const capture = await detail(first!.id);
    expect(capture.source).toBe('flow');
    expect(capture.unwrapped_body).toBe('kept');
    expect(capture.template_version).toBe(0);
    expect(capture.html).toContain(capture.unwrapped_html);
    expect(capture.html.length).toBeGreaterThan(capture.unwrapped_html.length);
  });
});

describe('stored as a part of its own', () => {
  it('reads back after a restart, from the packs', async ({ apps }) => {
    const first = await apps.start();
    const id = ((await read(await api(first.url, 'test-key').post('/v1/email/send/', { recipient: 'r@example.com', subject: 'R', body: BODY }))).body as any)
      .id;
    const record = (await first.sandbox.messages.get(id))!;
    expect(Object.keys(record.content).sort()).toEqual(['body', 'html']);
    await first.close();
    const second = await apps.start({ dataDir: first.dataDir });
    const capture = (await read(await fetch(`${second.url}/api/messages/${id}`))).body as any;
    expect({ state: capture.unwrapped_body, html: capture.unwrapped_html }).toEqual({ state: 'kept', html: BODY });
  });

  it('a capture without a template stores no extra part', async ({ app, send }) => {
    const id = await send('bulk-key', { recipient: 'plain@example.com', subject: 'Plain', body: BODY });
    expect(Object.keys((await app.sandbox.messages.get(id))!.content)).toEqual(['html']);
  });
});

describe('captures stored before the body as sent was kept', () => {
  it('say not_kept, with no unwrapped HTML and no version, and not an error', async ({ apps, tempDir }) => {
    await cp(fileURLToPath(new URL('../../../fixtures/legacy-data-v1', import.meta.url)), tempDir, { recursive: true });
    const old = await apps.start({ dataDir: tempDir });
    // The fixture's eight captures (a flow subscription in it may send more once started).
    const ids = ['UkL', 'gbH', 'Efh', 'VqX', 'uw2', 'OIJ', 'AXs', 'p6k'];
    const wrapped = await Promise.all(ids.map(async (id) => (await read(await fetch(`${old.url}/api/messages/${id}`))).body as any));
    const states = wrapped.map((c) => [c.used_template, c.unwrapped_body, c.template_version, c.unwrapped_html === null]);
    expect(new Set(states.map((s) => JSON.stringify(s)))).toEqual(
      new Set([JSON.stringify([true, 'not_kept', null, true]), JSON.stringify([false, 'not_wrapped', null, false])]),
    );
    expect(wrapped.filter((c) => c.unwrapped_body === 'not_kept')).toHaveLength(6);
  });
});
