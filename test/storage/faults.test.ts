import { execFileSync } from 'node:child_process';
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, onTestFinished } from 'vitest';
import { nodeFs, type Fs } from '../../server/storage/disk/fs.ts';
import { api, read } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { capturedId, smtpClient, trySend } from '../support/smtp.ts';
import { allMessages } from '../support/process-helpers.ts';

/**
 * Disk faults through the real server (docs/architecture.md, Storage: a failed write is never a 200, /readyz
 * says why, the store heals by itself; damaged files never stop start-up). As root (CI) the disk
 * is a real 6 MB tmpfs and the server a real process; otherwise, and also as root, the same
 * faults come from an injected file-system layer in front of an in-process server.
 */

const isRoot = process.getuid?.() === 0;

const NOT_STORED_FULL =
  /^Not stored: the disk is full \(.+\)\. Free space \(delete captures: DELETE \/api\/messages, or lower --max-messages\) and try again\.$/;
const NOT_STORED_READ_ONLY =
  /^Not stored: (the file system is read-only|the data directory is not writable \(permission denied\)) \(.+\)\. Make the data directory writable; Pigeonhole picks it up by itself\.$/;

/**
 * `smallDisk(megabytes)`: a small real file system (tmpfs) in a temporary directory of
 * `serverProcess`; after the test the processes are killed, then it is unmounted (and deleted).
 */
const it = test.extend('smallDisk', async ({ serverProcess }, { onCleanup }) => {
  const mounts: string[] = [];
  onCleanup(async () => {
    await serverProcess.stopAll();
    for (const dir of mounts.splice(0)) execFileSync('umount', ['-l', dir]);
  });
  return async (megabytes: number): Promise<string> => {
    const dir = await serverProcess.tempDir('pigeonhole-tmpfs-');
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]);
    mounts.push(dir);
    return dir;
  };
});

/**
 * An Fs in front of the real one that can play a disk with a byte budget (writes that would grow
 * the files beyond it fail with ENOSPC; deleting and truncating give bytes back, as on a real
 * disk) or a read-only file system (EROFS).
 */
function injectedFs() {
  let mode: 'quota' | 'EROFS' | null = null;
  let free = 0;
  const fail = (code: string) => {
    throw Object.assign(new Error(`${code}: injected`), { code });
  };
  const take = (bytes: number) => {
    if (mode === 'EROFS') fail('EROFS');
    if (mode !== 'quota' || bytes <= 0) return;
    if (bytes > free) fail('ENOSPC');
    free -= bytes;
  };
  const give = (bytes: number) => {
    if (mode === 'quota') free += Math.max(0, bytes);
  };
  const sizeOf = async (file: string) => (await nodeFs.stat(file))?.size ?? 0;
  const fs: Fs = {
    ...nodeFs,
    open: async (file, flags) => {
      if (flags !== 'r' && mode === 'EROFS') fail('EROFS');
      const handle = await nodeFs.open(file, flags);
      const truncate = handle.truncate.bind(handle);
      handle.truncate = async (length?: number) => {
        if (mode === 'EROFS') fail('EROFS');
        give((await handle.stat()).size - (length ?? 0));
        return truncate(length);
      };
      return handle;
    },
    writeFile: async (file, data) => {
      take(Buffer.byteLength(data) - (await sizeOf(file)));
      return nodeFs.writeFile(file, data);
    },
    writeAt: async (handle, buffers, position) => {
      const size = (await handle.stat()).size;
      const bytes = buffers.reduce((n, b) => n + b.length, 0);
      take(position + bytes - size);
      return nodeFs.writeAt(handle, buffers, position);
    },
    rename: async (from, to) => {
      if (mode === 'EROFS') fail('EROFS');
      give(await sizeOf(to));
      return nodeFs.rename(from, to);
    },
    unlink: async (file) => {
      if (mode === 'EROFS') fail('EROFS');
      const size = await sizeOf(file);
      await nodeFs.unlink(file);
      give(size);
    },
  };
  return {
    fs,
    /** From now on the disk has `bytes` left (0: full). */
    full: (bytes = 0) => {
      mode = 'quota';
      free = bytes;
    },
    readOnly: () => void (mode = 'EROFS'),
    healthy: () => void (mode = null),
  };
}

