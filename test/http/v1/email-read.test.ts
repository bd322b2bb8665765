import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

const ids: string[] = [];

it.beforeAll(async ({ v1 }) => {
  for (let i = 0; i < 45; i++) {
    const recipient = i % 3 === 0 ? 'Pat@Example.com' : `r${i}@example.com`;
    const res = await v1.post('/v1/email/send/', { recipient, subject: `Subject ${i}`, body: `<p>${i}</p>`, use_account_template: false });
    ids.push(((await res.json()) as { id: string }).id);
  }
});

describe('GET /v1/email/list/', () => {
  it('pages 20 at a time, newest first, with absolute links', async ({ app, v1 }) => {
    const first = await read(await v1.get('/v1/email/list/'));
    const body = first.body as { count: number; next: string | null; previous: string | null; results: any[] };
    expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results']);
    expect(body.count).toBe(45);
    expect(body.results).toHaveLength(20);
    expect(body.results[0]).toEqual({
      recipient: 'r44@example.com',
      subject: 'Subject 44',
      created_on: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
    });
    expect(Object.keys(body.results[0])).toEqual(['recipient', 'subject', 'created_on']);
    expect(body.next).toBe(`${app.url}/v1/email/list/?page=2`);
    expect(body.previous).toBeNull();
    const third = (await read(await v1.get('/v1/email/list/?page=3'))).body as typeof body;
    expect(third.results).toHaveLength(5);
    expect(third.next).toBeNull();
    expect(third.previous).toBe(`${app.url}/v1/email/list/?page=2`);
    const second = (await read(await v1.get('/v1/email/list/?page=2'))).body as typeof body;
    expect(second.previous).toBe(`${app.url}/v1/email/list/`);
    expect((await read(await v1.get('/v1/email/list/?page=last'))).body).toEqual(third);
  });

  it('filters by recipient without regard to case and keeps the filter in the links', async ({ v1 }) => {
    const res = (await read(await v1.get('/v1/email/list/?recipient=pat@example.COM'))).body as { count: number; next: string; results: any[] };
    expect(res.count).toBe(15);
    expect(res.results.every((r) => r.recipient === 'Pat@Example.com')).toBe(true);
    expect(res.next).toBeNull();
  });

  it('keeps other query parameters in next', async ({ app, v1 }) => {
    const res = (await read(await v1.get('/v1/email/list/?foo=bar'))).body as { next: string };
    expect(res.next).toBe(`${app.url}/v1/email/list/?foo=bar&page=2`);
  });

  it('rejects a bad recipient with a string, not a list', async ({ v1 }) => {
    const res = await read(await v1.get('/v1/email/list/?recipient=nope'));
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"recipient":"Enter a valid email address."}');
  });

  it('answers a page out of range or not a number with 404 Invalid page.', async ({ v1 }) => {
    for (const page of ['4', '0', '-1', 'abc', '1.5']) {
      const res = await read(await v1.get(`/v1/email/list/?page=${page}`));
      expect(res.status, page).toBe(404);
      expect(res.text, page).toBe('{"detail":"Invalid page."}');
    }
  });

  it("shows only the caller team's emails", async ({ apps }) => {
    const other = await apps.start({
      config: (c) => {
        c.teams.push({
          id: 'other',
          name: 'Other',
          flowsEnabled: true,
          blockedRecipients: [],
          senders: [{ id: 'other-main', name: 'O', email: 'o@other.example', apiKey: 'other-key' }],
        } as never);
        return c;
      },
    });
    const { id } = (await (await api(other.url, 'test-key').post('/v1/email/send/', { recipient: 'a@example.com', subject: 's', body: 'b' })).json()) as {
      id: string;
    };
    const o = api(other.url, 'other-key');
    expect(((await read(await o.get('/v1/email/list/'))).body as { count: number }).count).toBe(0);
    expect((await read(await o.get(`/v1/email/detail/${id}/`))).body).toEqual({ detail: 'Not found.' });
    expect((await read(await o.get(`/v1/email/delivery/${id}/`))).body).toEqual({ error: 'Email not found' });
    expect((await read(await o.get('/v1/email/detail/?email=a@example.com'))).status).toBe(404);
  });
});

