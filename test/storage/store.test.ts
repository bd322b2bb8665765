import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { JSONFile } from 'lowdb/node';
import { describe, expect } from 'vitest';
import { StorageError } from '../../server/storage/errors.ts';
import { nodeFs, type Fs } from '../../server/storage/disk/fs.ts';
import type { RecipientRecord } from '../../server/storage/records.ts';
import type { OpenStore } from '../../server/storage/open-store.ts';
import { test as it } from '../support/fixtures.ts';

it.override('storeOptions', { segmentSize: 100 });

function recipient(seq: number): RecipientRecord {
  const at = new Date(0).toISOString();
  return {
    seq,
    sqid: `s${seq}`,
    team: 't',
    email: `r${seq}@example.com`,
    firstName: 'A name of some length',
    lastName: '',
    flags: ['x'],
    hasBeenSentEmail: false,
    createdAt: at,
    updatedAt: at,
  };
}

/** The recipients' sequence numbers, oldest first. */
const recipientSeqs = (store: OpenStore) =>
  store.recipients
    .list({}, 0, Number.MAX_SAFE_INTEGER)
    .items.map((r) => r.seq)
    .reverse();

const recipientFiles = async (dir: string) => (await readdir(path.join(dir, 'recipients'))).sort();

/** An Fs that counts the writes made through it. */
function countingFs(): { fs: Fs; writes: () => number } {
  let writes = 0;
  const fs: Fs = {
    ...nodeFs,
    writeAt: (handle, buffers, position) => {
      writes++;
      return nodeFs.writeAt(handle, buffers, position);
    },
  };
  return { fs, writes: () => writes };
}

