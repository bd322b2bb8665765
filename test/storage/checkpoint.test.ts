import { appendFile, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs, type Fs } from '../../server/storage/disk/fs.ts';
import { api, type TestServer } from '../support/app.ts';
import { answer, filled, inbox, send } from '../support/inbox-state.ts';
import { test as it } from '../support/fixtures.ts';

/**
 * docs/storage.md, "Start-up": a clean stop leaves a checkpoint beside every segment file, and
 * the next start takes the captures from them instead of reading every line; a checkpoint that
 * is missing, old or damaged is ignored with a log line and the file is read as before. Never a
 * reason not to start, never a lost or changed capture.
 */

/** Small segments, so a few dozen captures make many files; no start-up image (start-image.test.ts), so that starts read the checkpoints. */
const STORE = { segmentSize: 8, reserveSize: 0, startImage: false };

/** A file system that counts reads of whole segment files (what a checkpoint saves). */
function countingFs(): { fs: Fs; segmentReads: () => number } {
  let reads = 0;
  const fs: Fs = {
    ...nodeFs,
    readFile: (file) => {
      if (/(messages|recipients)[/\\]seg-\d+\.json$/.test(file)) reads++;
      return nodeFs.readFile(file);
    },
  };
  return { fs, segmentReads: () => reads };
}

/** The files of a kind in messages/ and recipients/, as `folder/name`. */
async function filesEnding(dataDir: string, suffix: string): Promise<string[]> {
  const out: string[] = [];
  for (const folder of ['messages', 'recipients']) {
    for (const name of await readdir(path.join(dataDir, folder))) if (name.endsWith(suffix)) out.push(`${folder}/${name}`);
  }
  return out.sort();
}
const checkpoints = (dataDir: string) => filesEnding(dataDir, '.idx');
const segments = (dataDir: string) => filesEnding(dataDir, '.json');