interface Sandbox {
  url: string;
  smtpPort: number;
}

const send = async (sandbox: Sandbox, i: number, size = 20_000) =>
  read(
    await api(sandbox.url, 'bulk-key').post('/v1/email/send/', { recipient: `f${i}@example.com`, subject: `Fault ${i}`, body: `<p>${'x'.repeat(size)}</p>` }),
  );
const get = async (sandbox: Sandbox, p: string) => read(await fetch(`${sandbox.url}${p}`));
const metric = async (sandbox: Sandbox, reason: string) => {
  const text = await (await fetch(`${sandbox.url}/metrics`)).text();
  return Number(new RegExp(`^pigeonhole_storage_write_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
};

/** What every full-disk variant must show, from the first refusal to the recovery. */
async function fullDiskStory(sandbox: Sandbox, fill: () => Promise<string[]>, free: () => Promise<void>) {
  const accepted = await fill();
  expect(accepted.length).toBeGreaterThan(0);
  const refused = await send(sandbox, 10_000);
  expect(refused.status).toBe(507);
  expect((refused.body as { detail: string }).detail).toMatch(NOT_STORED_FULL);
  // A sender that keeps retrying, with more than the 256 KB reserve a deletion may use: each is
  // refused, and none of it is kept to be written later (the deletion below must still work).
  for (let i = 1; i <= 5; i++) expect((await send(sandbox, 10_000 + i, 100_000)).status).toBe(507);
  // An SMTP message is refused with a temporary failure, and nothing is captured.
  const smtp = await trySend(smtpClient(sandbox.smtpPort), { from: 'a@example.com', to: 'full@example.com', subject: 'full', text: 'x'.repeat(50_000) });
  expect(smtp).toMatchObject({ ok: false, code: 452 });
  expect((smtp as { response: string }).response).toMatch(/^452 4\.3\.1 Not stored: the disk is full, try again later/);
  const ready = await get(sandbox, '/readyz');
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({ status: 'not ready', detail: 'Not ready: storage full.', checks: { storage: 'full' } });
  expect(await metric(sandbox, 'full')).toBeGreaterThan(0);
  // Reads still work, and every capture answered 200 is listed.
  const listed = await allMessages(sandbox.url);
  expect(listed.messages.map((m) => m.id).sort()).toEqual([...accepted].sort());

  // Deleting captures works on the full disk; once the cause is gone the store takes writes
  // again by itself (no restart): /readyz turns ready and sends are stored.
  expect((await fetch(`${sandbox.url}/api/messages`, { method: 'DELETE' })).status).toBe(204);
  await free();
  await expect.poll(async () => (await get(sandbox, '/readyz')).status, { timeout: 5000 }).toBe(200);
  const after = await send(sandbox, 20_000, 100);
  expect(after.status).toBe(200);
  return (after.body as { id: string }).id;
}

describe('a full disk', () => {
  const variants = isRoot ? ['a real 6 MB tmpfs, the server a real process', 'an injected file system'] : ['an injected file system'];
  for (const variant of variants) {
    it(`answers 507 (SMTP 452), says so in /readyz and /metrics, lets deletions free space, and heals by itself: ${variant}`, async ({
      serverProcess,
      smallDisk,
      apps,
    }) => {
      if (variant.startsWith('a real')) {
        const dataDir = path.join(await smallDisk(6), 'data');
        const server = await serverProcess.spawn({ dataDir, args: ['--max-messages', '0'] });
        const id = await fullDiskStory(
          server,
          async () => {
            const ids: string[] = [];
            for (let i = 0; i < 1000; i++) {
              const res = await send(server, i);
              if (res.status !== 200) {
                expect(res.status).toBe(507);
                break;
              }
              ids.push((res.body as { id: string }).id);
            }
            return ids;
          },
          async () => undefined,
        );
        // What was accepted after the recovery is there after a restart; nothing refused is.
        expect(await server.stop('SIGTERM')).toBe(0);
        const again = await serverProcess.spawn({ dataDir, args: ['--max-messages', '0'] });
        expect((await allMessages(again.url)).messages.map((m) => m.id)).toEqual([id]);
      } else {
        const injected = injectedFs();
        const server = await apps.start({ store: { fs: injected.fs, probeIntervalMs: 50, log: () => undefined } });
        try {
          await fullDiskStory(
            server,
            async () => {
              const ids = [];
              for (let i = 0; i < 5; i++) ids.push(((await send(server, i)).body as { id: string }).id);
              injected.full();
              return ids;
            },
            async () => undefined,
          );
        } finally {
          injected.healthy();
        }
      }
    });
  }
});

describe('a read-only data directory', () => {
  const variants = isRoot ? ['a tmpfs remounted read-only under a real process', 'an injected file system'] : ['an injected file system'];
  for (const variant of variants) {
    it(`answers 507 while nothing can be written, and stores again once it is writable: ${variant}`, async ({ serverProcess, smallDisk, apps }) => {
      let sandbox: Sandbox;
      let makeReadOnly: () => Promise<void>;
      let makeWritable: () => Promise<void>;
      if (variant.startsWith('a tmpfs')) {
        // Linux refuses to make a file system read-only while files on it are open for writing,
        // so the server stops, the disk turns read-only, and the server starts on it again.
        const disk = await smallDisk(16);
        const dataDir = path.join(disk, 'data');
        let server = await serverProcess.spawn({ dataDir });
        sandbox = server;
        makeReadOnly = async () => {
          expect(await server.stop('SIGTERM')).toBe(0);
          execFileSync('mount', ['-o', 'remount,ro', disk]);
          server = await serverProcess.spawn({ dataDir });
          sandbox = server;
          // Start-up finds out (it probes a write), not the first send (test/storage/read-only.test.ts).
          expect((await get(sandbox, '/readyz')).status).toBe(503);
        };
        makeWritable = async () => void execFileSync('mount', ['-o', 'remount,rw', disk]);
      } else {
        const injected = injectedFs();
        const server = await apps.start({ store: { fs: injected.fs, probeIntervalMs: 50, log: () => undefined } });
        onTestFinished(() => injected.healthy());
        sandbox = server;
        makeReadOnly = async () => injected.readOnly();
        makeWritable = async () => injected.healthy();
      }
      const before = await send(sandbox, 1, 100);
      expect(before.status).toBe(200);
      await makeReadOnly();
      // Everything stored reads back; a write is refused (found out by start-up or by the write itself).
      expect((await allMessages(sandbox.url)).total).toBe(1);
      const refused = await send(sandbox, 2, 100);
      expect(refused.status).toBe(507);
      expect((refused.body as { detail: string }).detail).toMatch(NOT_STORED_READ_ONLY);
      expect((await get(sandbox, '/readyz')).body).toMatchObject({ checks: { storage: 'read-only' } });
      expect(await metric(sandbox, 'read-only')).toBeGreaterThan(0);
      // Reading goes on.
      expect((await fetch(`${sandbox.url}/api/messages/${(before.body as { id: string }).id}/html`)).status).toBe(200);
      await makeWritable();
      await expect.poll(async () => (await get(sandbox, '/readyz')).status, { timeout: 5000 }).toBe(200);
      expect((await send(sandbox, 3, 100)).status).toBe(200);
      expect((await allMessages(sandbox.url)).total).toBe(2);
    });
  }
});

describe('a refused change', () => {
  it('leaves the sandbox as it was: a mark, a status, a deletion or a clear answered 507 did not happen', async ({ apps }) => {
    const injected = injectedFs();
    const server = await apps.start({ store: { fs: injected.fs, probeIntervalMs: 50, log: () => undefined } });
    onTestFinished(() => injected.healthy());
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(((await send(server, i, 100)).body as { id: string }).id);
    injected.readOnly();
    const call = async (method: string, p: string, body?: unknown) =>
      read(
        await fetch(`${server.url}${p}`, {
          method,
          headers: { 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
    expect((await call('PATCH', `/api/messages/${ids[0]}`, { read: true })).status).toBe(507);
    expect((await call('POST', `/api/messages/${ids[0]}/status`, { status: 'bounced' })).status).toBe(507);
    expect((await call('DELETE', `/api/messages/${ids[1]}`)).status).toBe(507);
    expect((await call('DELETE', '/api/messages')).status).toBe(507);
    const seen = async () =>
      ((await get(server, '/api/messages')).body as { messages: { id: string; read: boolean; status: string }[] }).messages.map((m) => [
        m.id,
        m.read,
        m.status,
      ]);
    const expected = ids.map((id) => [id, false, 'delivered']).reverse();
    expect(await seen()).toEqual(expected);
    expect((await get(server, '/api/blocks')).body).toMatchObject({ blocks: [{ reason: 'config' }] });
    // Once it can write again, nothing refused turns up later, and the same changes work.
    injected.healthy();
    await expect.poll(async () => (await get(server, '/readyz')).status, { timeout: 5000 }).toBe(200);
    await server.store.flush();
    expect(await seen()).toEqual(expected);
    expect((await call('PATCH', `/api/messages/${ids[0]}`, { read: true })).status).toBe(200);
    expect((await call('DELETE', `/api/messages/${ids[1]}`)).status).toBe(204);
    const dataDir = server.dataDir;
    await server.close();
    const again = await apps.start({ dataDir, store: { log: () => undefined } });
    const after = ((await get(again, '/api/messages')).body as { messages: { id: string; read: boolean }[] }).messages.map((m) => [m.id, m.read]);
    expect(after).toEqual([
      [ids[2], false],
      [ids[0], true],
    ]);
  });
});

describe('the data directory removed under the running server', () => {
  it('is made again and written back: nothing acknowledged is lost, before or after', async ({ serverProcess }) => {
    const dataDir = path.join(await serverProcess.tempDir('pigeonhole-removed-'), 'data');
    const server = await serverProcess.spawn({ dataDir });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await send(server, i, 500)).body as { id: string }).id);
    const smtpBefore = capturedId(
      (await smtpClient(server.smtpPort).sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 'before', text: 'before' })).response,
    );
    await rm(dataDir, { recursive: true, force: true });
    // Sends right after the removal are stored too (the folder comes back within a second).
    for (let i = 3; i < 5; i++) {
      const res = await send(server, i, 500);
      expect(res.status).toBe(200);
      ids.push((res.body as { id: string }).id);
    }
    // Found by the next write that creates a file, or by the probe: the line comes once every file is back.
    await expect.poll(() => server.output(), { timeout: 5000 }).toMatch(/was removed while the server ran; recreated it and wrote back \d+ files?/);
    expect((await readdir(path.join(dataDir, 'packs'))).length).toBeGreaterThan(0);
    // A folder removed on its own comes back as well.
    await rm(path.join(dataDir, 'messages'), { recursive: true, force: true });
    await expect.poll(async () => (await readdir(path.join(dataDir, 'messages')).catch(() => [])).length, { timeout: 5000 }).toBeGreaterThan(0);
    ids.push(((await send(server, 5, 500)).body as { id: string }).id);
    expect((await get(server, '/readyz')).status).toBe(200);

    expect(await server.stop('SIGTERM')).toBe(0);
    const again = await serverProcess.spawn({ dataDir });
    const listed = await allMessages(again.url);
    expect(listed.messages.map((m) => m.id).sort()).toEqual([...ids, smtpBefore].sort());
    for (const id of [...ids, smtpBefore]) expect((await fetch(`${again.url}/api/messages/${id}/raw`)).status, id).toBe(200);
  });
});

describe('damaged files at start-up', () => {
  it('a message segment cut in half: the server starts, names the file, keeps the rest and never reuses an id', async ({ serverProcess }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-damaged-');
    const first = await serverProcess.spawn({ dataDir });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(((await send(first, i, 50)).body as { id: string }).id);
    expect(await first.stop('SIGTERM')).toBe(0);
    const segment = path.join(dataDir, 'messages', 'seg-000000.json');
    const bytes = await readFile(segment);
    await writeFile(segment, bytes.subarray(0, Math.floor(bytes.length / 2)));

    const second = await serverProcess.spawn({ dataDir });
    expect(second.output()).toContain(`${segment}: a torn last line`);
    // What is left of the record the cut went through is kept, and the log says where.
    expect(second.output()).toMatch(/1 record could not be read; the damaged bytes were moved to .*damaged.*seg-000000\.json/);
    const listed = await allMessages(second.url);
    expect(listed.total).toBeGreaterThan(10);
    expect(listed.total).toBeLessThan(40);
    // The captures before the cut are whole.
    for (const m of listed.messages) expect((await fetch(`${second.url}/api/messages/${m.id}/html`)).status).toBe(200);
    const fresh = ((await send(second, 99, 50)).body as { id: string }).id;
    expect(ids).not.toContain(fresh);
  });

  it('a line that does not parse is moved to damaged/ with a log line that says how many records and how to get rid of it', async ({ serverProcess }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-damaged-line-');
    const first = await serverProcess.spawn({ dataDir });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(((await send(first, i, 50)).body as { id: string }).id);
    expect(await first.stop('SIGTERM')).toBe(0);
    const segment = path.join(dataDir, 'messages', 'seg-000000.json');
    const text = await readFile(segment, 'utf8');
    await writeFile(segment, text.replace('"subject":"Fault 2"', '"subject":"Fault 2'));

    const second = await serverProcess.spawn({ dataDir });
    expect(second.output()).toMatch(
      new RegExp(
        `${segment.replace(/[.]/g, '\\.')}: damaged lines that do not parse, 1 record could not be read; the damaged bytes were moved to ${dataDir}/damaged/[^ ]+ \\(delete that file to get rid of them\\)`,
      ),
    );
    expect(await readdir(path.join(dataDir, 'damaged'))).toHaveLength(1);
    expect((await allMessages(second.url)).messages.map((m) => m.id).sort()).toEqual([ids[0], ids[1], ids[3], ids[4]].sort());
    expect((await get(second, `/api/messages/${ids[2]}`)).status).toBe(404);
  });
});

describe('a data directory written by Pigeonhole 0.1', () => {
  it('opens, moves to the pack store once, and every capture reads back as it was', async ({ serverProcess }) => {
    const fixture = fileURLToPath(new URL('../../fixtures/legacy-data-v1', import.meta.url));
    const dataDir = path.join(await serverProcess.tempDir('pigeonhole-legacy-'), 'data');
    await mkdir(dataDir);
    await cp(fixture, dataDir, { recursive: true });
    await rm(path.join(dataDir, 'README.md'));
    // The fixture was made on 2026-11-23 and its flow subscription has a step due two days later.
    // Start its sandbox clock just after the fixture was made (a stored offset, as a moved clock
    // is kept across restarts), so no step falls due in real time whatever the date of the run.
    const metaFile = path.join(dataDir, 'meta.json');
    const meta = JSON.parse(await readFile(metaFile, 'utf8')) as Record<string, unknown>;
    await writeFile(metaFile, JSON.stringify({ ...meta, clockOffsetMs: Date.parse('2026-11-23T11:00:00Z') - Date.now() }));
    const eml = async (seq: number) => readFile(path.join(fixture, 'blobs', '00000', `${seq}.message.eml`));

    const server = await serverProcess.spawn({ dataDir });
    expect(server.output()).toMatch(/was written by an older version: moving it to the pack store \(once\)/);
    const listed = await allMessages(server.url);
    expect(listed.messages.map((m) => m.subject)).toEqual([
      'Grüße from SMTP',
      'Welcome to Acme, Erin!',
      'Bounce me',
      'Dev mode',
      'Blocked one',
      'Secret',
      'Your invoice',
      'Welcome, Ada',
    ]);
    const ids = listed.messages.map((m) => m.id).reverse();
    // Every .eml is the very bytes 0.1 stored.
    for (const [k, id] of ids.entries()) {
      const raw = Buffer.from(await (await fetch(`${server.url}/api/messages/${id}/raw`)).arrayBuffer());
      expect(raw.equals(await eml(k + 1)), `${id}.eml`).toBe(true);
    }
    const ada = (await get(server, `/api/messages/${ids[0]}`)).body as Record<string, unknown>;
    expect(ada).toMatchObject({
      subject: 'Welcome, Ada',
      first_name: 'Ada',
      flags: ['beta', 'vip'],
      read: true,
      text: 'Hello Ada. Code 482913.',
      text_derived: false,
    });
    expect(await (await fetch(`${server.url}/api/messages/${ids[1]}/attachments/0`)).text()).toBe('%PDF-1.4 fake invoice bytes\n');
    expect(await (await fetch(`${server.url}/api/messages/${ids[7]}/attachments/1`)).text()).toBe('some notes');
    // The encrypted record still needs its key.
    const v1 = api(server.url, 'test-key');
    expect((await read(await v1.get(`/v1/email/detail/${ids[2]}/`, { 'Encryption-Key': 'k3y' }))).body).toMatchObject({
      body: expect.stringContaining('sealed body'),
    });
    expect((await read(await v1.get('/v1/recipients/'))).body).toMatchObject({ count: 6 });
    expect((await get(server, '/api/subscriptions')).body).toMatchObject({ total: 1 });
    // The 0.1 request log is there (and the requests of this test come on top).
    expect(((await get(server, '/api/requests?limit=500')).body as { requests: { path: string }[] }).requests.slice(-7).map((r) => r.path)).toEqual(
      Array(6).fill('/v1/email/send/').concat('/v1/flows/subscribe/').reverse(),
    );
    // Ids go on from where 0.1 stopped.
    const next = ((await send(server, 1, 10)).body as { id: string }).id;
    expect(ids).not.toContain(next);
    expect(await readdir(dataDir)).not.toContain('blobs');
    expect((await readdir(path.join(dataDir, 'messages'))).sort()).toEqual(['seg-000000.json']);
    // Moved into segments of the size a new store gets, and that size recorded.
    expect(JSON.parse(await readFile(metaFile, 'utf8'))).toMatchObject({ version: 2, segmentSize: 8192 });

    // Opened again, it is not migrated twice.
    expect(await server.stop('SIGTERM')).toBe(0);
    const again = await serverProcess.spawn({ dataDir });
    expect(again.output()).not.toMatch(/older version/);
    expect((await allMessages(again.url)).total).toBe(9);
  });
});

describe('--fsync', () => {
  it('stores and answers as without it (each group commit is flushed to stable storage first)', async ({ serverProcess }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-fsync-');
    const server = await serverProcess.spawn({ dataDir, args: ['--fsync'] });
    const ids = await Promise.all(Array.from({ length: 20 }, async (_, i) => ((await send(server, i, 100)).body as { id: string }).id));
    expect(await server.stop('SIGKILL')).toBe(null);
    const again: ServerProcess = await serverProcess.spawn({ dataDir });
    expect((await allMessages(again.url)).messages.map((m) => m.id).sort()).toEqual([...ids].sort());
  });
});
