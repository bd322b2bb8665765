import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { RequestLog } from '../../../server/domain/toolkit/request-log.ts';
import { api, read } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { test } from '../../support/fixtures.ts';

type Entry = {
  id: number;
  method: string;
  path: string;
  status: number | null;
  sender: string | null;
  fault: string | null;
  query: Record<string, unknown>;
  request: { headers: Record<string, string>; body: unknown; files: unknown[] };
  response: { body: unknown };
  duration_ms: number;
};
/** `list(query?)`: the file's app's request log (/api/requests). */
const it = test.extend(
  'list',
  { scope: 'file' },
  ({ app }) =>
    async (query = '') =>
      (await read(await fetch(`${app.url}/api/requests${query}`))).body as { total: number; requests: Entry[] },
);

describe('the /v1 request log', () => {
  it('records what was sent and received, with the keys masked', async ({ v1, list }) => {
    const res = await v1.post(
      '/v1/email/send/?api_key=secret-in-query',
      { recipient: 'log@example.com', subject: 'Logged', body: '<p>hi</p>', api_key: 'secret-in-body', password: 'hunter2' },
      { 'Encryption-Key': 'sealing-key' },
    );
    const { id } = (await res.json()) as { id: string };
    const { requests } = await list('?limit=1');
    const entry = requests[0]!;
    expect(entry).toMatchObject({
      method: 'POST',
      path: '/v1/email/send/',
      route: '/v1/email/send/',
      sender: 'acme-main',
      team: 'acme',
      status: 200,
      fault: null,
      query: { api_key: '********' },
      request: {
        body: { recipient: 'log@example.com', subject: 'Logged', body: '<p>hi</p>', api_key: '********', password: '********' },
        files: [],
      },
      response: { body: { id } },
    });
    expect(entry.request.headers.authorization).toBe('Api-Key ********');
    expect(entry.request.headers['encryption-key']).toBe('********');
    expect(JSON.stringify(entry)).not.toMatch(/test-key|sealing-key|secret-in|hunter2/);
    expect(entry.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('shows a `__proto__` field of a body as it was sent (issue 28 #9)', async ({ app, list }) => {
    const sent = '{"recipient":"proto@example.com","subject":"Proto","body":"x","__proto__":{"polluted":true,"password":"p"},"nested":{"__proto__":[1]}}';
    const res = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: sent,
    });
    expect(res.status).toBe(200);
    const raw = await (await fetch(`${app.url}/api/requests?limit=1`)).text();
    expect(raw).toContain('"__proto__":{"polluted":true,"password":"********"}');
    expect(raw).toContain('"nested":{"__proto__":[1]}');
    const entry = (await list('?limit=1')).requests[0]!;
    expect(Object.keys(entry.request.body as object)).toEqual(['recipient', 'subject', 'body', '__proto__', 'nested']);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('records refusals, unknown paths, multipart uploads as names and sizes, and cuts long strings', async ({ app, v1, list }) => {
    await api(app.url, 'wrong-key').get('/v1/email/list/');
    await v1.get('/v1/nowhere/');
    const form = new FormData();
    form.set('recipient', 'files@example.com');
    form.set('subject', 'Files');
    form.set('body', 'x'.repeat(5000));
    form.append('attachment', new Blob(['12345']), 'five.txt');
    form.append('attachment', new Blob(['']), 'empty.bin');
    await v1.multipart('/v1/email/send/', form);
    const [upload, unknown, refused] = (await list('?limit=3')).requests;
    expect(refused).toMatchObject({
      status: 401,
      sender: null,
      route: '/v1/email/list/',
      response: { body: { detail: 'Authentication credentials were not provided.' } },
    });
    expect(refused!.request.headers.authorization).toBe('Api-Key ********');
    expect(unknown).toMatchObject({ status: 404, route: null, path: '/v1/nowhere/', response: { body: { detail: 'Not found.' } } });
    expect(upload!.request.files).toEqual([
      { field: 'attachment', filename: 'five.txt', content_type: 'application/octet-stream', size: 5 },
      { field: 'attachment', filename: 'empty.bin', content_type: 'application/octet-stream', size: 0 },
    ]);
    expect((upload!.request.body as { body: string }).body).toBe(`${'x'.repeat(4096)}… (5000 characters, truncated)`);
  });

  it('filters by method, path, status, sender and fault, newest first, with a total', async ({ app, v1, list }) => {
    for (let i = 0; i < 3; i++) await v1.get(`/v1/email/list/?page=${i + 1}`);
    await fetch(`${app.url}/api/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'f', target: 'http', match: { route: '/v1/recipients/' }, action: { type: 'status', status: 503 }, times: 1 }),
    });
    await v1.get('/v1/recipients/');
    expect((await list('?path=/v1/email/list/&status=404&method=get')).total).toBe(2);
    expect((await list('?path=/v1/email/*&status=2xx')).total).toBeGreaterThanOrEqual(3);
    expect((await list('?sender=test-key')).total).toBe((await list('?sender=acme-main')).total);
    const faulted = await list('?fault=true');
    expect(faulted.total).toBe(1);
    expect(faulted.requests[0]).toMatchObject({ fault: 'f', status: 503, response: { body: { detail: 'Service temporarily unavailable, try again later.' } } });
    const ids = (await list()).requests.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const [query, message] of [
      ['status=abc', 'status must be a status code (429), a class (4xx) or "dropped".'],
      ['method=FETCH', 'method must be one of GET, POST, DELETE, PUT, PATCH, HEAD, OPTIONS.'],
      ['limit=501', 'limit must be a whole number from 1 to 500.'],
      ['sender=ghost', 'sender "ghost" is neither a sender id nor an API key.'],
    ]) {
      const res = await read(await fetch(`${app.url}/api/requests?${query}`));
      expect(res.status, query).toBe(400);
      expect(res.body, query).toEqual({ detail: message });
    }
  });

  it('is written to disk after the response, and DELETE clears it', async ({ app, v1, list }) => {
    await v1.get('/v1/email/list/');
    const dir = path.join(app.dataDir, 'requests');
    await expect.poll(async () => (await readdir(dir)).length).toBeGreaterThan(0);
    expect((await fetch(`${app.url}/api/requests`, { method: 'DELETE' })).status).toBe(204);
    expect((await list()).total).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('logs a dropped connection with no status', async ({ app, v1, list }) => {
    await fetch(`${app.url}/api/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'cut', target: 'http', action: { type: 'drop' }, times: 1 }),
    });
    await expect(v1.get('/v1/email/list/')).rejects.toThrow();
    const dropped = await eventually(async () => (await list('?status=dropped')).requests[0]);
    expect(dropped).toMatchObject({ status: null, fault: 'cut', response: { body: null } });
  });
});

