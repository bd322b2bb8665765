import { cp, mkdtemp, readdir, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs, type Fs } from '../../server/storage/disk/fs.ts';
import { ImageSection, openImage, writeImage } from '../../server/storage/disk/image-file.ts';
import { IMAGE_FILE, saveStartImage } from '../../server/storage/start-image.ts';
import type { RecipientStore } from '../../server/storage/indexes/recipient-store.ts';
import { openStore } from '../../server/storage/open-store.ts';
import { api, type TestServer } from '../support/app.ts';
import { type Apps, test as it } from '../support/fixtures.ts';
import { answer, filled, inbox, send } from '../support/inbox-state.ts';

/**
 * docs/storage.md, "The start-up image (after a clean stop)": a clean stop writes the captures' and recipients'
 * indexes whole (index.img), and the next start takes them from it, reading no checkpoint and no
 * segment file, and removes it. An image that does not describe the files as they are, that is
 * damaged, or that this build cannot take in is ignored: the start reads the checkpoints, and
 * shows the same inbox.
 */

const STORE = { segmentSize: 8, reserveSize: 0 };

/** A file system that counts whole-file reads and opens of checkpoints and segment files of the two indexed folders. */
function countingFs(): { fs: Fs; reads: () => number } {
  let reads = 0;
  const indexed = /(messages|recipients)[/\\]seg-\d+\.(json|idx)$/;
  const fs: Fs = {
    ...nodeFs,
    readFile: (file) => {
      if (indexed.test(file)) reads++;
      return nodeFs.readFile(file);
    },
    open: (file, flags) => {
      if (file.endsWith('.idx') && indexed.test(file)) reads++;
      return nodeFs.open(file, flags);
    },
  };
  return { fs, reads: () => reads };
}

/** More than `filled`: recipients with names and flags, one blocked, and captures in namespaces. */
async function fuller(server: TestServer): Promise<void> {
  await filled(server);
  const v1 = api(server.url, 'bulk-key');
  // A new recipient (201), and one the sends made, changed (200).
  expect((await v1.post('/v1/recipients/', { email: 'flagged@example.com', first_name: 'Flo', flags: 'vip,beta' })).status).toBe(201);
  expect((await v1.post('/v1/recipients/', { email: 'cp7@example.com', last_name: 'Seven', flags: 'vip' })).status).toBe(200);
  for (const tag of ['alpha', 'beta', 'alpha']) {
    expect((await v1.post('/v1/email/send/', { recipient: `ns+${tag}@example.com`, subject: `In ${tag}`, body: `<p>${tag}</p>` })).status).toBe(200);
  }
}

/** What the namespaces and flags show, beside `inbox`. */
async function more(server: TestServer): Promise<unknown> {
  const get = (url: string) => answer(server, url, { Authorization: 'Api-Key bulk-key' });
  return {
    alpha: await get('/api/messages?namespace=alpha'),
    vip: await get('/v1/recipients/?flag=vip'),
    beta: await get('/v1/recipients/?flag=beta'),
    q: await get('/api/recipients?q=flo'),
  };
}

/** A store `fuller` filled, stopped cleanly: its folder, its image, and what it showed. */
async function stoppedStore(apps: Apps): Promise<{ dataDir: string; file: string; before: unknown }> {
  const first = await apps.start({ store: STORE });
  await fuller(first);
  const before = { inbox: await inbox(first), more: await more(first) };
  await first.close();
  return { dataDir: first.dataDir, file: path.join(first.dataDir, IMAGE_FILE), before };
}

const exists = async (file: string) => (await readFile(file).catch(() => null)) !== null;

