import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

/**
 * Routes that remove or reset something refuse what they do not understand (issue 19): a typo
 * in a query parameter or a body field is a 400 naming it, and nothing is removed.
 */
describe('destructive routes refuse unknown fields', () => {
  it('answers 400 naming the unknown fields, before anything is removed', async ({ app, v1 }) => {
    const { id } = (await read(await v1.post('/v1/email/send/', { recipient: 'keep@example.com', subject: 'Kept', body: 'x' }))).body as { id: string };
    const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const cases: [string, RequestInit, string][] = [
      ['/api/reset?team=acme', { method: 'POST' }, 'Unknown field "team" (this route takes team, namespace, restore_fixtures).'],
      ['/api/reset', json('POST', { teams: 'acme' }), 'Unknown field "teams" (this route takes team, namespace, restore_fixtures).'],
      ['/api/messages?namespace=x', { method: 'DELETE' }, 'Unknown field "namespace" (this route takes none).'],
      ['/api/messages', json('DELETE', { recipient: 'a@example.com', q: 'x' }), 'Unknown fields "recipient", "q" (this route takes none).'],
      [`/api/messages/${id}?force=1`, { method: 'DELETE' }, 'Unknown field "force" (this route takes none).'],
      ['/api/blocks?team=acme&emails=a@example.com', { method: 'DELETE' }, 'Unknown field "emails" (this route takes team, email).'],
      ['/api/faults', json('DELETE', { id: 'configured' }), 'Unknown field "id" (this route takes none).'],
      ['/api/faults/nope?all=true', { method: 'DELETE' }, 'Unknown field "all" (this route takes none).'],
      ['/api/requests?sender=acme-main', { method: 'DELETE' }, 'Unknown field "sender" (this route takes none).'],
      ['/api/clock/reset', json('POST', { to: 'now' }), 'Unknown field "to" (this route takes none).'],
    ];
    for (const [path, init, message] of cases) {
      const res = await read(await fetch(app.url + path, init));
      expect([path, res.status, res.body]).toEqual([path, 400, { detail: message }]);
    }
    expect((await read(await fetch(`${app.url}/api/messages/${id}`))).status).toBe(200);
    // Form bodies are read the same way.
    const form = await read(await fetch(`${app.url}/api/reset`, { method: 'POST', body: new URLSearchParams({ restore: 'false' }) }));
    expect(form).toMatchObject({ status: 400, body: { detail: 'Unknown field "restore" (this route takes team, namespace, restore_fixtures).' } });
  });

  it('still answers what it takes', async ({ app }) => {
    expect((await fetch(`${app.url}/api/requests`, { method: 'DELETE' })).status).toBe(204);
    expect((await fetch(`${app.url}/api/clock/reset`, { method: 'POST' })).status).toBe(200);
    expect((await fetch(`${app.url}/api/blocks?team=acme&email=nobody@example.com`, { method: 'DELETE' })).status).toBe(404);
    expect((await fetch(`${app.url}/api/messages`, { method: 'DELETE' })).status).toBe(204);
  });
});
