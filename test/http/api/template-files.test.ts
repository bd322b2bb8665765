import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { read, startApp } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { connectEvents } from '../../support/ws.ts';

/** A --templates folder of the file's own, and the app watching it. */
const it = test
  .extend('folder', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-templates-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    await mkdir(path.join(dir, 'emails'));
    await writeFile(path.join(dir, 'welcome.html'), '<h1>Welcome, {{ first_name }}!</h1><p>{{order.total}} {{coupon}}</p>');
    await writeFile(path.join(dir, 'emails', 'receipt.html'), '<p>Receipt</p>');
    await writeFile(path.join(dir, 'notes.txt'), 'not a template');
    return dir;
  })
  .extend('app', { scope: 'file' }, async ({ folder }, { onCleanup }) => {
    const watching = await startApp({ templates: folder });
    onCleanup(() => watching.destroy());
    return watching;
  })
  .extend('events', async ({ app }, { onCleanup }) => {
    const events = await connectEvents(app.wsUrl);
    onCleanup(async () => {
      await events.close();
    });
    return events;
  })
  .extend(
    'call',
    { scope: 'file' },
    ({ app }) =>
      async (method: string, p: string, body?: unknown) =>
        read(
          await fetch(app.url + p, {
            method,
            headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        ),
  );

describe('GET /api/template-files', () => {
  it("lists the folder's .html files, in folders too, by name", async ({ call, folder }) => {
    const listed = (await call('GET', '/api/template-files')).body as any;
    expect(listed.dir).toBe(folder);
    expect(listed.truncated).toBe(false);
    expect(listed.files.map((f: any) => [f.name, f.size, f.has_sample])).toEqual([
      ['emails/receipt.html', 14, false],
      ['welcome.html', 68, false],
    ]);
  });
});

describe('GET /api/template-files/{name} and its sample data', () => {
  it("fills the {{variables}} from the sample data, escaped, and wraps the result in the sender's template", async ({ call, app }) => {
    const saved = await call('PUT', '/api/template-files/welcome.html/sample', { data: { first_name: 'Ada <3', order: { total: '€42' } } });
    expect(saved.body).toEqual({ name: 'welcome.html', sample: { first_name: 'Ada <3', order: { total: '€42' } } });
    const file = (await call('GET', '/api/template-files/welcome.html?sender=acme-main')).body as any;
    const body = '<h1>Welcome, Ada &#60;3!</h1><p>€42 {{coupon}}</p>';
    expect(file).toMatchObject({
      name: 'welcome.html',
      sender: 'acme-main',
      template_version: 0,
      variables: ['first_name', 'order.total', 'coupon'],
      missing: ['coupon'],
    });
    expect(file.rendered).toBe(app.sandbox.directory.sender('acme-main')!.sender.accountTemplate!.replace('{{content}}', body));
    const plain = (await call('GET', '/api/template-files/emails%2Freceipt.html')).body as any;
    expect([plain.rendered, plain.sender, plain.template_version, plain.sample]).toEqual(['<p>Receipt</p>', null, null, {}]);
    expect(((await call('GET', '/api/template-files')).body as any).files.find((f: any) => f.name === 'welcome.html').has_sample).toBe(true);
  });

  it('refuses sample data that is not an object, names outside the folder or not .html, byte for byte', async ({ call, folder }) => {
    const notObject = await call('PUT', '/api/template-files/welcome.html/sample', { data: ['Ada'] });
    expect([notObject.status, notObject.text]).toEqual([
      400,
      '{"detail":"data must be a JSON object of sample values, such as {\\"first_name\\": \\"Ada\\"}."}',
    ]);
    const large = await call('PUT', '/api/template-files/welcome.html/sample', { data: { x: 'y'.repeat(16 * 1024) } });
    expect([large.status, large.text]).toEqual([400, '{"detail":"data is 16392 bytes as JSON; sample data may have at most 16384."}']);
    await symlink('/etc/hostname', path.join(folder, 'escape.html'));
    for (const name of ['..%2F..%2Fetc%2Fpasswd', 'notes.txt', 'missing.html', 'escape.html', '%2Fetc%2Fhostname.html']) {
      const answer = await call('GET', `/api/template-files/${name}`);
      expect([name, answer.status, answer.text]).toEqual([name, 404, '{"detail":"Not found."}']);
    }
    const unknown = await call('GET', '/api/template-files/welcome.html?sender=nobody');
    expect([unknown.status, unknown.text]).toEqual([400, '{"detail":"sender \\"nobody\\" is neither a sender id nor an API key."}']);
  });
});

describe('the live push', () => {
  it('announces a save, a new file and a removal once each', async ({ events, folder }) => {
    // The names this test touches: the folder is the file's, and an earlier test's change (the
    // symlink above) can still be announced while this one runs on a busy machine.
    const mine = new Set(['welcome.html', 'emails/new.html']);
    const changes = () => events.frames.filter((f) => f.type === 'template_file.changed' && mine.has((f.data as { name: string }).name)).map((f) => f.data);
    await writeFile(path.join(folder, 'welcome.html'), '<h1>Welcome back, {{first_name}}</h1>');
    await expect.poll(changes).toEqual([{ name: 'welcome.html', removed: false }]);
    await writeFile(path.join(folder, 'emails', 'new.html'), '<p>new</p>');
    await expect.poll(() => changes().length).toBe(2);
    await rename(path.join(folder, 'emails', 'new.html'), path.join(folder, 'emails', 'gone.txt'));
    await expect.poll(changes).toEqual([
      { name: 'welcome.html', removed: false },
      { name: 'emails/new.html', removed: false },
      { name: 'emails/new.html', removed: true },
    ]);
  });
});

describe('without --templates', () => {
  test('lists nothing, and a file or its sample data says how to start with a folder', async ({ apps }) => {
    const bare = await apps.start();
    expect((await read(await fetch(`${bare.url}/api/template-files`))).body).toEqual({ dir: null, files: [], truncated: false });
    const file = await read(await fetch(`${bare.url}/api/template-files/welcome.html`));
    expect([file.status, file.text]).toEqual([404, '{"detail":"No template folder: start Pigeonhole with --templates <dir> (or PIGEONHOLE_TEMPLATES)."}']);
  });
});

describe('sample data kept', () => {
  test('for at most 200 files: the least recently saved is forgotten first', async ({ apps, tempDir }) => {
    for (let i = 0; i <= 200; i++) await writeFile(path.join(tempDir, `t${String(i).padStart(3, '0')}.html`), `<p>{{n}}</p>`);
    let at = Date.parse('2026-01-01T00:00:00Z');
    const app = await apps.start({ templates: tempDir, now: () => at });
    for (let i = 0; i <= 200; i++) {
      at += 1000;
      const saved = await fetch(`${app.url}/api/template-files/t${String(i).padStart(3, '0')}.html/sample`, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ data: { n: i } }),
      });
      expect(saved.status).toBe(200);
    }
    const files = ((await read(await fetch(`${app.url}/api/template-files`))).body as any).files as any[];
    expect(files.filter((f) => f.has_sample).length).toBe(200);
    expect(files.find((f) => f.name === 't000.html').has_sample).toBe(false);
    expect(((await read(await fetch(`${app.url}/api/template-files/t200.html`))).body as any).rendered).toBe('<p>200</p>');
  });
});
