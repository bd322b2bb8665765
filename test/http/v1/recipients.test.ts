import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

describe('POST /v1/recipients/', () => {
  it('creates with 201 and the full representation, updates with 200', async ({ v1 }) => {
    const created = await read(await v1.post('/v1/recipients/', { email: 'ada@example.com', first_name: 'Ada', flags: ['a', 'b'] }));
    expect(created.status).toBe(201);
    const body = created.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['sqid', 'email', 'first_name', 'last_name', 'flags', 'has_been_sent_email', 'created_at', 'updated_at']);
    expect(body).toMatchObject({ email: 'ada@example.com', first_name: 'Ada', last_name: '', flags: ['a', 'b'], has_been_sent_email: false });
    expect(body.sqid).toMatch(/^[A-Za-z0-9]{3,}$/);
    const updated = await read(await v1.form('/v1/recipients/', { email: 'ADA@example.com', last_name: 'Lovelace', flags: 'c' }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ sqid: body.sqid, email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', flags: ['a', 'b', 'c'] });
  });

  it('reports field errors', async ({ v1 }) => {
    expect((await read(await v1.post('/v1/recipients/', {}))).text).toBe('{"email":["This field is required."]}');
    expect((await read(await v1.post('/v1/recipients/', { email: 'x' }))).text).toBe('{"email":["Enter a valid email address."]}');
  });
});

describe('GET /v1/recipients/', () => {
  it('pages newest first and filters by email and flag', async ({ app, v1 }) => {
    for (let i = 0; i < 22; i++) await v1.post('/v1/recipients/', { email: `p${i}@example.com`, flags: i % 2 ? 'odd' : 'even' });
    const page = (await read(await v1.get('/v1/recipients/'))).body as { count: number; next: string; previous: null; results: any[] };
    expect(page.count).toBe(23);
    expect(page.results).toHaveLength(20);
    expect(page.results[0].email).toBe('p21@example.com');
    expect(page.next).toBe(`${app.url}/v1/recipients/?page=2`);
    const odd = (await read(await v1.get('/v1/recipients/?flag=odd'))).body as { count: number };
    expect(odd.count).toBe(11);
    const one = (await read(await v1.get('/v1/recipients/?email=P3@EXAMPLE.COM'))).body as { count: number; results: any[] };
    expect(one.count).toBe(1);
    expect(one.results[0].email).toBe('p3@example.com');
    expect((await read(await v1.get('/v1/recipients/?page=9'))).text).toBe('{"detail":"Invalid page."}');
  });
});

describe('flags', () => {
  it('sets flags, creating the recipient, with the Python-printed list', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/recipients/flags/set/', { email: 'user@example.com', flags: 'premium, onboarded,premium' }));
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify({ message: `Flags ['premium', 'onboarded'] set for recipient "user@example.com".` }));
    const r = (await read(await v1.get('/v1/recipients/?email=user@example.com'))).body as { results: any[] };
    expect(r.results[0].flags).toEqual(['premium', 'onboarded']);
  });

  it('quotes like Python: double quotes for an item with a single quote', async ({ v1 }) => {
    const res = await read(await v1.post('/v1/recipients/flags/set/', { email: 'user@example.com', flags: ["it's", 'say "hi"', 'both \'"', 'back\\slash'] }));
    expect((res.body as { message: string }).message).toBe(`Flags ["it's", 'say "hi"', 'both \\'"', 'back\\\\slash'] set for recipient "user@example.com".`);
  });

  it('clears flags, fine when absent; 404 for an unknown recipient', async ({ v1 }) => {
    const res = await read(await v1.form('/v1/recipients/flags/clear/', { email: 'user@example.com', flags: ['premium', 'never-had'] }));
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify({ message: `Flags ['premium', 'never-had'] cleared for recipient "user@example.com".` }));
    const r = (await read(await v1.get('/v1/recipients/?email=user@example.com'))).body as { results: any[] };
    expect(r.results[0].flags).not.toContain('premium');
    expect(r.results[0].flags).toContain('onboarded');
    const unknown = await read(await v1.post('/v1/recipients/flags/clear/', { email: 'ghost@example.com', flags: 'x' }));
    expect(unknown.status).toBe(404);
    expect(unknown.text).toBe('{"detail":"Not found."}');
  });

  it('needs flags, and not an empty list', async ({ v1 }) => {
    for (const path of ['/v1/recipients/flags/set/', '/v1/recipients/flags/clear/']) {
      expect((await read(await v1.post(path, { email: 'user@example.com' }))).text).toBe('{"flags":["This field is required."]}');
      expect((await read(await v1.post(path, { email: 'user@example.com', flags: [] }))).text).toBe('{"flags":["This list may not be empty."]}');
      expect((await read(await v1.post(path, { email: 'user@example.com', flags: ' , ' }))).text).toBe('{"flags":["This list may not be empty."]}');
      expect((await read(await v1.post(path, {}))).text).toBe('{"email":["This field is required."],"flags":["This field is required."]}');
    }
  });
});
