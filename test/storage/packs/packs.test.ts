import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, vi } from 'vitest';
import { decodeId } from '../../../server/domain/ids.ts';
import { DamagedContent } from '../../../server/storage/errors.ts';
import { nodeFs } from '../../../server/storage/disk/fs.ts';
import { ENTRY_HEADER } from '../../../server/storage/packs/pack-file.ts';
import { packUse } from '../../../server/storage/indexes/message-rows.ts';
import { PART } from '../../../server/storage/packs/pack-store.ts';
import { contentRefs } from '../../../server/storage/records.ts';
import { api, read, type TestServer } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';
import { capturedId, smtpClient } from '../../support/smtp.ts';

const packFiles = async (dataDir: string) => (await readdir(path.join(dataDir, 'packs'))).filter((f) => f.endsWith('.pack')).sort();

describe('pack files', () => {
  it('appends the parts of a batch in one file, each read back whole and checked', async ({ stores }) => {
    const store = await stores.open();
    const parts = Array.from({ length: 50 }, (_, i) => Buffer.from(`part ${i} `.repeat(i + 1)));
    const refs = parts.map((data, i) => store.packs.add(i + 1, PART.html, data));
    // Readable before the write (from memory) and after it (from the file).
    expect((await store.packs.read(refs[7]!, 8)).toString()).toBe(parts[7]!.toString());
    await store.flush();
    for (const [i, ref] of refs.entries()) expect((await store.packs.read(ref, i + 1)).equals(parts[i]!)).toBe(true);
    const size = (await stat(path.join(store.dataDir, 'packs', '000001.pack'))).size;
    expect(size).toBe(parts.reduce((n, p) => n + ENTRY_HEADER + p.length, 0));
    // An entry read as another capture's is refused.
    await expect(store.packs.read(refs[0]!, 2)).rejects.toThrow(/belongs to another capture/);
  });

  it('seals a pack at its size limit and starts the next', async ({ stores }) => {
    const store = await stores.open({ packSize: 4096 });
    for (let i = 1; i <= 20; i++) store.packs.add(i, PART.html, Buffer.alloc(1000, i));
    await store.flush();
    const files = await packFiles(store.dataDir);
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) expect((await stat(path.join(store.dataDir, 'packs', file))).size).toBeLessThanOrEqual(4096);
  });

  it('a part added while the last dead pack is being deleted lands in the next pack, not the deleted one', async ({ stores }) => {
    // The deletion of a dead pack waits on the file system; a capture stored meanwhile (other
    // captures deleted by a namespace reset while a test sends) used to be appended to that pack
    // when it was the active one, and was lost with it: its parts read "the pack holding this part
    // is missing" (a 410).
    let unlinking: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => {
      unlinking = resolve;
    });
    let finish: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let armed = false;
    const fs = {
      ...nodeFs,
      unlink: async (file: string) => {
        if (armed && file.endsWith('.pack')) {
          unlinking();
          await gate;
        }
        return nodeFs.unlink(file);
      },
    };
    const store = await stores.open({ fs });
    const first = store.packs.add(1, PART.html, Buffer.from('<p>deleted</p>'));
    await store.flush();
    store.packs.release(first);
    armed = true;
    const deleting = store.flush();
    await entered;
    const data = Buffer.from('<p>stored while the pack was being deleted</p>');
    const second = store.packs.add(2, PART.html, data);
    finish();
    await deleting;
    await store.flush();
    expect((await store.packs.read(second, 2)).equals(data)).toBe(true);
    expect(await packFiles(store.dataDir)).toEqual(['000002.pack']);
  });

  it('a dead pack whose file could not be deleted is deleted by the next write', async ({ stores }) => {
    let failures = 1;
    const fs = {
      ...nodeFs,
      unlink: async (file: string) => {
        if (file.endsWith('.pack') && failures-- > 0) throw Object.assign(new Error('EIO: i/o error, unlink'), { code: 'EIO' });
        return nodeFs.unlink(file);
      },
    };
    const store = await stores.open({ fs });
    const first = store.packs.add(1, PART.html, Buffer.from('<p>deleted</p>'));
    await store.flush();
    store.packs.release(first);
    await expect(store.flush()).rejects.toThrow(/i\/o error/);
    expect(await packFiles(store.dataDir)).toEqual(['000001.pack']);
    const kept = store.packs.add(2, PART.html, Buffer.from('<p>kept</p>'));
    await store.flush();
    expect(await packFiles(store.dataDir)).toEqual(['000002.pack']);
    expect((await store.packs.read(kept, 2)).toString()).toBe('<p>kept</p>');
  });

  it('a flipped byte fails the checksum: the part reads as damaged, and start-up sets the entry aside', async ({ stores }) => {
    const store = await stores.open();
    const good = store.packs.add(1, PART.html, Buffer.from('<p>fine</p>'));
    const bad = store.packs.add(2, PART.html, Buffer.from('<p>this one gets damaged</p>'));
    await store.flush();
    await store.close();
    const file = path.join(store.dataDir, 'packs', '000001.pack');
    const bytes = await readFile(file);
    if (!('p' in bad)) throw new Error('expected a pack entry');
    bytes[bad.o + ENTRY_HEADER + 5]! ^= 0xff;
    await writeFile(file, bytes);
    const lines: string[] = [];
    const reopened = await stores.open({ dataDir: store.dataDir, log: (line) => lines.push(line) });
    expect((await reopened.packs.read(good, 1)).toString()).toBe('<p>fine</p>');
    await expect(reopened.packs.read(bad, 2)).rejects.toBeInstanceOf(DamagedContent);
    expect(lines.join('\n')).toMatch(/000001\.pack: 1 pack entry failed the checksum .*1 record could not be read; the damaged bytes were moved to/);
    expect(await readdir(path.join(store.dataDir, 'damaged'))).toHaveLength(1);
  });

  it('cuts a torn tail (a crash mid-append) back to the last whole entry', async ({ stores }) => {
    const store = await stores.open();
    const ref = store.packs.add(1, PART.text, Buffer.from('whole'));
    await store.flush();
    await store.close();
    const file = path.join(store.dataDir, 'packs', '000001.pack');
    const whole = (await stat(file)).size;
    // Half an entry: a header that promises more bytes than the file has.
    const torn = Buffer.alloc(30, 0);
    torn.writeUInt32LE(0x314b4850, 0);
    torn.writeUInt32LE(1000, 12);
    await writeFile(file, Buffer.concat([await readFile(file), torn]));
    const reopened = await stores.open({ dataDir: store.dataDir });
    expect((await stat(file)).size).toBe(whole);
    expect((await reopened.packs.read(ref, 1)).toString()).toBe('whole');
    // And appends continue after the last whole entry.
    const next = reopened.packs.add(2, PART.text, Buffer.from('next'));
    await reopened.flush();
    expect((await reopened.packs.read(next, 2)).toString()).toBe('next');
  });
});