describe('segment logs (lowdb JSON documents, one record per line)', () => {
  it('splits a collection into bounded segments that lowdb itself reads, and loads them back in order', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    for (let seq = 1; seq <= 950; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const segments = await recipientFiles(dir);
    expect(segments).toHaveLength(10);
    for (const file of segments) {
      // Every completed write leaves a valid lowdb document.
      const data = await new JSONFile<{ records: RecipientRecord[] }>(path.join(dir, 'recipients', file)).read();
      expect(data!.records.length).toBeLessThanOrEqual(100);
    }
    await store.close();
    const reopened = await stores.open({ dataDir: dir });
    expect(reopened.recipients.size).toBe(950);
    expect(recipientSeqs(reopened)).toEqual(Array.from({ length: 950 }, (_, i) => i + 1));
    expect(reopened.recipients.get(500)?.email).toBe('r500@example.com');
  });

  it('appends a change instead of rewriting: the bytes written per insert do not grow with the store', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 100_000 });
    const dir = store.dataDir;
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    const growthOfOneInsert = async (seq: number) => {
      const before = (await stat(file)).size;
      store.recipients.insert(recipient(seq));
      await store.flush();
      return (await stat(file)).size - before;
    };
    for (let seq = 1; seq < 1000; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const small = await growthOfOneInsert(1000);
    for (let seq = 1001; seq < 4000; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const large = await growthOfOneInsert(4000);
    // One record's line, whatever the segment already holds.
    expect(small).toBe(JSON.stringify(recipient(1000)).length + 2);
    expect(large).toBe(small);
  });

  it('groups concurrent changes into one write per file (group commit)', async ({ stores }) => {
    const counting = countingFs();
    const store = await stores.open({ fs: counting.fs, segmentSize: 1000 });
    const dir = store.dataDir;
    await store.flush();
    const before = counting.writes();
    const flushes: Promise<void>[] = [];
    for (let seq = 1; seq <= 200; seq++) {
      store.recipients.insert(recipient(seq));
      flushes.push(store.flush());
    }
    await Promise.all(flushes);
    // The first flush takes record 1; the 199 that came while it was written share the next.
    expect(counting.writes() - before).toBeLessThanOrEqual(2);
    const data = JSON.parse(await readFile(path.join(dir, 'recipients', 'seg-000000.json'), 'utf8')) as { records: unknown[] };
    expect(data.records).toHaveLength(200);
  });

  it('writes a record as it is when the write starts, so changes made in place after insert are kept', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    const record = recipient(1);
    store.recipients.insert(record);
    record.firstName = 'Ada';
    record.flags.push('vip');
    store.recipients.touch(record);
    await store.flush();
    await store.close();
    expect((await stores.open({ dataDir: dir })).recipients.get(1)).toMatchObject({ firstName: 'Ada', flags: ['x', 'vip'] });
  });

  it('reads several records at once as it reads each: on disk, queued, changed since, deleted, in two segments', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 20 });
    for (let seq = 1; seq <= 30; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    // A later version of 5 (its line now after the others), 7 deleted, 31 queued and not written.
    const changed = store.recipients.get(5)!;
    changed.firstName = 'Changed';
    store.recipients.touch(changed);
    store.recipients.remove(7);
    await store.flush();
    store.recipients.insert(recipient(31));
    const seqs = [3, 4, 5, 6, 7, 8, 19, 20, 21, 31, 99];
    const one = await Promise.all(seqs.map((seq) => store.recipients.storage.read(seq)));
    expect(await store.recipients.storage.readMany(seqs)).toEqual(one);
    expect(one.map((r) => r?.firstName)).toEqual([
      'A name of some length',
      'A name of some length',
      'Changed',
      'A name of some length',
      undefined,
      'A name of some length',
      'A name of some length',
      'A name of some length',
      'A name of some length',
      'A name of some length',
      undefined,
    ]);
  });

  it('keeps counters at least as high as any line names, tombstones included', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    store.recipients.insert(recipient(41));
    store.recipients.insert(recipient(42));
    await store.flush();
    store.recipients.remove(42);
    await store.flush();
    // meta.json was never written: the counter still may not hand out 42 again.
    const reopened = await stores.open({ dataDir: dir });
    expect(reopened.ids.next('recipient')).toBe(43);
  });

  it('replaces a changed record (the last line wins), deletes with tombstones, and rewrites a segment once its dead lines outnumber the live ones', async ({
    stores,
  }) => {
    const store = await stores.open({ segmentSize: 1000 });
    const dir = store.dataDir;
    for (let seq = 1; seq <= 10; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    for (let round = 0; round < 20; round++) {
      for (let seq = 1; seq <= 10; seq++) {
        const r = store.recipients.get(seq)!;
        r.firstName = `round ${round}`;
        store.recipients.touch(r);
      }
      await store.flush();
    }
    store.recipients.remove(3);
    await store.flush();
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    const lines = (await readFile(file, 'utf8')).split('\n').length;
    expect(lines).toBeGreaterThan(200);
    expect(store.recipients.storage.compactionCandidates()).toEqual([0]);
    await store.exclusive(() => store.recipients.storage.compact(0));
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(9 + 2);
    // Appends after the rewrite land after whole lines.
    store.recipients.insert(recipient(11));
    await store.flush();
    await store.close();
    const reopened = await stores.open({ dataDir: dir, segmentSize: 1000 });
    const kept = reopened.recipients.list({}, 0, 100).items.reverse();
    expect(kept.map((r) => [r.seq, r.firstName])).toEqual([...[1, 2, 4, 5, 6, 7, 8, 9, 10].map((seq) => [seq, 'round 19']), [11, 'A name of some length']]);
  });

  it('does not rewrite a segment emptied from its oldest end (it goes whole once empty), but counts its superseded lines', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 1000 });
    for (let seq = 1; seq <= 300; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    // The oldest 200 deleted, as retention deletes: 400 dead lines against 100 live ones.
    for (let seq = 1; seq <= 200; seq++) store.recipients.remove(seq);
    await store.flush();
    expect(store.recipients.storage.compactionCandidates()).toEqual([]);
    // The live ones changed twice each: 200 superseded lines, more than the 100 live.
    for (let round = 0; round < 2; round++) {
      for (let seq = 201; seq <= 300; seq++) {
        const r = store.recipients.get(seq)!;
        r.firstName = `round ${round}`;
        store.recipients.touch(r);
      }
      await store.flush();
    }
    expect(store.recipients.storage.compactionCandidates()).toEqual([0]);
  });

  it('deletes a segment file once nothing in it is live', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 10 });
    const dir = store.dataDir;
    // As the domain does: each new record takes the next id (meta.json is written lazily).
    for (let i = 1; i <= 15; i++) store.recipients.insert(recipient(store.ids.next('recipient')));
    await store.flush();
    expect(await recipientFiles(dir)).toEqual(['seg-000000.json', 'seg-000001.json']);
    for (let seq = 10; seq <= 15; seq++) store.recipients.remove(seq);
    await store.flush();
    expect(recipientSeqs(store)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await recipientFiles(dir)).toEqual(['seg-000000.json']);
    await store.close();
    const reopened = await stores.open({ dataDir: dir, segmentSize: 10 });
    expect(reopened.recipients.size).toBe(9);
    // The deleted segment held the highest ids: meta.json, written before the file went,
    // keeps them from coming back.
    expect(reopened.ids.next('recipient')).toBe(16);
  });

  it('writes the lazy counters before a deletion that unlinks a file, not with every tombstone', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 10 });
    const dir = store.dataDir;
    for (let seq = 1; seq <= 15; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const onDisk = async () => JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')).counters.message;
    expect(await onDisk()).toBe(0);
    // The captures' id counter is written lazily (start-up also takes it from the segments).
    for (let i = 0; i < 4; i++) store.captures.nextSeq();
    for (let seq = 16; seq <= 19; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    // A tombstone in a segment that still holds live lines: the file names the ids it held.
    store.recipients.remove(12);
    await store.flush();
    expect(await onDisk()).toBe(0);
    // These empty the segment, which is unlinked: the counters go first.
    for (const seq of [10, 11, 13, 14, 15, 16, 17, 18, 19]) store.recipients.remove(seq);
    await store.flush();
    expect(await recipientFiles(dir)).toEqual(['seg-000000.json']);
    expect(await onDisk()).toBe(4);
  });

  it('hands out recipient ids without writing meta.json, and saves the counters before a compaction takes tombstones away', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 1000 });
    const dir = store.dataDir;
    await store.flush();
    const onDisk = async () => JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')).counters.recipient;
    const before = await onDisk();
    expect(before).toBe(0);
    for (let i = 1; i <= 100; i++) store.recipients.insert(recipient(store.ids.next('recipient')));
    await store.flush();
    // A send to a new recipient costs no meta.json write: the segment names every id it holds.
    expect(await onDisk()).toBe(before);
    for (let seq = 30; seq <= 100; seq++) store.recipients.remove(seq);
    await store.flush();
    expect(await onDisk()).toBe(before);
    expect(store.recipients.storage.compactionCandidates()).toEqual([0]);
    // The rewrite drops the tombstones of ids 30-100, the only mention of the highest ones.
    await store.captures.compact();
    expect(store.recipients.storage.compactionCandidates()).toEqual([]);
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(29 + 2);
    expect(await onDisk()).toBe(100);
  });

  it('sets a damaged line aside in damaged/, loads the rest, and rewrites the segment clean', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    for (let seq = 1; seq <= 5; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    await store.close();
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace('"r3@example.com"', '"r3@exa'));
    const lines: string[] = [];
    const reopened = await stores.open({ dataDir: dir, log: (line) => lines.push(line) });
    expect(recipientSeqs(reopened)).toEqual([1, 2, 4, 5]);
    expect(reopened.damage).toMatchObject([{ file: path.join('recipients', 'seg-000000.json'), records: 1 }]);
    expect(lines.join('\n')).toMatch(
      /seg-000000\.json: damaged lines that do not parse, 1 record could not be read; the damaged bytes were moved to .*damaged.*delete that file/,
    );
    const kept = await readdir(path.join(dir, 'damaged'));
    expect(kept).toHaveLength(1);
    expect(await readFile(path.join(dir, 'damaged', kept[0]!), 'utf8')).toContain('"r3@exa');
    expect(await new JSONFile(file).read()).toMatchObject({ records: expect.any(Array) });
  });

  it('a last version that does not parse is set aside, and the version before it is the record', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    for (let seq = 1; seq <= 3; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    const changed = store.recipients.get(2)!;
    changed.firstName = 'Changed';
    store.recipients.touch(changed);
    await store.flush();
    await store.close();
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    // Damaged after its sequence number, which still reads.
    await writeFile(file, (await readFile(file, 'utf8')).replace('"firstName":"Changed"', '"firstName":"Cha'));
    const reopened = await stores.open({ dataDir: dir });
    expect(
      reopened.recipients
        .list({}, 0, 100)
        .items.reverse()
        .map((r) => [r.seq, r.firstName]),
    ).toEqual([
      [1, 'A name of some length'],
      [2, 'A name of some length'],
      [3, 'A name of some length'],
    ]);
    expect(reopened.damage).toMatchObject([{ file: path.join('recipients', 'seg-000000.json'), records: 1 }]);
    expect(await readFile(path.join(dir, 'damaged', (await readdir(path.join(dir, 'damaged')))[0]!), 'utf8')).toContain('"firstName":"Cha');
  });

  it('a segment cut in half loses only the records past the cut, and start-up goes on', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    for (let seq = 1; seq <= 40; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    await store.close();
    const file = path.join(dir, 'recipients', 'seg-000000.json');
    const bytes = await readFile(file);
    await writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const reopened = await stores.open({ dataDir: dir });
    const kept = recipientSeqs(reopened);
    expect(kept.length).toBeGreaterThan(15);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => i + 1));
    // Appending after the cut works, and the file reads whole again.
    reopened.recipients.insert(recipient(100));
    await reopened.flush();
    await reopened.close();
    expect((await stores.open({ dataDir: dir })).recipients.get(100)?.email).toBe('r100@example.com');
  });
});

