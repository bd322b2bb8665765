import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, onTestFinished } from 'vitest';
import { api, read } from '../support/app.ts';
import { sample, startObservedApp } from '../support/health-app.ts';
import { test } from '../support/fixtures.ts';

/**
 * `observed`: the app wired as server/main.ts wires it (support/health-app.ts), its disk usage
 * never cached, for the file;
 * `scrape()`: its /metrics text (200, the Prometheus type).
 */
const it = test
  .extend('observed', { scope: 'file' }, async ({}, { onCleanup }) => {
    const app = await startObservedApp({ diskCacheMs: 0 });
    onCleanup(() => app.destroy());
    return app;
  })
  .extend('scrape', { scope: 'file' }, ({ observed: app }) => async () => {
    const res = await fetch(`${app.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.text();
  });

const requests = (text: string, route: string, method: string, status: string) =>
  sample(text, 'pigeonhole_http_requests_total', { route, method, status }) ?? 0;

/** Allocated bytes of every file and folder under `dir`, as du counts them. */
async function du(dir: string): Promise<number> {
  let total = (await stat(dir)).blocks * 512;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    total += entry.isDirectory() ? await du(full) : (await stat(full)).blocks * 512;
  }
  return total;
}

/** Files below a folder (not folders). */
async function fileCount(dir: string): Promise<number> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).length;
}

describe('/metrics', () => {
  it('exposes every metric of the plan, with HELP and TYPE, and the process metrics', async ({ scrape }) => {
    const text = await scrape();
    for (const [name, type] of [
      ['pigeonhole_http_requests_total', 'counter'],
      ['pigeonhole_http_request_duration_seconds', 'histogram'],
      ['pigeonhole_captures_total', 'counter'],
      ['pigeonhole_messages_stored', 'gauge'],
      ['pigeonhole_store_bytes', 'gauge'],
      ['pigeonhole_smtp_sessions_total', 'counter'],
      ['pigeonhole_smtp_rejections_total', 'counter'],
      ['pigeonhole_websocket_clients', 'gauge'],
      ['pigeonhole_fault_injections_total', 'counter'],
      ['pigeonhole_storage_checkpoint_runs_total', 'counter'],
      ['pigeonhole_storage_checkpoints_written_total', 'counter'],
      ['pigeonhole_storage_checkpoint_last_started_seconds', 'gauge'],
      ['pigeonhole_storage_checkpoint_last_finished_seconds', 'gauge'],
      ['process_cpu_seconds_total', 'counter'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect(text, name).toContain(`# TYPE ${name} ${type}\n`);
      expect(text, name).toMatch(new RegExp(`# HELP ${name} \\S`));
    }
    expect(sample(text, 'pigeonhole_captures_total', { source: 'api' })).toBe(0);
    expect(sample(text, 'pigeonhole_captures_total', { source: 'smtp' })).toBe(0);
    expect(sample(text, 'pigeonhole_captures_total', { source: 'flow' })).toBe(0);
    expect(sample(text, 'pigeonhole_messages_stored')).toBe(0);
  });

  it('counts requests by route template and status, and captures by source, exactly as sent', async ({ observed: app, scrape }) => {
    const before = await scrape();
    const v1 = api(app.url, 'test-key');
    for (let i = 0; i < 3; i++) expect((await v1.post('/v1/email/send/', { recipient: `m${i}@example.com`, subject: 's', body: '<p>b</p>' })).status).toBe(200);
    expect((await v1.post('/v1/email/send/', { subject: 's' })).status).toBe(400);
    expect((await api(app.url, 'nope').get('/v1/email/list/')).status).toBe(401);
    const ids = (await read(await fetch(`${app.url}/api/messages`))).body as { messages: { id: string }[] };
    for (const m of ids.messages.slice(0, 2)) expect((await fetch(`${app.url}/api/messages/${m.id}`)).status).toBe(200);
    expect((await fetch(`${app.url}/api/messages/zzzzzz`)).status).toBe(404);
    expect((await fetch(`${app.url}/no/such/path?x=1`)).status).toBe(404);
    expect((await fetch(`${app.url}/another/unknown`)).status).toBe(404);
    const after = await scrape();

    const delta = (route: string, method: string, status: string) => requests(after, route, method, status) - requests(before, route, method, status);
    expect(delta('/v1/email/send/', 'POST', '200')).toBe(3);
    expect(delta('/v1/email/send/', 'POST', '400')).toBe(1);
    expect(delta('/v1/email/list/', 'GET', '401')).toBe(1);
    expect(delta('/api/messages', 'GET', '200')).toBe(1);
    expect(delta('/api/messages/:id', 'GET', '200')).toBe(2);
    expect(delta('/api/messages/:id', 'GET', '404')).toBe(1);
    expect(delta('unmatched', 'GET', '404')).toBe(2);
    // The scrape before is counted once it has been answered; the raw URLs never become labels.
    expect(delta('/metrics', 'GET', '200')).toBe(1);
    expect(after).not.toContain('zzzzzz');
    expect(after).not.toContain('/no/such/path');
    expect(
      sample(after, 'pigeonhole_http_request_duration_seconds_count', { route: '/v1/email/send/' })! -
        (sample(before, 'pigeonhole_http_request_duration_seconds_count', { route: '/v1/email/send/' }) ?? 0),
    ).toBe(4);

    expect(sample(after, 'pigeonhole_captures_total', { source: 'api' })).toBe(3);
    expect(sample(after, 'pigeonhole_captures_total', { source: 'smtp' })).toBe(0);
    expect(sample(after, 'pigeonhole_messages_stored')).toBe(3);
  });

  it('reports the bytes and files the data directory takes, following captures in and out', async ({ observed: app, scrape }) => {
    await app.store.flush();
    const before = await scrape();
    const withThree = sample(before, 'pigeonhole_store_bytes')!;
    expect(withThree).toBe(await du(app.store.dataDir));
    expect(sample(before, 'pigeonhole_store_files')).toBe(await fileCount(app.store.dataDir));

    const v1 = api(app.url, 'test-key');
    const form = new FormData();
    for (const [k, v] of Object.entries({ recipient: 'big@example.com', subject: 'big', body: '<p>big</p>' })) form.append(k, v);
    form.append('attachment', new Blob([Buffer.alloc(200_000, 7)]), 'big.bin');
    const { id } = (await read(await v1.multipart('/v1/email/send/', form))).body as { id: string };
    const withBig = sample(await scrape(), 'pigeonhole_store_bytes')!;
    expect(withBig).toBe(await du(app.store.dataDir));
    expect(withBig - withThree).toBeGreaterThanOrEqual(200_000);

    // Deleting it leaves dead bytes in the pack until the pack is compacted (its live bytes are
    // now under half): the figure follows the compaction.
    await app.sandbox.messages.remove([(await app.sandbox.messages.get(id))!.seq]);
    await app.sandbox.messages.compact();
    const text = await scrape();
    expect(sample(text, 'pigeonhole_store_bytes')).toBe(await du(app.store.dataDir));
    expect(sample(text, 'pigeonhole_store_bytes')!).toBeLessThan(withBig - 200_000 + 4096 * 4);
    expect(sample(text, 'pigeonhole_messages_stored')).toBe(3);
  });

  it('counts the checkpoint runs and says when the last one began and ended', async ({ observed: app, scrape }) => {
    const before = await scrape();
    const runs = sample(before, 'pigeonhole_storage_checkpoint_runs_total')!;
    const written = sample(before, 'pigeonhole_storage_checkpoints_written_total')!;
    await read(await api(app.url, 'test-key').post('/v1/email/send/', { recipient: 'checkpoint@example.com', subject: 'cp', body: '<p>cp</p>' }));
    const from = Date.now();
    const files = await app.store.checkpoint();
    expect(files).toBeGreaterThan(0);
    const text = await scrape();
    const to = Date.now();
    // A background run (every 10 s) may also have come between: at least this one is counted.
    expect(sample(text, 'pigeonhole_storage_checkpoint_runs_total')).toBeGreaterThanOrEqual(runs + 1);
    expect(sample(text, 'pigeonhole_storage_checkpoints_written_total')).toBeGreaterThanOrEqual(written + files);
    const started = sample(text, 'pigeonhole_storage_checkpoint_last_started_seconds')! * 1000;
    const finished = sample(text, 'pigeonhole_storage_checkpoint_last_finished_seconds')! * 1000;
    expect(started).toBeGreaterThanOrEqual(from);
    expect(finished).toBeGreaterThanOrEqual(started);
    expect(finished).toBeLessThanOrEqual(to);
  });

  it('counts what the SMTP server, the WebSocket hub and fault injection report', async ({ observed: app, scrape }) => {
    const before = await scrape();
    app.metrics.smtpSession();
    app.metrics.smtpSession();
    app.metrics.smtpRejection('auth');
    app.metrics.websocketClients(1);
    app.metrics.faultInjected('http');
    const after = await scrape();
    expect(sample(after, 'pigeonhole_smtp_sessions_total')! - sample(before, 'pigeonhole_smtp_sessions_total')!).toBe(2);
    expect(sample(after, 'pigeonhole_smtp_rejections_total', { reason: 'auth' })).toBe(1);
    expect(sample(after, 'pigeonhole_websocket_clients')).toBe(1);
    expect(sample(after, 'pigeonhole_fault_injections_total', { target: 'http' })).toBe(1);
    expect(sample(after, 'pigeonhole_fault_injections_total', { target: 'smtp' })).toBe(0);
  });

  it('keeps its own registry: a second server in the same process counts separately', async () => {
    const other = await startObservedApp();
    onTestFinished(() => other.destroy());
    const text = await (await fetch(`${other.url}/metrics`)).text();
    expect(sample(text, 'pigeonhole_captures_total', { source: 'api' })).toBe(0);
    expect(requests(text, '/v1/email/send/', 'POST', '200')).toBe(0);
  });
});
