import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs, type Fs } from '../../../server/storage/disk/fs.ts';
import { ENTRY_HEADER } from '../../../server/storage/packs/pack-file.ts';
import { PART } from '../../../server/storage/packs/pack-store.ts';
import { contentRefs } from '../../../server/storage/records.ts';
import { api, read, type TestServer } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

/**
 * Send, wait, read, delete (or reset the namespace) in concurrent loops: the pattern a test
 * suite run in parallel makes. A capture that was not deleted yet must read back whole, and no
 * pack file may go while a live capture points into it (docs/storage.md: a 200 means the data
 * is on disk). Deletions make the pack being appended to dead again and again while other
 * loops' sends arrive, which is where reclaiming a pack raced with appends to it.
 */
// Few loops, many rounds: the pack being appended to is dead only while every loop's capture in
// it is deleted, which more loops make rarer (on the code before the fix, each of these tests
// failed in every one of 3 runs).
const LOOPS = 4;
const ROUNDS = 150;

async function hammer(server: TestServer, loop: number, round: number, how: 'delete' | 'reset'): Promise<string[]> {
  const problems: string[] = [];
  const v1 = api(server.url, 'bulk-key');
  const tag = `l${loop}r${round}`;
  const recipient = how === 'reset' ? `x+${tag}@example.com` : `${tag}@example.com`;
  const body = `<p>${tag} ${'x'.repeat(500 + ((loop * 131 + round * 17) % 3000))}</p>`;
  const sent = await read(await v1.post('/v1/email/send/', { recipient, subject: tag, body }));
  if (sent.status !== 200) return [`${tag}: send answered ${sent.status} ${sent.text}`];
  problems.push(...(await notOnDisk(server, (sent.body as { id: string }).id)));
  const waited = await read(await fetch(`${server.url}/api/messages/wait?recipient=${encodeURIComponent(recipient)}`));
  if (waited.status !== 200) return [...problems, `${tag}: wait answered ${waited.status} ${waited.text}`];
  const id = (waited.body as { id: string }).id;
  for (const part of ['html', 'raw']) {
    const res = await fetch(`${server.url}/api/messages/${id}/${part}`);
    const text = await res.text();
    if (res.status !== 200) problems.push(`${tag}: GET ${part} answered ${res.status} ${text}`);
    else if (!text.includes(`${tag} xxx`)) problems.push(`${tag}: GET ${part} lacks the body`);
  }
  const gone =
    how === 'delete'
      ? await fetch(`${server.url}/api/messages/${id}`, { method: 'DELETE' })
      : await fetch(`${server.url}/api/reset`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ namespace: tag }) });
  if (!gone.ok) problems.push(`${tag}: ${how} answered ${gone.status} ${await gone.text()}`);
  else await gone.arrayBuffer();
  return problems;
}

/**
 * The parts of a capture that was answered for (a 200) whose bytes are not in their file. Its
 * parts stay where they were written: packs are sealed at 32 KiB here, and only packs of 64 KiB
 * and more are compacted (moved), so this holds on correct code whatever else runs meanwhile.
 */
async function notOnDisk(server: TestServer, id: string): Promise<string[]> {
  const record = await server.sandbox.messages.get(id);
  if (!record) return [`${id}: not found after its send was answered`];
  const problems: string[] = [];
  for (const ref of contentRefs(record)) {
    const file = 'p' in ref ? `${String(ref.p).padStart(6, '0')}.pack` : ref.f;
    // Synchronous: the check must not change the timing it is there to catch.
    const size = statSync(path.join(server.dataDir, 'packs', file), { throwIfNoEntry: false })?.size ?? null;
    const end = 'p' in ref ? ref.o + ENTRY_HEADER + ref.n : ref.n;
    if (size === null || size < end) problems.push(`${id}: answered 200, but ${file} has ${size ?? 'no file'} bytes, its part ends at ${end}`);
  }
  return problems;
}

/** Pack files a live capture points into that are not on disk (call it with no write under way). */
async function missingPacks(server: TestServer): Promise<string[]> {
  await server.store.flush();
  const files = new Set(await readdir(path.join(server.dataDir, 'packs')));
  const missing: string[] = [];
  for (const seq of server.sandbox.messages.matching({})) {
    const record = (await server.sandbox.messages.records([seq]))[0];
    if (!record) continue;
    for (const ref of contentRefs(record)) {
      const file = 'p' in ref ? `${String(ref.p).padStart(6, '0')}.pack` : ref.f;
      if (!files.has(file)) missing.push(`${record.id}: ${file}`);
    }
  }
  return missing;
}