describe('the unit of work (Store.update)', () => {
  /** An Fs whose writes fail with ENOSPC (a full disk) while `full` is set. */
  function fillableFs(): { fs: Fs; full: { on: boolean } } {
    const full = { on: false };
    const fs: Fs = {
      ...nodeFs,
      writeAt: (handle, buffers, position) =>
        full.on ? Promise.reject(Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' })) : nodeFs.writeAt(handle, buffers, position),
    };
    return { fs, full };
  }

  it('applies the change, resolves with its result once it is on disk, and shares one group commit between concurrent updates', async ({ stores }) => {
    const counting = countingFs();
    const store = await stores.open({ fs: counting.fs, segmentSize: 1000 });
    const dir = store.dataDir;
    await store.flush();
    const before = counting.writes();
    const insert = (seq: number) => () => {
      store.recipients.insert(recipient(seq));
      return seq;
    };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.update(insert(i + 1))));
    expect(results).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(counting.writes() - before).toBeLessThanOrEqual(2);
    await store.close();
    expect(recipientSeqs(await stores.open({ dataDir: dir }))).toHaveLength(50);
  });

  it('a write that fails rejects with the StorageError after undo, and the change is never reported saved nor written', async ({ stores }) => {
    const { fs, full } = fillableFs();
    const store = await stores.open({ fs });
    const dir = store.dataDir;
    await store.update(() => store.recipients.insert(recipient(1)));
    const record = store.recipients.get(1)!;
    full.on = true;
    let saved = false;
    let undone = 0;
    const update = store.update(
      () => {
        record.firstName = 'Changed';
        store.recipients.touch(record);
      },
      {
        undo: () => {
          undone++;
          record.firstName = 'A name of some length';
          store.recipients.touch(record);
        },
      },
    );
    void update.then(() => (saved = true)).catch(() => undefined);
    const error = await update.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).problem).toBe('full');
    expect(undone).toBe(1);
    expect(saved).toBe(false);
    // A change that throws writes nothing, and its undo puts back what it did before it threw
    // (a send's daily count, reserved before a later step refused it).
    full.on = false;
    let applied = 0;
    await expect(
      store.update(
        () => {
          applied++;
          throw new Error('refused');
        },
        { undo: () => applied-- },
      ),
    ).rejects.toThrow('refused');
    expect(applied).toBe(0);
    await store.close();
    expect((await stores.open({ dataDir: dir })).recipients.get(1)).toMatchObject({ firstName: 'A name of some length' });
  });
});

