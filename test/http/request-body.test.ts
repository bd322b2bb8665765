import { describe, expect } from 'vitest';
import { loadConfig } from '../../server/config.ts';
import { read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';

test.override('appOptions', { maxBodySize: 64 * 1024 });

/** `post(path, body, contentType?, key?)`: a raw POST to the file's app, read. */
const it = test.extend(
  'post',
  { scope: 'file' },
  ({ app }) =>
    (path: string, body: BodyInit | undefined, contentType?: string, key = 'test-key') =>
      fetch(app.url + path, {
        method: 'POST',
        headers: { Authorization: `Api-Key ${key}`, ...(contentType ? { 'Content-Type': contentType } : {}) },
        body,
      }).then(read),
);

describe('request body problems (docs/api-contract.md §1)', () => {
  it('answers malformed JSON with 400 JSON parse error', async ({ post }) => {
    const res = await post('/v1/email/send/', '{"recipient": ', 'application/json');
    expect(res.status).toBe(400);
    expect(Object.keys(res.body as object)).toEqual(['detail']);
    expect((res.body as { detail: string }).detail).toMatch(/^JSON parse error - .+/);
  });

  it('names the Python type of a JSON body that is not an object', async ({ post }) => {
    const cases: [string, string][] = [
      ['[1, 2]', 'list'],
      ['"text"', 'str'],
      ['42', 'int'],
      ['4.2', 'float'],
      ['1e3', 'float'],
      ['true', 'bool'],
    ];
    for (const [body, type] of cases) {
      const res = await post('/v1/recipients/', body, 'application/json');
      expect(res.status, body).toBe(400);
      expect(res.text, body).toBe(`{"non_field_errors":["Invalid data. Expected a dictionary, but got ${type}."]}`);
    }
    const nothing = await post('/v1/recipients/', 'null', 'application/json');
    expect(nothing.body).toEqual({ non_field_errors: ['No data provided'] });
  });

  it('answers other content types with 415 naming the type', async ({ post }) => {
    const res = await post('/v1/email/send/', 'recipient=a', 'text/plain');
    expect(res.status).toBe(415);
    expect(res.text).toBe('{"detail":"Unsupported media type \\"text/plain\\" in request."}');
    const xml = await post('/v1/flows/subscribe/', '<a/>', 'application/xml; charset=utf-8');
    expect(xml.body).toEqual({ detail: 'Unsupported media type "application/xml; charset=utf-8" in request.' });
  });

  it('answers a body over the limit with 413 naming the limit, for every encoding', async ({ app, post }) => {
    const big = 'x'.repeat(70 * 1024);
    const expected = '{"detail":"Request body exceeds the limit of 65536 bytes."}';
    const json = await post('/v1/email/send/', JSON.stringify({ recipient: 'a@example.com', subject: 's', body: big }), 'application/json');
    expect(json.status).toBe(413);
    expect(json.text).toBe(expected);
    const form = await post('/v1/email/send/', new URLSearchParams({ recipient: 'a@example.com', subject: 's', body: big }));
    expect(form.status).toBe(413);
    expect(form.text).toBe(expected);
    const multipart = new FormData();
    multipart.append('recipient', 'a@example.com');
    multipart.append('attachment', new Blob([big]), 'big.txt');
    const mp = await post('/v1/email/send/', multipart);
    expect(mp.status).toBe(413);
    expect(mp.text).toBe(expected);
    expect(app.sandbox.messages.count()).toBe(0);
  });

  it('counts streamed bodies without a Content-Length against the limit too', async ({ app }) => {
    const chunks = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 80; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    const res = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit).then(read);
    expect(res.status).toBe(413);
  });

  it('refuses JSON nested past 64 levels before parsing it; brackets inside strings count for nothing', async ({ post }) => {
    const deep = await post('/v1/recipients/', `{"email": "a@example.com", "x": ${'['.repeat(64)}${']'.repeat(64)}}`, 'application/json');
    expect(deep.status).toBe(400);
    expect(deep.text).toBe('{"detail":"JSON parse error - nested deeper than 64 levels"}');
    // 64 levels in all (the body's object and 63 arrays) is fine, whatever the strings hold.
    const fine = await post('/v1/recipients/', `{"email": "a@example.com", "x": ${'['.repeat(63)}"[[{\\\\\\"]]"${']'.repeat(63)}}`, 'application/json');
    expect(fine.status).toBe(201);
    const api = await post('/api/clock/advance', `{"duration": ${'['.repeat(100)}${']'.repeat(100)}}`, 'application/json');
    expect(api.text).toBe('{"detail":"JSON parse error - nested deeper than 64 levels"}');
  });

  it('checks the key before the body', async ({ post }) => {
    const res = await post('/v1/email/send/', '{bad', 'application/json', 'wrong');
    expect(res.status).toBe(401);
    const unsupported = await post('/v1/email/send/', 'x', 'text/plain', 'noflows-key');
    expect(unsupported.status).toBe(403);
  });

  it('treats an empty body, or one without a content type, as no fields', async ({ app, post }) => {
    const empty = await post('/v1/recipients/', '', 'application/json');
    expect(empty.body).toEqual({ email: ['This field is required.'] });
    const untyped = await fetch(`${app.url}/v1/recipients/`, { method: 'POST', headers: { Authorization: 'Api-Key test-key' } }).then(read);
    expect(untyped.body).toEqual({ email: ['This field is required.'] });
  });

  it('reports a broken multipart body as a 400, never a 500', async ({ post }) => {
    const res = await post('/v1/email/send/', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue', 'multipart/form-data; boundary=x');
    expect(res.status).toBe(400);
    expect((res.body as { detail: string }).detail).toMatch(/^Multipart form parse error - /);
  });

  it('takes the last value of a repeated form field, as the framework does', async ({ post }) => {
    const params = new URLSearchParams();
    params.append('email', 'first@example.com');
    params.append('email', 'last@example.com');
    const res = await post('/v1/recipients/', params);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ email: 'last@example.com' });
  });

  it('takes the body limits from flags and PIGEONHOLE_* variables: 1 MB for /api and 100 files by default', () => {
    expect(loadConfig([], {})).toMatchObject({ maxBodySize: 25 * 1024 * 1024, maxApiBodySize: 1024 * 1024, maxAttachments: 100 });
    expect(loadConfig(['--max-attachments', '1000'], { PIGEONHOLE_MAX_API_BODY_SIZE: '2048' })).toMatchObject({ maxApiBodySize: 2048, maxAttachments: 1000 });
    expect(() => loadConfig(['--max-attachments', '1001'], {})).toThrow('--max-attachments: 1001 is more than 1000');
  });
});
