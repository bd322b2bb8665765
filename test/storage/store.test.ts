import { readdir, readFile, stat } from 'node:fs/promises';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecipientRecord } from '../../server/storage/records.ts';
import { openStore, type Store } from '../../server/storage/store.ts';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function fresh(segmentSize = 100): Promise<{ store: Store; dir: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-store-'));
  dirs.push(dir);
  return { store: await openStore({ dataDir: dir, segmentSize }), dir };
}

function recipient(seq: number): RecipientRecord {
  const at = new Date(0).toISOString();
  return { seq, sqid: `s${seq}`, team: 't', email: `r${seq}@example.com`, firstName: 'A name of some length', lastName: '', flags: ['x'], hasBeenSentEmail: false, createdAt: at, updatedAt: at };
}

/** Bytes of the files a single insert rewrote, found by modification time. */
async function bytesRewrittenByOneInsert(store: Store, dir: string, seq: number): Promise<number> {
  const before = new Map<string, number>();
  const files = async () => (await readdir(path.join(dir, 'recipients'))).map((f) => path.join(dir, 'recipients', f));
  for (const f of await files()) before.set(f, (await stat(f)).mtimeMs);
  store.recipients.insert(recipient(seq));
  await store.flush();
  let bytes = 0;
  for (const f of await files()) {
    const s = await stat(f);
    if (before.get(f) !== s.mtimeMs) bytes += s.size;
  }
  return bytes;
}

describe('segmented lowdb storage', () => {
  it('splits a collection into bounded segments and loads them back in order', async () => {
    const { store, dir } = await fresh(100);
    for (let seq = 1; seq <= 950; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const segments = (await readdir(path.join(dir, 'recipients'))).sort();
    expect(segments).toHaveLength(10);
    for (const file of segments) {
      const data = JSON.parse(await readFile(path.join(dir, 'recipients', file), 'utf8')) as { records: unknown[] };
      expect(data.records.length).toBeLessThanOrEqual(100);
    }
    const reopened = await openStore({ dataDir: dir, segmentSize: 100 });
    expect(reopened.recipients.size).toBe(950);
    expect(reopened.recipients.all().map((r) => r.seq)).toEqual(Array.from({ length: 950 }, (_, i) => i + 1));
    expect(reopened.recipients.get(500)?.email).toBe('r500@example.com');
  });

  it('rewrites the same amount for one insert at 4x the data (no write grows with the store)', async () => {
    const { store, dir } = await fresh(100);
    // The same position inside a segment at 1k and at 4k records: only the store size differs.
    for (let seq = 1; seq < 1050; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const small = await bytesRewrittenByOneInsert(store, dir, 1050);
    for (let seq = 1051; seq < 4050; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const large = await bytesRewrittenByOneInsert(store, dir, 4050);
    expect(small).toBeGreaterThan(0);
    expect(large / small).toBeLessThan(1.5);
  });

  it('groups concurrent changes into one write per file', async () => {
    const { store, dir } = await fresh(1000);
    const flushes: Promise<void>[] = [];
    for (let seq = 1; seq <= 200; seq++) {
      store.recipients.insert(recipient(seq));
      flushes.push(store.flush());
    }
    await Promise.all(flushes);
    // Every promise resolved only after its record was on disk.
    const data = JSON.parse(await readFile(path.join(dir, 'recipients', '000000.json'), 'utf8')) as { records: unknown[] };
    expect(data.records).toHaveLength(200);
  });

  it('keeps counters at least as high as what the segments hold', async () => {
    const { store, dir } = await fresh(100);
    store.recipients.insert(recipient(41));
    await store.flush();
    // meta.json was never written: the counter still may not reuse 41.
    const reopened = await openStore({ dataDir: dir, segmentSize: 100 });
    expect(reopened.meta.counters.recipient).toBe(41);
  });

  it('removes a record from its segment and drops empty segments on load', async () => {
    const { store, dir } = await fresh(10);
    for (let seq = 1; seq <= 15; seq++) store.recipients.insert(recipient(seq));
    for (let seq = 10; seq <= 15; seq++) store.recipients.remove(seq);
    await store.flush();
    expect(store.recipients.all().map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const reopened = await openStore({ dataDir: dir, segmentSize: 10 });
    expect(reopened.recipients.size).toBe(9);
    expect(await readdir(path.join(dir, 'recipients'))).toEqual(['000000.json']);
  });
});