describe('segment size (recorded in meta.json)', () => {
  const readMeta = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')) as Record<string, unknown>;
  const insertRange = async (store: OpenStore, from: number, to: number) => {
    for (let seq = from; seq <= to; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
  };
  const seqs = (store: OpenStore) =>
    store.recipients
      .list({}, 0, 100_000)
      .items.reverse()
      .map((r) => r.seq);
  const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
  /** The recipients' segment files (a stop also writes their checkpoints beside them). */
  const segmentFiles = async (dir: string) => (await recipientFiles(dir)).filter((name) => name.endsWith('.json'));

  it('a new store uses 8,192 sequence numbers per file by default and records it', async ({ stores }) => {
    const store = await stores.open({ segmentSize: undefined });
    const dir = store.dataDir;
    await insertRange(store, 1, 8200);
    expect(await segmentFiles(dir)).toEqual(['seg-000000.json', 'seg-000001.json']);
    expect((await readMeta(dir)).segmentSize).toBe(8192);
  });

  it('a store keeps the size it was made with across restarts, whatever a later start asks for', async ({ stores }) => {
    const store = await stores.open({ segmentSize: 10 });
    const dir = store.dataDir;
    await insertRange(store, 1, 25);
    await store.close();
    expect((await readMeta(dir)).segmentSize).toBe(10);

    const again = await stores.open({ dataDir: dir, segmentSize: 100 });
    expect(seqs(again)).toEqual(range(1, 25));
    await insertRange(again, 26, 35);
    await again.close();
    expect(await segmentFiles(dir)).toEqual(['seg-000000.json', 'seg-000001.json', 'seg-000002.json', 'seg-000003.json']);
    expect((await readMeta(dir)).segmentSize).toBe(10);
    const third = await stores.open({ dataDir: dir, segmentSize: undefined });
    expect(seqs(third)).toEqual(range(1, 35));
    expect(third.damage).toEqual([]);
  });

  it('a data directory written with 1,024 per file and no recorded size opens with every record and keeps its layout', async ({ stores }) => {
    // What the previous version wrote: segments of 1,024, meta.json without a size.
    const old = await stores.open({ segmentSize: 1024 });
    const dir = old.dataDir;
    await insertRange(old, 1, 2100);
    await old.close();
    const { segmentSize: _recorded, ...meta } = await readMeta(dir);
    await writeFile(path.join(dir, 'meta.json'), JSON.stringify(meta));
    expect(await segmentFiles(dir)).toEqual(['seg-000000.json', 'seg-000001.json', 'seg-000002.json']);

    const store = await stores.open({ dataDir: dir, segmentSize: undefined });
    expect(seqs(store)).toEqual(range(1, 2100));
    expect(store.recipients.get(1500)?.email).toBe('r1500@example.com');
    expect(store.damage).toEqual([]);
    await insertRange(store, 2101, 3100);
    await store.close();
    expect(await segmentFiles(dir)).toEqual(['seg-000000.json', 'seg-000001.json', 'seg-000002.json', 'seg-000003.json']);
    expect((await readMeta(dir)).segmentSize).toBe(1024);
    const again = await stores.open({ dataDir: dir, segmentSize: undefined });
    expect(seqs(again)).toEqual(range(1, 3100));
  });

  it('without meta.json (lost, or set aside as damaged) the size is read from the segment files', async ({ stores }) => {
    for (const made of [1024, 8192]) {
      const store = await stores.open({ segmentSize: made });
      const dir = store.dataDir;
      await insertRange(store, 1, made + 10);
      await store.close();
      await rm(path.join(dir, 'meta.json'));
      const again = await stores.open({ dataDir: dir, segmentSize: undefined });
      expect(seqs(again), `made with ${made}`).toEqual(range(1, made + 10));
      expect(again.damage).toEqual([]);
      await again.flush();
      expect((await readMeta(dir)).segmentSize).toBe(made);
    }
  });
});
