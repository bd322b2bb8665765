import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

it.beforeAll(async ({ app }) => {
  const v1 = api(app.url, 'test-key');
  for (let i = 0; i < 7; i++)
    await v1.post('/v1/email/send/', { recipient: i < 3 ? 'find@example.com' : `other${i}@example.com`, subject: `S${i}`, body: '<p>x</p>' });
  await api(app.url, 'dev-key').post('/v1/email/send/', { recipient: 'original@example.com', subject: 'dev', body: 'b' });
});

describe('GET /api/messages', () => {
  it('lists captures newest first with limit and offset', async ({ app }) => {
    const res = await read(await fetch(`${app.url}/api/messages?limit=3&offset=1`));
    const body = res.body as { total: number; offset: number; limit: number; messages: any[] };
    expect(body).toMatchObject({ total: 8, offset: 1, limit: 3 });
    expect(body.messages.map((m) => m.subject)).toEqual(['S6', 'S5', 'S4']);
    expect(Object.keys(body.messages[0])).toEqual(
      expect.arrayContaining(['id', 'subject', 'recipient', 'to', 'from', 'source', 'status', 'created_at', 'blocked', 'redirected']),
    );
  });

  it('filters by original or effective recipient', async ({ app }) => {
    const find = (await read(await fetch(`${app.url}/api/messages?recipient=FIND@example.com`))).body as { total: number };
    expect(find.total).toBe(3);
    const original = (await read(await fetch(`${app.url}/api/messages?recipient=original@example.com`))).body as { messages: any[] };
    const effective = (await read(await fetch(`${app.url}/api/messages?recipient=dev-inbox@example.com`))).body as { messages: any[] };
    expect(original.messages.map((m) => m.id)).toEqual(effective.messages.map((m) => m.id));
    expect(original.messages[0]).toMatchObject({ recipient: 'original@example.com', to: ['dev-inbox@example.com'], redirected: true, sender: 'acme-dev' });
  });

  it('refuses a bad limit with a JSON 400', async ({ app }) => {
    for (const q of ['limit=0', 'limit=501', 'limit=x', 'offset=-1']) {
      const res = await read(await fetch(`${app.url}/api/messages?${q}`));
      expect(res.status, q).toBe(400);
      expect(Object.keys(res.body as object)).toEqual(['detail']);
    }
  });

  it('answers unknown ids and attachment indexes with a JSON 404', async ({ app }) => {
    const [m] = ((await read(await fetch(`${app.url}/api/messages?limit=1`))).body as { messages: any[] }).messages;
    for (const path of ['/api/messages/nope', `/api/messages/${m.id}/attachments/0`, `/api/messages/${m.id}/attachments/x`, '/api/messages/nope/raw']) {
      const res = await read(await fetch(app.url + path));
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ detail: 'Not found.' });
    }
  });

  it('serves the .eml inline or as a download', async ({ app }) => {
    const [m] = ((await read(await fetch(`${app.url}/api/messages?limit=1&offset=1`))).body as { messages: any[] }).messages;
    const raw = await fetch(`${app.url}/api/messages/${m.id}/raw?download`);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    expect(raw.headers.get('content-disposition')).toBe(`attachment; filename="${m.id}.eml"`);
    const text = await raw.text();
    expect(text).toMatch(/^Content-Type: multipart\/alternative|^Content-Type: text\/html|^From: /m);
    expect(text).toMatch(new RegExp(`^X-Pigeonhole-Id: ${m.id}\r$`, 'im'));
    expect(text).toContain('Subject: S6');
    expect(text).toContain('From: hello@acme.example');
  });
});
