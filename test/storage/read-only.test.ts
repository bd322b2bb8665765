import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { runningInContainer } from '../../server/start-messages.ts';
import { api, read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { allMessages } from '../support/process-helpers.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { capturedId, smtpClient, trySend } from '../support/smtp.ts';

/**
 * A read-only data directory (issue 21, item 5; docs/storage.md, "A data directory that cannot
 * be written"), through the real server process on real read-only mounts (CI runs as root):
 * an empty one stops start-up with one line; one holding a store is served read-only, not
 * ready, every write refused with a 507 and one log line for the cause; SIGTERM exits 0 and
 * names what stayed unsaved; made writable again, it stores again by itself.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `mounts`: read-only mounts in temporary directories of `serverProcess`: `emptyReadOnly()` a
 * read-only tmpfs, `bindReadOnly(dir)` the folder bind-mounted on itself and made read-only
 * (`writable(dir)` makes it read-write again). After the test the processes are killed, then
 * everything is unmounted.
 */
const it = test.extend('mounts', async ({ serverProcess }, { onCleanup }) => {
  const mounted: string[] = [];
  onCleanup(async () => {
    await serverProcess.stopAll();
    for (const dir of mounted.splice(0).reverse()) execFileSync('umount', ['-l', dir]);
  });
  return {
    async emptyReadOnly(): Promise<string> {
      const dir = await serverProcess.tempDir('pigeonhole-ro-empty-');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,ro', 'tmpfs', dir]);
      mounted.push(dir);
      return dir;
    },
    bindReadOnly(dir: string): void {
      execFileSync('mount', ['--bind', dir, dir]);
      mounted.push(dir);
      execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
    },
    writable(dir: string): void {
      execFileSync('mount', ['-o', 'remount,bind,rw', dir]);
    },
  };
});

/** Runs the real entry point to its exit; resolves with the exit code and everything it printed. */
async function runToExit(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts', '--http-port', '0', '--smtp-port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

const fix = (dataDir: string) =>
  runningInContainer()
    ? `Mount a writable volume or host folder at that path (docker run -v DIR:${dataDir}, without :ro).`
    : 'Remount it read-write, or pick a writable folder: --data-dir PATH.';

const send = async (server: ServerProcess, i: number) =>
  read(await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: `ro${i}@example.com`, subject: `Read-only ${i}`, body: `<p>body ${i}</p>` }));
/** A multipart send with an attachment: its upload is written to the data directory's tmp folder first. */
const sendWithAttachment = async (server: ServerProcess, i: number) => {
  const form = new FormData();
  form.set('recipient', `ro${i}@example.com`);
  form.set('subject', `Read-only ${i}`);
  form.set('body', `<p>body ${i}</p>`);
  form.set('attachment', new Blob(['attached bytes']), 'notes.txt');
  return read(await fetch(`${server.url}/v1/email/send/`, { method: 'POST', headers: { Authorization: 'Api-Key bulk-key' }, body: form }));
};
const get = async (server: ServerProcess, p: string) => read(await fetch(`${server.url}${p}`));
const lines = (server: ServerProcess, pattern: RegExp) =>
  server
    .output()
    .split('\n')
    .filter((line) => pattern.test(line));

describe('an empty read-only data directory', () => {
  it('stops start-up with one line that names the folder and the way out: exit 1, no stack trace', async ({ mounts }) => {
    const disk = await mounts.emptyReadOnly();
    const empty = await runToExit(['--data-dir', disk]);
    expect(empty.code).toBe(1);
    expect(empty.output).toBe(
      `pigeonhole: the data directory ${disk} is on a read-only file system (open ${disk}/.probe) and holds no captures to show. ${fix(disk)}\n`,
    );
    // A folder still to be made on a read-only mount: Node's recursive mkdir says ENOENT there,
    // which is not the reason.
    const dataDir = path.join(disk, 'data');
    const missing = await runToExit(['--data-dir', dataDir]);
    expect(missing.code).toBe(1);
    expect(missing.output).toBe(
      `pigeonhole: the data directory ${dataDir} is on a read-only file system (mkdir ${dataDir}) and holds no captures to show. ${fix(dataDir)}\n`,
    );
  });
});

describe("a read-only data directory in Pigeonhole 0.1's layout", () => {
  it('stops start-up with one line: it must be moved to the current layout first, which is a write', async ({ serverProcess, mounts }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-ro-v1-');
    await cp(fileURLToPath(new URL('../../fixtures/legacy-data-v1', import.meta.url)), dataDir, { recursive: true });
    mounts.bindReadOnly(dataDir);
    const { code, output } = await runToExit(['--data-dir', dataDir]);
    expect(code).toBe(1);
    expect(output).toBe(
      `pigeonhole: the data directory ${dataDir} is on a read-only file system (open ${dataDir}/.probe): it holds Pigeonhole 0.1's layout, which must be moved to the current one (a write) before it can be shown. ${fix(dataDir)}\n`,
    );
  });
});