describe('the start-up image', () => {
  it('a clean stop writes it; the next start reads no checkpoint or segment, removes it, and shows the same as the checkpoints do', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    await fuller(first);
    const before = { inbox: await inbox(first), more: await more(first), packs: first.store.packs.liveBytes() };
    const dataDir = first.dataDir;
    await first.close();
    expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(true);
    const copy = await mkdtemp(path.join(tmpdir(), 'pigeonhole-image-'));
    await cp(dataDir, copy, { recursive: true });
    await rm(path.join(copy, IMAGE_FILE));

    const counting = countingFs();
    const again = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs } });
    expect(counting.reads()).toBe(0);
    expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(false);
    expect({ inbox: await inbox(again), more: await more(again), packs: again.store.packs.liveBytes() }).toEqual(before);
    // The same store taken from its checkpoints agrees, down to the packs' live bytes.
    const fromCheckpoints = await apps.start({ dataDir: copy, store: STORE });
    expect({ inbox: await inbox(fromCheckpoints), more: await more(fromCheckpoints), packs: fromCheckpoints.store.packs.liveBytes() }).toEqual(before);
    await fromCheckpoints.destroy();

    // It goes on as any store: new captures and recipients, a deletion, a read mark; then again.
    await send(again, 100);
    await send(again, 101);
    const messages = again.sandbox.messages;
    const listed = (before.inbox as { all: { messages: { id: string }[] } }).all.messages;
    await messages.remove([(await messages.get(listed[0]!.id))!.seq]);
    await messages.setRead((await messages.get(listed[1]!.id))!, true);
    const after = { inbox: await inbox(again), more: await more(again) };
    expect(after).not.toEqual({ inbox: before.inbox, more: before.more });
    await again.close();
    const third = await apps.start({ dataDir, store: { ...STORE, fs: countingFs().fs } });
    expect({ inbox: await inbox(third), more: await more(third) }).toEqual(after);
    expect((await fetch(`${third.url}/api/messages/${listed[2]!.id}/html`)).status).toBe(200);
  });

  it('an image older than the files (a change made after it) is not used: the changes are all there', async ({ apps }) => {
    const first = await apps.start({ store: STORE });
    await fuller(first);
    const dataDir = first.dataDir;
    await first.close();
    const old = await readFile(path.join(dataDir, IMAGE_FILE));
    const second = await apps.start({ dataDir, store: STORE });
    await send(second, 60);
    await second.sandbox.messages.remove([second.store.messages.index.seq(0)]);
    const after = { inbox: await inbox(second), more: await more(second) };
    await second.close();
    // The image of the first stop put back, as if the second had never written its own.
    await writeFile(path.join(dataDir, IMAGE_FILE), old);
    const counting = countingFs();
    const third = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs } });
    expect(counting.reads()).toBeGreaterThan(0);
    expect({ inbox: await inbox(third), more: await more(third) }).toEqual(after);
    expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(false);
  });

  it('a damaged, cut short or half-written image is ignored and removed', async ({ apps }) => {
    const { dataDir, file, before } = await stoppedStore(apps);
    const bytes = await readFile(file);
    for (const damage of ['flipped', 'cut', 'room', 'tmp'] as const) {
      if (damage === 'room') {
        // A header damaged before its checksum can be taken: an array's room too large to make.
        const length = bytes.readUInt32LE(5);
        const header = JSON.parse(bytes.toString('utf8', 9, 9 + length));
        header.sections.captures.arrays[0][2] = 2 ** 50;
        const json = Buffer.from(JSON.stringify(header));
        const head = Buffer.from(bytes.subarray(0, 9));
        head.writeUInt32LE(json.length, 5);
        await writeFile(file, Buffer.concat([head, json, bytes.subarray(9 + length)]));
      } else if (damage === 'flipped') {
        const flipped = Buffer.from(bytes);
        flipped[flipped.length - 100]! ^= 0xff;
        await writeFile(file, flipped);
      } else if (damage === 'cut') {
        await writeFile(file, bytes);
        await truncate(file, Math.floor(bytes.length / 2));
      } else {
        // What a stop killed in the middle of writing it leaves (the last start removed the one before).
        await rm(file);
        await writeFile(`${file}.tmp`, bytes.subarray(0, 200));
      }
      const counting = countingFs();
      const again = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs } });
      expect(counting.reads()).toBeGreaterThan(0);
      expect({ inbox: await inbox(again), more: await more(again) }).toEqual(before);
      expect((await readdir(dataDir)).filter((name) => name.startsWith(IMAGE_FILE))).toEqual([]);
      await again.close();
    }
  });

  it('an image this build cannot take in (another version wrote it) is ignored with a log line, and the start reads the checkpoints', async ({ apps }) => {
    const { dataDir, file, before } = await stoppedStore(apps);
    const image = await openImage(nodeFs, file);
    const sections = (await image!.read())!;
    // The captures' values as another version might lay them out: the files all match, the rows do not read.
    const { parts: _parts, ...other } = sections.captures!.values;
    const captures = Object.assign(new ImageSection(other), { arrays: sections.captures!.arrays, rooms: sections.captures!.rooms });
    await writeImage(nodeFs, file, { ...sections, captures });
    const lines: string[] = [];
    const again = await apps.start({ dataDir, store: { ...STORE, log: (line) => lines.push(line) } });
    expect(lines).toContainEqual(expect.stringMatching(/^pigeonhole: the start-up image could not be used \(.+\); reading the checkpoints instead$/));
    expect({ inbox: await inbox(again), more: await more(again) }).toEqual(before);
    // This stop writes one this build takes in.
    await again.close();
    const counting = countingFs();
    const third = await apps.start({ dataDir, store: { ...STORE, fs: counting.fs } });
    expect(counting.reads()).toBe(0);
    expect({ inbox: await inbox(third), more: await more(third) }).toEqual(before);
  });

  it('is not written while a change waits to be written, nor with startImage off', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-image-'));
    try {
      const store = await openStore({ dataDir, ...STORE });
      const { messages, packs } = store;
      const recipients = store.recipients as RecipientStore;
      const at = new Date(0).toISOString();
      recipients.insert({
        seq: 1,
        sqid: 'r1',
        team: 'acme',
        email: 'a@example.com',
        firstName: '',
        lastName: '',
        flags: [],
        hasBeenSentEmail: false,
        createdAt: at,
        updatedAt: at,
      });
      const parts = { dataDir, fs: nodeFs, segmentSize: 8, packs, index: messages.index, messageLog: messages.log, recipients };
      expect(await saveStartImage(parts)).toBe(false);
      expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(false);
      await store.flush();
      expect(await saveStartImage(parts)).toBe(true);
      expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(true);
      await store.close();
      const off = await openStore({ dataDir, ...STORE, startImage: false });
      // Off: the image there is neither used nor removed, and none is written at the stop.
      expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(true);
      await rm(path.join(dataDir, IMAGE_FILE));
      await off.close();
      expect(await exists(path.join(dataDir, IMAGE_FILE))).toBe(false);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