describe('space goes back when captures are deleted', () => {
  const send = async (server: TestServer, i: number, size = 3000) =>
    (
      (
        await read(
          await api(server.url, 'bulk-key').post('/v1/email/send/', {
            recipient: `p${i}@example.com`,
            subject: `P ${i}`,
            body: `<p>${String(i).repeat(size)}</p>`,
          }),
        )
      ).body as { id: string }
    ).id;

  it('deletes a pack once none of its captures is left, and compacts one that is mostly dead', async ({ apps }) => {
    const server = await apps.start({ store: { packSize: 64 * 1024, reserveSize: 0 } });
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) ids.push(await send(server, i));
    const before = await packFiles(server.dataDir);
    expect(before.length).toBeGreaterThan(3);

    // Delete every capture of the first pack: its file goes with the deletion's write.
    const firstPackSeqs = [];
    for (const id of ids) {
      const record = (await server.sandbox.messages.get(id))!;
      if ('p' in record.content.html! && record.content.html.p === 1) firstPackSeqs.push(record.seq);
    }
    await server.sandbox.messages.remove(firstPackSeqs);
    expect(await packFiles(server.dataDir)).not.toContain('000001.pack');

    // Delete nine in ten of the rest: compaction copies the live ones forward and drops the packs.
    const rest = ids.filter((_, i) => i >= firstPackSeqs.length);
    const doomed = rest.filter((_, i) => i % 10 !== 0);
    const kept = rest.filter((_, i) => i % 10 === 0);
    const seqs = await Promise.all(doomed.map(async (id) => (await server.sandbox.messages.get(id))!.seq));
    await server.sandbox.messages.remove(seqs);
    const bytesBefore = (await server.store.diskUsage()).bytes;
    await server.sandbox.messages.compact();
    const after = await packFiles(server.dataDir);
    expect(after.length).toBeLessThan(before.length);
    expect((await server.store.diskUsage()).bytes).toBeLessThan(bytesBefore);
    for (const id of kept) {
      const res = await fetch(`${server.url}/api/messages/${id}/html`);
      expect(res.status, id).toBe(200);
      expect(await res.text()).toContain(String(ids.indexOf(id)).repeat(3000));
    }
    // Compacted captures survive a restart where they now are.
    const dataDir = server.dataDir;
    await server.close();
    const again = await apps.start({ dataDir, store: { packSize: 64 * 1024, reserveSize: 0 } });
    for (const id of kept) expect((await fetch(`${again.url}/api/messages/${id}/html`)).status).toBe(200);
  });

  it("releases a pruned capture's pack bytes from the index, reading only the records that name a file of their own", async ({ apps }) => {
    const options = { store: { packSize: 64 * 1024, reserveSize: 0, largePartSize: 2048 } };
    const first = await apps.start(options);
    const ids: string[] = [];
    // Every tenth body is 3 KB: a file of its own; the others' parts go in packs.
    for (let i = 0; i < 40; i++) ids.push(await send(first, i, i % 10 === 0 ? 3000 : 20));
    const { dataDir } = first;
    await first.close();
    // Restarted: no record held in memory, the index from the checkpoints the stop wrote.
    const server = await apps.start({ dataDir, ...options });
    const log = server.store.messages.log;
    const seqs = ids.map((id) => decodeId(id)!);
    const records = (await log.readMany(seqs)).map((record) => record!);
    const doomed = records.slice(0, 30);
    const expected = new Map(server.store.packs.liveBytes());
    for (const record of doomed) for (const [pack, bytes] of packUse(record)) expected.set(pack, expected.get(pack)! - bytes);
    const withFiles = doomed.filter((record) => contentRefs(record).some((ref) => 'f' in ref));
    const files = withFiles.flatMap((record) => contentRefs(record).flatMap((ref) => ('f' in ref ? [ref.f] : [])));
    expect(files).toHaveLength(3);
    for (const file of files) await stat(path.join(dataDir, 'packs', file));

    const readMany = vi.spyOn(log, 'readMany');
    const deleted: unknown[] = [];
    server.sandbox.events.on('message.deleted', (captures) => deleted.push(...captures));
    await server.sandbox.messages.remove(doomed.map((record) => record.seq));
    expect(readMany.mock.calls.flatMap(([asked]) => asked)).toEqual(withFiles.map((record) => record.seq));
    expect(deleted).toEqual(doomed.map(({ seq, id }) => ({ seq, id })));
    const live = (bytes: Map<number, number>) => [...bytes].filter(([, n]) => n > 0).sort(([a], [b]) => a - b);
    expect(live(server.store.packs.liveBytes())).toEqual(live(expected));
    for (const file of files) await expect(stat(path.join(dataDir, 'packs', file))).rejects.toThrow(/ENOENT/);
    // The ten kept read whole, now and after another restart.
    for (const id of ids.slice(30)) expect((await fetch(`${server.url}/api/messages/${id}/html`)).status, id).toBe(200);
    await server.close();
    const again = await apps.start({ dataDir, ...options });
    expect(again.sandbox.messages.count()).toBe(10);
    for (const id of ids.slice(30)) expect((await fetch(`${again.url}/api/messages/${id}/html`)).status, id).toBe(200);
  });

  it('leaves a pack that deletions are emptying from its oldest capture to go whole, and compacts it once they stop', async ({ apps }) => {
    const server = await apps.start({ store: { packSize: 128 * 1024, reserveSize: 0 } });
    const ids: string[] = [];
    // About 6 KB each: some twenty to a pack.
    for (let i = 10; i < 60; i++) ids.push(await send(server, i));
    const messages = server.sandbox.messages;
    const inFirst: { id: string; seq: number }[] = [];
    for (const id of ids) {
      const record = (await messages.get(id))!;
      if ('p' in record.content.html! && record.content.html.p === 1) inFirst.push({ id, seq: record.seq });
    }
    expect(inFirst.length).toBeGreaterThan(10);
    const last = async () => (await stat(path.join(server.dataDir, 'packs', (await packFiles(server.dataDir)).at(-1)!))).size;
    await messages.compact();

    // Its oldest three in four deleted, as retention deletes: the oldest first.
    const doomed = inFirst.slice(0, Math.ceil(inFirst.length * 0.75));
    await messages.remove(doomed.map((c) => c.seq));
    const written = await last();
    await messages.compact();
    expect(await packFiles(server.dataDir)).toContain('000001.pack');
    // Nothing was copied forward.
    expect(await last()).toBe(written);

    // Nothing deleted since: it is no longer being emptied, and is compacted.
    await messages.compact();
    expect(await packFiles(server.dataDir)).not.toContain('000001.pack');
    for (const { id } of inFirst.slice(doomed.length)) {
      const res = await fetch(`${server.url}/api/messages/${id}/html`);
      expect(res.status, id).toBe(200);
      expect(await res.text()).toContain(String(ids.indexOf(id) + 10).repeat(3000));
    }
  });

  it('a capture whose bytes are damaged reads as 410 with a JSON detail, and the rest of it still shows', async ({ apps }) => {
    const first = await apps.start({ store: { reserveSize: 0 } });
    const id = await send(first, 1, 10);
    const record = (await first.sandbox.messages.get(id))!;
    const dataDir = first.dataDir;
    await first.close();
    const file = path.join(dataDir, 'packs', '000001.pack');
    const bytes = await readFile(file);
    const ref = record.content.html!;
    if (!('p' in ref)) throw new Error('expected a pack entry');
    bytes[ref.o + ENTRY_HEADER + 2]! ^= 0xff;
    await writeFile(file, bytes);
    const server = await apps.start({ dataDir, store: { reserveSize: 0, log: () => undefined } });
    const html = await fetch(`${server.url}/api/messages/${id}/html`);
    expect(html.status).toBe(410);
    expect(html.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await html.json()) as { detail: string }).detail).toMatch(
      /^This part of the capture cannot be read back: the entry at offset \d+ failed its checksum \(.*000001\.pack\)\./,
    );
    const detail = await fetch(`${server.url}/api/messages/${id}`);
    expect(detail.status).toBe(410);
    const listed = (await (await fetch(`${server.url}/api/messages`)).json()) as { total: number; messages: { id: string; subject: string }[] };
    expect(listed.messages.map((m) => m.id)).toContain(id);
    const v1 = await fetch(`${server.url}/v1/email/detail/${id}/`, { headers: { Authorization: 'Api-Key bulk-key' } });
    expect(v1.status).toBe(410);
  });
});