describe('a read-only data directory that holds captures', () => {
  it('is served read-only: not ready with the reason, every write a 507 logged once, SIGTERM exits 0 naming what was not saved; writable again, it stores by itself', async ({
    serverProcess,
    mounts,
  }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-ro-data-');
    const first = await serverProcess.spawn({ dataDir });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await send(first, i)).body as { id: string }).id);
    const smtpId = capturedId(
      (await smtpClient(first.smtpPort).sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 'over smtp', text: 'smtp body' })).response,
    );
    expect(await first.stop('SIGTERM')).toBe(0);
    // As if the server had stopped before taking the SMTP message apart (a crash): its parts are
    // extracted when it is read, which a read-only store must still do.
    const segment = path.join(dataDir, 'messages', 'seg-000000.json');
    const records = await readFile(segment, 'utf8');
    expect(records).toContain(`"id":"${smtpId}",`);
    await writeFile(segment, records.replace(`"id":"${smtpId}",`, `"id":"${smtpId}","unparsed":true,`));
    // Folders a store may lack (a copy, an older run): read as empty, made once it is writable.
    await rm(path.join(dataDir, 'subscriptions'), { recursive: true });
    await rm(path.join(dataDir, 'tmp'), { recursive: true });
    mounts.bindReadOnly(dataDir);

    // Retention would prune one capture: it cannot, and says nothing more about it than the cause.
    const server = await serverProcess.spawn({ dataDir, args: ['--max-messages', '3'] });
    const cause = /read-only|cannot be written|writes fail/;
    expect(lines(server, cause)).toEqual([
      `pigeonhole: the data directory ${dataDir} cannot be written: read-only file system (open ${dataDir}/.probe). Serving what it holds read-only: /readyz is not ready and every write is refused (HTTP 507, SMTP 452) until it is writable again, which Pigeonhole picks up by itself`,
    ]);
    await expect.poll(() => server.output()).toContain(`  data directory: ${dataDir} (4 captures)\n`);
    const ready = await get(server, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.text).toBe('{"status":"not ready","detail":"Not ready: storage read-only.","checks":{"storage":"read-only","http":"ok","smtp":"ok"}}');

    // Reads are served.
    expect((await allMessages(server.url)).messages.map((m) => m.id)).toEqual([smtpId, ...[...ids].reverse()]);
    const html = await fetch(`${server.url}/api/messages/${ids[0]}/html`);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('<p>body 0</p>');
    expect(await (await fetch(`${server.url}/api/messages/${smtpId}/raw`)).text()).toContain('smtp body');
    expect(((await get(server, `/api/messages/${smtpId}`)).body as { text: string }).text).toBe('smtp body');

    // Every write is refused with the documented answer; none of it is logged again.
    for (let i = 10; i < 15; i++) {
      const refused = await send(server, i);
      expect(refused.status).toBe(507);
      expect(refused.text).toBe(
        `{"detail":"Not stored: the file system is read-only (${dataDir}/packs). Make the data directory writable; Pigeonhole picks it up by itself."}`,
      );
    }
    // An upload too (it is written to tmp/ first, which this copy lacks and cannot make).
    const upload = await sendWithAttachment(server, 15);
    expect(upload.status).toBe(507);
    expect(upload.text).toBe(
      `{"detail":"Not stored: the file system is read-only (${dataDir}/tmp). Make the data directory writable; Pigeonhole picks it up by itself."}`,
    );
    const mark = await fetch(`${server.url}/api/messages/${ids[1]}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: '{"read":true}',
    });
    expect(mark.status).toBe(507);
    expect(await mark.text()).toBe(
      `{"detail":"Not stored: the file system is read-only (${dataDir}/messages). Make the data directory writable; Pigeonhole picks it up by itself."}`,
    );
    const smtp = await trySend(smtpClient(server.smtpPort), { from: 'a@example.com', to: 'c@example.com', subject: 'refused', text: 'x' });
    expect(smtp).toMatchObject({ ok: false, code: 452 });
    expect((smtp as { response: string }).response).toBe('452 4.3.1 Not stored: the file system is read-only, try again later');
    expect(lines(server, cause)).toHaveLength(1);
    expect(server.output()).not.toMatch(/\n\s+at |failed/);

    // SIGTERM: nothing it may write, nothing acknowledged to lose: exit 0 and one line on what stayed in memory.
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(lines(server, /stopped without saving/)).toEqual([
      `pigeonhole: stopped without saving the id counters (start-up derives them again) and 1 change to a capture (its delivery status or parsed parts), because the file system is read-only (${dataDir}/messages); nothing that was acknowledged is lost`,
    ]);
    expect(server.output()).not.toMatch(/failed to stop cleanly|\n\s+at /);

    // Made writable under a running server: ready again by itself, and sends are stored.
    const again = await serverProcess.spawn({ dataDir });
    expect((await send(again, 20)).status).toBe(507);
    mounts.writable(dataDir);
    await expect.poll(async () => (await get(again, '/readyz')).status, { timeout: 5000 }).toBe(200);
    expect(lines(again, /writes work again/)).toEqual([
      expect.stringMatching(
        new RegExp(`^pigeonhole: writes work again \\(\\d+ writes? failed while the file system is read-only, ${dataDir}(/\\w+)?\\); storing as usual$`),
      ),
    ]);
    const stored = await send(again, 21);
    expect(stored.status).toBe(200);
    const attached = await sendWithAttachment(again, 22);
    expect(attached.status).toBe(200);
    expect(await again.stop('SIGTERM')).toBe(0);
    expect(again.output()).not.toContain('stopped without saving');

    const restarted = await serverProcess.spawn({ dataDir });
    expect(lines(restarted, cause)).toEqual([]);
    expect((await get(restarted, '/readyz')).status).toBe(200);
    // The refused sends kept nothing: not their recipients either.
    const recipients = (await read(await api(restarted.url, 'bulk-key').get('/v1/recipients/'))).body as { results: { email: string }[] };
    expect(recipients.results.map((r) => r.email).sort()).toEqual([
      'ro0@example.com',
      'ro1@example.com',
      'ro21@example.com',
      'ro22@example.com',
      'ro2@example.com',
    ]);
    expect((await allMessages(restarted.url)).messages.map((m) => m.id)).toEqual([
      (attached.body as { id: string }).id,
      (stored.body as { id: string }).id,
      smtpId,
      ...[...ids].reverse(),
    ]);
  });
});

describe('a data directory another user owns', () => {
  it('is served read-only too when it holds captures (permission denied): not ready, writes 507, exits 0', async ({ serverProcess }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-ro-owner-');
    const first = await serverProcess.spawn({ dataDir });
    const id = ((await send(first, 0)).body as { id: string }).id;
    expect(await first.stop('SIGTERM')).toBe(0);
    // Root's folder, readable by all, as a host folder bind-mounted into a container run as uid 1000 is.
    await chmod(dataDir, 0o755);

    const server = await serverProcess.spawn({ dataDir, asUser: 1000 });
    expect(lines(server, /cannot be written|writes fail/)).toEqual([
      `pigeonhole: the data directory ${dataDir} cannot be written: permission denied (open ${dataDir}/.probe). Serving what it holds read-only: /readyz is not ready and every write is refused (HTTP 507, SMTP 452) until it is writable again, which Pigeonhole picks up by itself`,
    ]);
    expect((await get(server, '/readyz')).text).toBe(
      '{"status":"not ready","detail":"Not ready: storage read-only.","checks":{"storage":"read-only","http":"ok","smtp":"ok"}}',
    );
    expect((await allMessages(server.url)).messages.map((m) => m.id)).toEqual([id]);
    const refused = await send(server, 1);
    expect(refused.status).toBe(507);
    expect(refused.text).toBe(
      `{"detail":"Not stored: the data directory is not writable (permission denied) (${dataDir}/packs). Make the data directory writable; Pigeonhole picks it up by itself."}`,
    );
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(lines(server, /stopped without saving/)).toHaveLength(1);
  });
});

describe('a clock move the disk refuses', () => {
  it('leaves the sandbox clock where it was, so a client that retries moves it once', async ({ serverProcess, mounts }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-ro-clock-');
    const server = await serverProcess.spawn({ dataDir });
    const advance = async () =>
      read(await fetch(`${server.url}/api/clock/advance`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"duration":"1h"}' }));
    const offset = async () => ((await get(server, '/api/clock')).body as { offset_ms: number }).offset_ms;
    expect(await offset()).toBe(0);

    mounts.bindReadOnly(dataDir);
    const refused = await advance();
    expect(refused.status).toBe(507);
    expect(refused.text).toBe(
      `{"detail":"Not stored: the file system is read-only (${dataDir}/meta.json). Make the data directory writable; Pigeonhole picks it up by itself."}`,
    );
    expect(await offset()).toBe(0);

    mounts.writable(dataDir);
    const moved = await advance();
    expect(moved.status).toBe(200);
    expect((moved.body as { offset_ms: number }).offset_ms).toBe(3_600_000);
    expect(await offset()).toBe(3_600_000);
    // And on disk: a restart reads the one hour.
    expect(await server.stop('SIGTERM')).toBe(0);
    const again = await serverProcess.spawn({ dataDir });
    const after = await get(again, '/api/clock');
    expect((after.body as { offset_ms: number }).offset_ms).toBeGreaterThanOrEqual(3_600_000);
    expect((after.body as { offset_ms: number }).offset_ms).toBeLessThan(7_200_000);
  });
});