describe('checkpoints of the message index', () => {
  it('a clean stop checkpoints every segment; the next start reads none of them and shows the same inbox', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    await filled(first);
    const before = await inbox(first);
    const dataDir = first.dataDir;
    await first.close();
    expect(await checkpoints(dataDir)).toEqual((await segments(dataDir)).map((name) => name.replace('.json', '.idx')));
    expect((await segments(dataDir)).length).toBeGreaterThan(3);

    const lines: string[] = [];
    const counting = countingFs();
    const again = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs, log: (line) => lines.push(line) } });
    expect(counting.segmentReads()).toBe(0);
    expect(lines.filter((line) => line.includes('loaded captures and recipients'))).toEqual([]);
    expect(await inbox(again)).toEqual(before);
    // Bodies read back, and sends go on with new ids.
    const listed = (before as { all: { messages: { id: string }[] } }).all.messages;
    expect((await fetch(`${again.url}/api/messages/${listed[1]!.id}/html`)).status).toBe(200);
    const next = await send(again, 99);
    expect(listed.map((m) => m.id)).not.toContain(next);
  });

  it('without checkpoints (removed), start-up reads every file, says so, and shows the same inbox', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    await filled(first);
    const before = await inbox(first);
    const dataDir = first.dataDir;
    await first.close();
    const names = await checkpoints(dataDir);
    for (const name of names) await rm(path.join(dataDir, name));
    await rm(path.join(dataDir, 'packs', 'packs.idx'), { force: true });
    const lines: string[] = [];
    const again = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines.push(line) } });
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^pigeonhole: loaded captures and recipients in \\d+ ms: 0 segment files from their checkpoint, ${names.length} read in full \\(${names.length} without one\\)`,
        ),
      ),
    );
    expect(await inbox(again)).toEqual(before);
  });

  it('a damaged or torn checkpoint is ignored with a log line, and a stop in the middle of writing one leaves nothing behind', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    await filled(first);
    const before = await inbox(first);
    const dataDir = first.dataDir;
    await first.close();
    const [one, two] = await checkpoints(dataDir);
    // A flipped byte, and a file cut short (a power loss after the rename, without --fsync).
    const damaged = path.join(dataDir, one!);
    const bytes = await readFile(damaged);
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    await writeFile(damaged, bytes);
    const torn = path.join(dataDir, two!);
    await truncate(torn, Math.floor((await readFile(torn)).length / 3));
    // What SIGKILL during a checkpoint's write leaves: its temporary file, half written.
    await writeFile(path.join(dataDir, 'messages', 'seg-000001.idx.tmp'), bytes.subarray(0, 100));
    await writeFile(path.join(dataDir, 'packs', 'packs.idx.tmp'), bytes.subarray(0, 10));
    const lines: string[] = [];
    const again = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines.push(line) } });
    expect(lines).toContainEqual(expect.stringMatching(/, 2 read in full \(2 with a damaged one, ignored\)/));
    expect(await inbox(again)).toEqual(before);
    const left = await readdir(path.join(dataDir, 'messages'));
    expect(left.filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(await readdir(path.join(dataDir, 'packs'))).not.toContain('packs.idx.tmp');
    // The damaged ones are written again at the next stop.
    await again.close();
    const lines2: string[] = [];
    const third = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines2.push(line) } });
    expect(lines2.filter((line) => line.includes('loaded captures and recipients'))).toEqual([]);
    expect(await inbox(third)).toEqual(before);
  });

  it('a checkpoint older than its segment (changed after it was taken) is ignored: the changes made since are all there', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    const ids = await filled(first);
    const dataDir = first.dataDir;
    await first.close();
    const saved = new Map<string, Buffer>();
    for (const name of await checkpoints(dataDir)) saved.set(name, await readFile(path.join(dataDir, name)));

    const second = await apps.start({ dataDir, store: STORE });
    // A read mark and a deletion in old segments, and new captures in the last one.
    const messages = second.sandbox.messages;
    await messages.setRead((await messages.get(ids[0]!))!, true);
    await messages.remove([(await messages.get(ids[9]!))!.seq]);
    await send(second, 50);
    await send(second, 51);
    const after = await inbox(second);
    await second.close();
    // Put the old checkpoints back, as a crash before the new ones were written would leave them.
    for (const [name, bytes] of saved) await writeFile(path.join(dataDir, name), bytes);

    const lines: string[] = [];
    const third = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines.push(line) } });
    expect(lines).toContainEqual(expect.stringMatching(/read in full \((1 without one, )?\d+ changed after it\)/));
    expect(await inbox(third)).toEqual(after);
  });

  it('a capture whose bytes a power loss cut from its pack is still counted from a checkpoint (its parts read as damaged)', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    const ids = [await send(first, 1), await send(first, 2), await send(first, 3)];
    const last = (await first.sandbox.messages.get(ids[2]!))!;
    const dataDir = first.dataDir;
    await first.close();
    expect(await checkpoints(dataDir)).not.toEqual([]);
    const ref = last.content.html!;
    if (!('p' in ref)) throw new Error('expected a pack entry');
    const pack = path.join(dataDir, 'packs', `${String(ref.p).padStart(6, '0')}.pack`);
    await truncate(pack, ref.o);
    const lines: string[] = [];
    const again = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines.push(line) } });
    expect(lines).toContain(
      'pigeonhole: 1 capture points at bytes missing from the end of a pack (a write cut short by a power loss); their parts read as damaged',
    );
    expect((await fetch(`${again.url}/api/messages/${ids[2]}/html`)).status).toBe(410);
    expect((await fetch(`${again.url}/api/messages/${ids[0]}/html`)).status).toBe(200);
  });

  it('a clean stop names the pack being appended to: the next start does not scan it, unless it changed after', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    for (let i = 0; i < 5; i++) await send(first, i);
    const before = await inbox(first);
    const dataDir = first.dataDir;
    await first.close();
    const again = await apps.start({ dataDir, store: STORE });
    expect(again.store.packs.checkpointUse).toEqual({ restored: 1, scanned: 0 });
    expect(await inbox(again)).toEqual(before);
    await again.close();
    // Bytes after what the checkpoint named (a write cut short by a crash): scanned, and cut off.
    const pack = path.join(dataDir, 'packs', '000001.pack');
    const size = (await readFile(pack)).length;
    await appendFile(pack, Buffer.from('a torn entry'));
    const third = await apps.start({ dataDir, store: STORE });
    expect(third.store.packs.checkpointUse).toEqual({ restored: 0, scanned: 1 });
    expect((await readFile(pack)).length).toBe(size);
    expect(await inbox(third)).toEqual(before);
  });

  it('the background checkpoint covers segments that have been quiet, not the one being written', async ({ apps }) => {
    const first = await apps.start({ store: { ...STORE, checkpointIntervalMs: 3_600_000 } });
    for (let i = 0; i < 20; i++) await send(first, i);
    // Every segment changed just now: none is quiet yet, and store.checkpoint() (a stop's) takes all.
    expect(await first.store.checkpoint()).toBeGreaterThan(0);
    const all = await checkpoints(first.dataDir);
    expect(all).toEqual((await segments(first.dataDir)).map((name) => name.replace('.json', '.idx')));
    // Nothing changed since: nothing to write.
    expect(await first.store.checkpoint()).toBe(0);
    // One send changes one segment of captures, one of recipients and one of the /v1 request log,
    // and the pack it appended to (which store.checkpoint(), a stop's, names in packs.idx).
    await send(first, 20);
    expect(await first.store.checkpoint()).toBe(4);
  });
});

describe('checkpoints of the request log', () => {
  /** A file system that counts reads of the request log's whole segment files. */
  function countingRequestReads(): { fs: Fs; reads: () => number } {
    let reads = 0;
    const fs: Fs = {
      ...nodeFs,
      readFile: (file) => {
        if (/requests[/\\]seg-\d+\.json$/.test(file)) reads++;
        return nodeFs.readFile(file);
      },
    };
    return { fs, reads: () => reads };
  }
  const requestLog = async (server: TestServer) => {
    const get = (url: string) => answer(server, url);
    return {
      all: await get('/api/requests?limit=100'),
      refused: await get('/api/requests?status=401'),
      sends: await get('/api/requests?path=/v1/email/send/'),
    };
  };

  it('a clean stop checkpoints its segments; the next start parses none of their lines and lists the same requests', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    for (let i = 0; i < 20; i++) await send(first, i);
    expect((await api(first.url, 'no-such-key').post('/v1/email/send/', { recipient: 'x@example.com', subject: 'x', body: 'x' })).status).toBe(401);
    const before = await requestLog(first);
    expect((before.all as { total: number }).total).toBe(21);
    const dataDir = first.dataDir;
    await first.close();
    const names = (await readdir(path.join(dataDir, 'requests'))).sort();
    // 21 entries in segments of 8: three files, each with its checkpoint.
    expect(names.filter((name) => name.endsWith('.idx'))).toEqual(names.filter((name) => name.endsWith('.json')).map((name) => name.replace('.json', '.idx')));
    expect(names.filter((name) => name.endsWith('.idx'))).toHaveLength(3);

    const counting = countingRequestReads();
    const again = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs } });
    expect(counting.reads()).toBe(0);
    // The entries as listed are read from their lines (the checkpoint keeps only what the filters read).
    expect(await requestLog(again)).toEqual(before);
    await again.close();

    // A damaged checkpoint: its file is read in full instead, and the log is the same.
    const damaged = path.join(dataDir, 'requests', names.find((name) => name.endsWith('.idx'))!);
    const bytes = await readFile(damaged);
    bytes[10] = bytes[10]! ^ 0xff;
    await writeFile(damaged, bytes);
    const recounting = countingRequestReads();
    const third = await apps.start({ dataDir, store: { ...STORE, fs: recounting.fs } });
    expect(recounting.reads()).toBe(1);
    expect(await requestLog(third)).toEqual(before);
  });
});