describe('start-up after a crash in the middle of a group commit', () => {
  const send = async (server: TestServer, i: number) =>
    (
      (await read(await api(server.url, 'bulk-key').post('/v1/email/send/', { recipient: `c${i}@example.com`, subject: `C ${i}`, body: `<p>${i}</p>` })))
        .body as { id: string }
    ).id;

  it('keeps a capture whose record reached the disk but whose bytes did not (a power loss), its parts read as damaged', async ({ apps }) => {
    const first = await apps.start({ store: { reserveSize: 0 } });
    const ids = [await send(first, 1), await send(first, 2), await send(first, 3)];
    const last = (await first.sandbox.messages.get(ids[2]!))!;
    const dataDir = first.dataDir;
    await first.close();
    // Packs are written before the records pointing into them, so only a power loss leaves
    // this: the record of the last capture on disk, the end of the pack gone.
    const ref = last.content.html!;
    if (!('p' in ref)) throw new Error('expected a pack entry');
    const pack = path.join(dataDir, 'packs', '000001.pack');
    await writeFile(pack, (await readFile(pack)).subarray(0, ref.o));
    const lines: string[] = [];
    const again = await apps.start({ dataDir, store: { reserveSize: 0, log: (line) => lines.push(line) } });
    expect(lines).toContain(
      'pigeonhole: 1 capture points at bytes missing from the end of a pack (a write cut short by a power loss); their parts read as damaged',
    );
    const listed = (await (await fetch(`${again.url}/api/messages`)).json()) as { messages: { id: string }[] };
    expect(listed.messages.map((m) => m.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await fetch(`${again.url}/api/messages/${ids[2]}/html`)).status).toBe(410);
    for (const id of ids.slice(0, 2)) expect((await fetch(`${again.url}/api/messages/${id}/html`)).status).toBe(200);
    // New captures go on after it, and no id is handed out twice.
    expect(ids).not.toContain(await send(again, 4));
  });

  it('takes apart at start-up an SMTP message stored but not yet taken apart when the server stopped', async ({ apps }) => {
    const first = await apps.start({ store: { reserveSize: 0 } });
    const info = await smtpClient(first.smtpPort).sendMail({
      from: 'a@example.com',
      to: 'b@example.com',
      subject: 'Parts later',
      text: 'The body words',
      attachments: [{ filename: 'a.txt', content: 'attached' }],
    });
    const id = capturedId(info.response);
    await first.sandbox.messages.get(id);
    const dataDir = first.dataDir;
    await first.close();
    // As the record was written before the parts were read: no summary yet.
    const segment = path.join(dataDir, 'messages', 'seg-000000.json');
    const lines = (await readFile(segment, 'utf8')).split('\n');
    const at = lines.map((line) => line.includes('"Parts later"')).lastIndexOf(true);
    const record = JSON.parse(lines[at]!.replace(/,$/, '')) as Record<string, unknown>;
    const { derived: _derived, ...rest } = record;
    lines[at] = JSON.stringify({ ...rest, unparsed: true, attachments: [], snippet: '' }) + (lines[at]!.endsWith(',') ? ',' : '');
    await writeFile(segment, lines.join('\n'));
    const again = await apps.start({ dataDir, store: { reserveSize: 0 } });
    // Announced once its parts are read, and searchable by its body.
    await expect.poll(async () => (await again.sandbox.messages.page({ q: 'body words' }, 0, 1)).total).toBe(1);
    const detail = (await (await fetch(`${again.url}/api/messages/${id}`)).json()) as { text: string; attachments: { filename: string }[]; snippet: string };
    expect(detail).toMatchObject({ text: 'The body words', snippet: 'The body words', attachments: [{ filename: 'a.txt' }] });
  });
});