describe('the request log is bounded', () => {
  it('keeps the newest entries past its cap, removing emptied segment files', async ({ apps }) => {
    const server = await apps.start();
    const log = new RequestLog(server.store, 300);
    const entry = {
      at: '',
      durationMs: 0,
      method: 'GET',
      path: '/v1/x/',
      query: {},
      route: null,
      sender: null,
      team: null,
      status: 200,
      fault: null,
      requestHeaders: {},
      requestBody: null,
      files: [],
      responseBody: null,
    };
    for (let i = 0; i < 3000; i++) log.record({ ...entry, path: `/v1/${i}/` });
    await server.store.flush();
    expect(log.size).toBe(300);
    expect((await log.page({}, 0, 1)).items[0]!.path).toBe('/v1/2999/');
    expect((await log.page({}, 299, 1)).items[0]!.path).toBe('/v1/2700/');
    // The oldest forgotten entries leave the summaries 1,024 at a time: none of them is listed or counted.
    expect((await log.page({}, 0, 1)).total).toBe(300);
    expect((await log.page({}, 300, 10)).items).toEqual([]);
    expect((await log.page({ path: '/v1/2699/' }, 0, 1)).total).toBe(0);
    // 300 entries in segments of 1,024: one or two files, never one per segment ever written.
    expect((await readdir(path.join(server.dataDir, 'requests'))).length).toBeLessThanOrEqual(2);
  });
});