describe('GET /v1/email/detail/', () => {
  it('returns exactly recipient, subject, created_on and the delivered body', async ({ v1 }) => {
    const res = await read(await v1.get(`/v1/email/detail/${ids[5]}/`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ recipient: 'r5@example.com', subject: 'Subject 5', created_on: expect.any(String), body: '<p>5</p>' });
    expect(Object.keys(res.body as object)).toEqual(['recipient', 'subject', 'created_on', 'body']);
    expect((await read(await v1.get(`/v1/email/detail/?id=${ids[5]}`))).body).toEqual(res.body);
  });

  it('finds the most recent email to an address with email= or recipient=', async ({ v1 }) => {
    const byEmail = await read(await v1.get('/v1/email/detail/?email=PAT@example.com'));
    expect(byEmail.body).toMatchObject({ recipient: 'Pat@Example.com', subject: 'Subject 42' });
    expect((await read(await v1.get('/v1/email/detail/?recipient=pat@example.com'))).body).toEqual(byEmail.body);
  });

  it('returns the body after template wrapping', async ({ v1 }) => {
    const { id } = (await (await v1.post('/v1/email/send/', { recipient: 't@example.com', subject: 's', body: '<p>inner</p>' })).json()) as { id: string };
    const body = ((await read(await v1.get(`/v1/email/detail/${id}/`))).body as { body: string }).body;
    expect(body).toContain('<p>inner</p>');
    expect(body.startsWith('<!doctype html>')).toBe(true);
  });

  it('asks for an identifier, and says Not found. for unknown ones', async ({ v1 }) => {
    const none = await read(await v1.get('/v1/email/detail/'));
    expect(none.status).toBe(400);
    expect(none.text).toBe('{"detail":"Provide sqid in URL path or as query parameter (id=<sqid>) or email=<address> as query parameter."}');
    for (const path of ['/v1/email/detail/zzzzzz/', '/v1/email/detail/?id=nope', '/v1/email/detail/?email=nobody@example.com']) {
      const res = await read(await v1.get(path));
      expect(res.status, path).toBe(404);
      expect(res.text, path).toBe('{"detail":"Not found."}');
    }
  });
});

describe('GET /v1/email/delivery/', () => {
  it('takes the id in the path, the query or the payload', async ({ app, v1 }) => {
    const expected = { id: ids[0], status: 'delivered', ses_id: expect.any(String) };
    expect((await read(await v1.get(`/v1/email/delivery/${ids[0]}/`))).body).toEqual(expected);
    expect((await read(await v1.get(`/v1/email/delivery/?id=${ids[0]}`))).body).toEqual(expected);
    // fetch refuses a GET with a body; the Django client's requests library does not.
    const payload = await getWithBody(`${app.url}/v1/email/delivery/`, JSON.stringify({ id: ids[0] }));
    expect(payload.status).toBe(200);
    expect(JSON.parse(payload.text)).toEqual(expected);
  });

  it('says so when there is no id, and uses "error" for not found', async ({ v1 }) => {
    const none = await read(await v1.get('/v1/email/delivery/'));
    expect(none.status).toBe(400);
    expect(none.text).toBe('{"detail":"Provide id in URL path, query parameter, or request payload."}');
    const missing = await read(await v1.get('/v1/email/delivery/nope/'));
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('{"error":"Email not found"}');
  });

  it('keeps the same ses_id for an email', async ({ v1 }) => {
    const a = (await read(await v1.get(`/v1/email/delivery/${ids[1]}/`))).body;
    const b = (await read(await v1.get(`/v1/email/delivery/${ids[1]}/`))).body;
    expect(a).toEqual(b);
  });
});

describe('Encryption-Key', () => {
  it('stores the record body sealed: clear with the key, enc:v1: without it, 400 with a wrong one', async ({ app, v1 }) => {
    const res = await read(
      await v1.post(
        '/v1/email/send/',
        { recipient: 'secret@example.com', subject: 'Secret', body: '<p>classified</p>', use_account_template: false },
        { 'Encryption-Key': 'k3y-one' },
      ),
    );
    expect(res.status).toBe(200);
    const { id } = res.body as { id: string };
    const clear = await read(await v1.get(`/v1/email/detail/${id}/`, { 'Encryption-Key': 'k3y-one' }));
    expect(clear.body).toMatchObject({ body: '<p>classified</p>', subject: 'Secret' });
    const sealed = await read(await v1.get(`/v1/email/detail/${id}/`));
    const body = (sealed.body as { body: string }).body;
    expect(body).toMatch(/^enc:v1:[A-Za-z0-9+/]+=*$/);
    expect(body).not.toContain('classified');
    const wrong = await read(await v1.get(`/v1/email/detail/${id}/`, { 'Encryption-Key': 'other' }));
    expect(wrong.status).toBe(400);
    expect(wrong.text).toBe('{"detail":"Invalid encryption key."}');
    // The captured message is what the recipient receives, in clear.
    const capture = (await (await fetch(`${app.url}/api/messages/${id}`)).json()) as { html: string; encrypted: boolean };
    expect(capture).toMatchObject({ html: '<p>classified</p>', encrypted: true });
  });

  it('never writes the key to disk', async ({ app, v1 }) => {
    await v1.post('/v1/email/send/', { recipient: 'secret2@example.com', subject: 's', body: 'b' }, { 'Encryption-Key': 'UNIQUE-KEY-VALUE-93517' });
    await app.store.flush();
    const grep = spawnSync('grep', ['-rl', 'UNIQUE-KEY-VALUE-93517', app.dataDir], { encoding: 'utf8' });
    expect(grep.status).toBe(1);
    expect(grep.stdout).toBe('');
    // The same search does find the subject, so the search itself works.
    expect(spawnSync('grep', ['-rl', 'secret2@example.com', app.dataDir]).status).toBe(0);
  });

  it('ignores the header for records that were not encrypted', async ({ v1 }) => {
    const res = await read(await v1.get(`/v1/email/detail/${ids[3]}/`, { 'Encryption-Key': 'whatever' }));
    expect(res.body).toMatchObject({ body: '<p>3</p>' });
  });
});

function getWithBody(url: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'GET', headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