describe('reclaiming packs under concurrent sends and deletions', () => {
  it('a part added while the pack being appended to is deleted (every capture in it was) goes to a new pack, and is written', async ({ stores }) => {
    // The real file system, with the deletion of a pack file held until the test lets it go:
    // the moment a send can arrive (the deletion is an asynchronous call) made certain.
    let unlinking!: () => void;
    const started = new Promise<void>((resolve) => (unlinking = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fs: Fs = {
      ...nodeFs,
      unlink: async (file) => {
        if (file.endsWith('.pack')) {
          unlinking();
          await released;
        }
        return nodeFs.unlink(file);
      },
    };
    const store = await stores.open({ fs });
    const first = store.packs.add(1, PART.html, Buffer.from('<p>first</p>'));
    await store.flush();
    // Its only capture deleted: the active pack is dead, and the next write deletes it.
    store.packs.release(first);
    const deleting = store.flush();
    await started;
    const second = store.packs.add(2, PART.html, Buffer.from('<p>second</p>'));
    release();
    await deleting;
    await store.flush();
    expect((await store.packs.read(second, 2)).toString()).toBe('<p>second</p>');
    expect('p' in second && second.p).not.toBe('p' in first && first.p);
    await store.close();
    const again = await stores.open({ dataDir: store.dataDir });
    expect((await again.packs.read(second, 2)).toString()).toBe('<p>second</p>');
  });

  it('a capture deleted while its pack is compacted stays deleted after a restart, and the others read back', async ({ apps }) => {
    const server = await apps.start({ store: { reserveSize: 0 } });
    const v1 = api(server.url, 'bulk-key');
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const sent = await read(
        await v1.post('/v1/email/send/', { recipient: `c${i}@example.com`, subject: `C ${i}`, body: `<p>${String(i % 10).repeat(3000)}</p>` }),
      );
      ids.push((sent.body as { id: string }).id);
    }
    const messages = server.sandbox.messages;
    const seqs = await Promise.all(ids.map(async (id) => (await messages.get(id))!.seq));
    // Nine in ten deleted: the pack (180 KB, a tenth live) is worth compacting.
    await messages.remove(seqs.filter((_, i) => i % 10 !== 0));
    const kept = seqs.filter((_, i) => i % 10 === 0);
    // Three of the live ones are deleted while the compaction copies them forward.
    await Promise.all([messages.compact(), messages.remove(kept.slice(0, 3))]);
    const dataDir = server.dataDir;
    await server.close();
    const again = await apps.start({ dataDir, store: { reserveSize: 0 } });
    const list = (await read(await fetch(`${again.url}/api/messages?limit=100`))).body as { messages: { id: string }[] };
    const expected = kept.slice(3).map((seq) => ids[seqs.indexOf(seq)]!);
    expect(list.messages.map((m) => m.id).sort()).toEqual([...expected].sort());
    for (const id of expected) expect([id, (await fetch(`${again.url}/api/messages/${id}/html`)).status]).toEqual([id, 200]);
  });

  for (const how of ['delete', 'reset'] as const) {
    it(`every capture not yet deleted reads back, and no pack a live capture points into goes (${how})`, { timeout: 120_000 }, async ({ apps }) => {
      // Small packs, so they fill, seal and are reclaimed many times in one run.
      const server = await apps.start({ store: { packSize: 32 * 1024, reserveSize: 0 } });
      const problems: string[] = [];
      // A capture that outlives every loop: its pack must never go either.
      const keep = await read(
        await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: 'keeper@example.com', subject: 'keep', body: '<p>keeper</p>' }),
      );
      const keeperId = (keep.body as { id: string }).id;
      await Promise.all(
        Array.from({ length: LOOPS }, async (_, loop) => {
          for (let round = 0; round < ROUNDS; round++) {
            problems.push(...(await hammer(server, loop, round, how)));
            // Between rounds, the capture that is never deleted still reads back.
            const kept = await fetch(`${server.url}/api/messages/${keeperId}/raw`);
            if (kept.status !== 200) problems.push(`keeper: GET raw answered ${kept.status} ${await kept.text()}`);
            else await kept.arrayBuffer();
          }
        }),
      );
      expect(problems).toEqual([]);
      expect((await fetch(`${server.url}/api/messages/${keeperId}/html`)).status).toBe(200);
      expect(await missingPacks(server)).toEqual([]);
      expect(server.sandbox.messages.count()).toBe(1);
      // What is on disk reads back after a restart too.
      const dataDir = server.dataDir;
      await server.close();
      const again = await apps.start({ dataDir, store: { packSize: 32 * 1024, reserveSize: 0 } });
      expect((await fetch(`${again.url}/api/messages/${keeperId}/html`)).status).toBe(200);
    });
  }
});
