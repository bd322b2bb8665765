import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs, type Fs } from '../../../server/storage/disk/fs.ts';
import { api, read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

const V2 = '<html><body><div class="v2">{{content}}</div></body></html>';
const V3 = '<html><body><section class="v3">{{content}}</section></body></html>';

/** Each test its own app (`freshApp`): `call(method, path, body?)`, `send(key, fields)` a /v1 send's capture (detail). */
const it = test
  .extend(
    'call',
    ({ freshApp }) =>
      async (method: string, path: string, body?: unknown) =>
        read(
          await fetch(freshApp.url + path, {
            method,
            headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        ),
  )
  .extend('send', ({ freshApp, call }) => async (key: string, body = '<p>Hi</p>') => {
    const sent = await read(await api(freshApp.url, key).post('/v1/email/send/', { recipient: 'd@example.com', subject: 'S', body }));
    return (await call('GET', `/api/messages/${(sent.body as any).id}`)).body as any;
  });

describe('GET and PUT /api/senders/{sender}/template', () => {
  it("starts at version 0, the configuration file's (html null for a sender without one)", async ({ call, freshApp }) => {
    const configured = freshApp.sandbox.directory.sender('acme-main')!.sender.accountTemplate;
    expect((await call('GET', '/api/senders/acme-main/template')).body).toEqual({
      sender: 'acme-main',
      version: 0,
      html: configured,
      saved_at: null,
      current: true,
    });
    expect((await call('GET', '/api/senders/acme-bulk/template')).body).toEqual({ sender: 'acme-bulk', version: 0, html: null, saved_at: null, current: true });
  });

  it('a save wraps the next send, no restart; the capture carries the version', async ({ call, send }) => {
    const saved = await call('PUT', '/api/senders/acme-main/template', { html: V2 });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ sender: 'acme-main', version: 1, html: V2, current: true });
    const capture = await send('test-key', '<p>Hello</p>');
    expect(capture.html).toBe('<html><body><div class="v2"><p>Hello</p></div></body></html>');
    expect({ version: capture.template_version, body: capture.unwrapped_html }).toEqual({ version: 1, body: '<p>Hello</p>' });
    const senders = (await call('GET', '/api/senders')).body as any;
    expect(senders.senders.find((s: any) => s.id === 'acme-main')).toMatchObject({ has_account_template: true, template_version: 1 });
    expect((await call('GET', '/api/senders/acme-main/template')).body).toMatchObject({ version: 1, html: V2 });
  });

  it('refuses a template without {{content}}, a body that is not a string, and an unknown sender, byte for byte', async ({ call }) => {
    const missing = await call('PUT', '/api/senders/acme-main/template', { html: '<html><body>{{ content }}</body></html>' });
    expect([missing.status, missing.text]).toEqual([400, '{"detail":"html must contain {{content}} where the body goes."}']);
    const notString = await call('PUT', '/api/senders/acme-main/template', { html: 42 });
    expect([notString.status, notString.text]).toEqual([400, '{"detail":"html must be a string."}']);
    const tooLarge = await call('PUT', '/api/senders/acme-main/template', { html: `{{content}}${'x'.repeat(128 * 1024)}` });
    expect([tooLarge.status, tooLarge.text]).toEqual([400, '{"detail":"html is 131083 bytes; an account template may have at most 131072."}']);
    const nobody = await call('PUT', '/api/senders/nobody/template', { html: V2 });
    expect([nobody.status, nobody.text]).toEqual([404, '{"detail":"Unknown sender \\"nobody\\"."}']);
    expect((await call('GET', '/api/senders/acme-main/template/versions')).body).toMatchObject({ current: 0, versions: [{ version: 0 }] });
  });

  it('gives a sender configured without a template one, and reverting to the configured one takes it away again', async ({ call, send }) => {
    await call('PUT', '/api/senders/acme-bulk/template', { html: V2 });
    expect((await send('bulk-key')).html).toBe('<html><body><div class="v2"><p>Hi</p></div></body></html>');
    expect((await call('POST', '/api/senders/acme-bulk/template/revert', {})).body).toMatchObject({ version: 0, html: null, current: true });
    const plain = await send('bulk-key');
    expect({ html: plain.html, used: plain.used_template, version: plain.template_version }).toEqual({ html: '<p>Hi</p>', used: false, version: null });
  });
});

describe('versions and revert', () => {
  it('lists version 0 and every save; a revert makes an earlier one current without deleting any', async ({ call, send, freshApp }) => {
    await call('PUT', '/api/senders/acme-main/template', { html: V2 });
    await call('PUT', '/api/senders/acme-main/template', { html: V3 });
    const reverted = await call('POST', '/api/senders/acme-main/template/revert', { version: 1 });
    expect(reverted.body).toMatchObject({ version: 1, html: V2, current: true });
    const versions = (await call('GET', '/api/senders/acme-main/template/versions')).body as any;
    expect(versions.current).toBe(1);
    expect(versions.versions.map((v: any) => [v.version, v.current, v.saved_at === null])).toEqual([
      [0, false, true],
      [1, true, false],
      [2, false, false],
    ]);
    expect((await send('test-key')).template_version).toBe(1);
    await call('POST', '/api/senders/acme-main/template/revert', {});
    const configured = freshApp.sandbox.directory.sender('acme-main')!.sender.accountTemplate!;
    const back = await send('test-key');
    expect({ html: back.html, version: back.template_version }).toEqual({ html: configured.replace('{{content}}', '<p>Hi</p>'), version: 0 });
  });

  it('refuses a version that does not exist, or is not a whole number, byte for byte', async ({ call }) => {
    await call('PUT', '/api/senders/acme-main/template', { html: V2 });
    const none = await call('POST', '/api/senders/acme-main/template/revert', { version: 7 });
    expect([none.status, none.text]).toEqual([400, `{"detail":"Version 7 of acme-main's template does not exist (versions: 0, 1)."}`]);
    const bad = await call('POST', '/api/senders/acme-main/template/revert', { version: -1 });
    expect([bad.status, bad.text]).toEqual([400, '{"detail":"version must be a whole number (0: the configured template)."}']);
  });

  it('keeps at most 20 saved versions, dropping the oldest; numbers are never reused', async ({ call }) => {
    for (let i = 1; i <= 22; i++) await call('PUT', '/api/senders/acme-main/template', { html: `<b>${i}</b>{{content}}` });
    const versions = ((await call('GET', '/api/senders/acme-main/template/versions')).body as any).versions as any[];
    expect(versions.map((v) => v.version)).toEqual([0, ...Array.from({ length: 20 }, (_, i) => i + 3)]);
    expect(versions.at(-1)).toMatchObject({ version: 22, html: '<b>22</b>{{content}}', current: true });
  });

  test('announces each save and revert on the live push', async ({ app, events }) => {
    const put = (method: string, path: string, body: unknown) =>
      fetch(app.url + path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    await put('PUT', '/api/senders/acme-main/template', { html: V2 });
    await put('POST', '/api/senders/acme-main/template/revert', {});
    await expect
      .poll(() => events.frames.filter((f) => f.type === 'template.changed').map((f) => f.data))
      .toEqual([
        { sender: 'acme-main', version: 1 },
        { sender: 'acme-main', version: 0 },
      ]);
  });
});

describe('kept in the sandbox data', () => {
  test('survives a restart, and a reset keeps the versions (and the one in use)', async ({ apps }) => {
    const first = await apps.start();
    const put = await fetch(`${first.url}/api/senders/acme-main/template`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ html: V2 }),
    });
    expect(put.status).toBe(200);
    await first.close();
    const second = await apps.start({ dataDir: first.dataDir });
    expect((await read(await fetch(`${second.url}/api/senders/acme-main/template`))).body).toMatchObject({ version: 1, html: V2 });
    const reset = await fetch(`${second.url}/api/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(reset.status).toBe(200);
    expect((await read(await fetch(`${second.url}/api/senders/acme-main/template/versions`))).body).toMatchObject({
      current: 1,
      versions: [{ version: 0 }, { version: 1, html: V2 }],
    });
  });
});

describe('POST /api/senders/{sender}/template/rewrap', () => {
  it("re-wraps the sender's newest 20 captures' bodies as sent in a draft, nothing stored", async ({ call, send, freshApp }) => {
    const sent = [];
    for (let i = 0; i < 22; i++) sent.push(await send('test-key', `<p>n${i}</p>`));
    await send('bulk-key');
    const result = await call('POST', '/api/senders/acme-main/template/rewrap', { html: '<i>{{content}}</i>' });
    expect(result.status).toBe(200);
    const body = result.body as any;
    expect(body.sender).toBe('acme-main');
    expect(body.captures.map((c: any) => c.id)).toEqual(
      sent
        .slice(2)
        .reverse()
        .map((c) => c.id),
    );
    expect(body.captures[0]).toEqual({
      id: sent[21].id,
      subject: 'S',
      created_at: sent[21].created_at,
      template_version: 0,
      unwrapped_body: 'kept',
      html: '<i><p>n21</p></i>',
    });
    expect((await call('GET', '/api/senders/acme-main/template')).body).toMatchObject({ version: 0 });
    expect(freshApp.sandbox.messages.count()).toBe(23);
  });

  it("takes ids, any sender's, in the order given; without html, the version in use", async ({ call, send }) => {
    const plain = await send('bulk-key', '<p>plain</p>');
    const wrapped = await send('test-key', '<p>wrapped</p>');
    await call('PUT', '/api/senders/acme-main/template', { html: V3 });
    const body = (await call('POST', '/api/senders/acme-main/template/rewrap', { ids: [plain.id, wrapped.id] })).body as any;
    expect(body.captures.map((c: any) => [c.id, c.unwrapped_body, c.html])).toEqual([
      [plain.id, 'not_wrapped', '<html><body><section class="v3"><p>plain</p></section></body></html>'],
      [wrapped.id, 'kept', '<html><body><section class="v3"><p>wrapped</p></section></body></html>'],
    ]);
    const comma = (await call('POST', '/api/senders/acme-main/template/rewrap', { ids: `${wrapped.id}, ${plain.id}`, html: '{{content}}' })).body as any;
    expect(comma.captures.map((c: any) => c.html)).toEqual(['<p>wrapped</p>', '<p>plain</p>']);
  });

  it('refuses a draft without {{content}} and ids that are not capture ids, byte for byte', async ({ call }) => {
    const draft = await call('POST', '/api/senders/acme-main/template/rewrap', { html: '<p>no slot</p>' });
    expect([draft.status, draft.text]).toEqual([400, '{"detail":"html must contain {{content}} where the body goes."}']);
    const ids = await call('POST', '/api/senders/acme-main/template/rewrap', { ids: ['not an id!'] });
    expect([ids.status, ids.text]).toEqual([400, '{"detail":"ids: \\"not an id!\\" is not a capture id."}']);
    const many = await call('POST', '/api/senders/acme-main/template/rewrap', { ids: Array.from({ length: 51 }, () => 'abc') });
    expect([many.status, many.text]).toEqual([400, '{"detail":"ids may name at most 50 captures."}']);
  });
});

describe('POST /api/preview with a draft template', () => {
  it('wraps in the draft, or in the version in use; a draft without {{content}} is refused', async ({ call }) => {
    expect((await call('POST', '/api/preview', { sender: 'acme-main', html: '<p>x</p>', template: '<u>{{content}}</u>' })).body).toEqual({
      html: '<u><p>x</p></u>',
    });
    await call('PUT', '/api/senders/acme-main/template', { html: V2 });
    expect((await call('POST', '/api/preview', { sender: 'acme-main', html: '<p>x</p>' })).body).toEqual({
      html: '<html><body><div class="v2"><p>x</p></div></body></html>',
    });
    const bad = await call('POST', '/api/preview', { sender: 'acme-main', html: '<p>x</p>', template: '<u></u>' });
    expect([bad.status, bad.text]).toEqual([400, '{"detail":"template must contain {{content}} where the body goes."}']);
  });
});

describe('a save the disk refuses', () => {
  test('is a 507, never a 200: the version is not kept and the template in use stays; saved once the disk is back', async ({ apps }) => {
    let refuse = false;
    const fs: Fs = {
      ...nodeFs,
      rename: async (from, to) => {
        if (refuse && to.endsWith('workbench.json')) throw Object.assign(new Error('EROFS: injected'), { code: 'EROFS', syscall: 'rename', path: to });
        return nodeFs.rename(from, to);
      },
    };
    const app = await apps.start({ store: { fs, probeIntervalMs: 20 } });
    const put = () =>
      fetch(`${app.url}/api/senders/acme-main/template`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ html: V2 }),
      });
    refuse = true;
    const refused = await read(await put());
    expect(refused.status).toBe(507);
    expect((refused.body as any).detail).toMatch(/^Not stored: /);
    expect((await read(await fetch(`${app.url}/api/senders/acme-main/template/versions`))).body).toMatchObject({ current: 0, versions: [{ version: 0 }] });
    refuse = false;
    await expect.poll(async () => (await fetch(`${app.url}/readyz`)).status).toBe(200);
    const saved = await read(await put());
    expect([saved.status, (saved.body as any).version]).toEqual([200, 1]);
  });
});

describe('a workbench.json that is not as written', () => {
  test('without its templates part, or not JSON at all, starts from the configured templates (the damaged file set aside)', async ({ apps, tempDir }) => {
    await writeFile(path.join(tempDir, 'workbench.json'), '{"samples": {}}');
    const partial = await apps.start({ dataDir: tempDir });
    expect((await read(await fetch(`${partial.url}/api/senders/acme-main/template`))).body).toMatchObject({ version: 0 });
    await partial.close();
    await writeFile(path.join(tempDir, 'workbench.json'), '{"templates": {"acme-main": ');
    const damaged = await apps.start({ dataDir: tempDir, log: () => undefined, store: { log: () => undefined } });
    expect((await read(await fetch(`${damaged.url}/api/senders/acme-main/template`))).body).toMatchObject({ version: 0 });
    expect(damaged.store.damage.map((d) => path.basename(d.file))).toEqual(['workbench.json']);
  });
});
