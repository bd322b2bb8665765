import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs } from '../../../server/storage/disk/fs.ts';
import { Quarantine } from '../../../server/storage/disk/quarantine.ts';
import { flagsOf } from '../../../server/storage/indexes/message-flags.ts';
import { MessageIndex } from '../../../server/storage/indexes/message-index.ts';
import { emptyRow, MessageRowsWriter, packUse } from '../../../server/storage/indexes/message-rows.ts';
import { searchText } from '../../../server/storage/indexes/search-texts.ts';
import type { MessageRecord } from '../../../server/storage/records.ts';
import { SegmentLog } from '../../../server/storage/segments/segment-log.ts';
import { test as it } from '../../support/fixtures.ts';
import { joined, savedRanges } from '../../support/parts.ts';
import { captureRecord as record } from '../../support/records.ts';

const live = (index: MessageIndex) => {
  const seqs: number[] = [];
  index.scanNewestFirst(
    () => true,
    (slot) => void seqs.push(index.seq(slot)),
  );
  return seqs;
};

describe('the compact message index', () => {
  it('keeps what lists and filters read, and the search text lowercased with marked addresses', () => {
    const index = new MessageIndex();
    index.add(record(1, { cc: ['Boss@Example.com'], status: 'pending', deliverAt: '2030-01-01T01:00:00Z', content: { html: { p: 3, o: 0, n: 80 } } }));
    const slot = index.slotOf(1);
    expect([index.source(slot), index.status(slot), index.team(slot), index.sender(slot), index.usesPack(slot, 3), index.read(slot)]).toEqual([
      'api',
      'pending',
      'acme',
      'acme-main',
      true,
      false,
    ]);
    expect(index.text(slot)).toBe(searchText(record(1, { cc: ['Boss@Example.com'] }), true));
    expect(index.text(slot)).toContain('\u0001boss@example.com\u0001');
    expect(index.text(slot).startsWith('\u0001user1@example.com\u0001')).toBe(true);
    expect(index.work.pendingDeliveries()).toEqual([[1, Date.parse('2030-01-01T01:00:00Z')]]);
    index.setStatus(1, 'bounced');
    index.setRead(1, true);
    expect([index.status(slot), index.read(slot)]).toEqual(['bounced', true]);
  });

  it("counts each team's API and flow captures (not SMTP ones) through adds and deletes", () => {
    const index = new MessageIndex();
    index.add(record(1));
    index.add(record(2, { source: 'smtp' }));
    index.add(record(3, { source: 'flow' }));
    index.add(record(4, { team: 'globex' }));
    index.add(record(5, { source: 'smtp', team: null, sender: null }));
    expect([index.teamRecordCount('acme'), index.teamRecordCount('globex'), index.teamRecordCount('nobody')]).toEqual([2, 1, 0]);
    index.remove(1);
    index.remove(2);
    expect(index.teamRecordCount('acme')).toBe(1);
    index.clear();
    expect(index.teamRecordCount('acme')).toBe(0);
  });

  it('refuses a capture out of order, finds slots by binary search, and drops dead slots once they pile up', () => {
    const index = new MessageIndex();
    for (let seq = 1; seq <= 20_000; seq++) index.add(record(seq));
    expect(() => index.add(record(5))).toThrow(/out of order/);
    for (let seq = 1; seq <= 15_000; seq++) expect(index.remove(seq)).toBe(true);
    expect(index.remove(3)).toBe(false);
    expect(index.size).toBe(5_000);
    expect(live(index)).toEqual(Array.from({ length: 5_000 }, (_, i) => 20_000 - i));
    expect(index.slotOf(17_000)).toBeGreaterThanOrEqual(0);
    expect(index.seq(index.slotOf(17_000))).toBe(17_000);
    expect(index.oldest(3)).toEqual([15_001, 15_002, 15_003]);
    expect(index.oldestCreatedMs()).toBe(Date.parse(record(15_001).createdAt));
    index.add(record(20_001));
    expect(index.maxSeq()).toBe(20_001);
  });
});

describe('namespaces in the index', () => {
  it('keeps each capture’s namespace, derives it for records stored before namespaces, and keeps it through compaction', () => {
    const index = new MessageIndex();
    index.add(record(1, { namespace: 'stored' }));
    // Older records have no field: derived from To, Cc, Bcc (the original addresses after a redirect).
    index.add(record(2, { to: ['a@example.com'], cc: ['b+Legacy@example.com'] }));
    index.add(record(3, { redirected: true, to: ['dev@example.com'], originalTo: ['ada+Original@example.com'] }));
    index.add(record(4, { namespace: null, to: ['ada+ignored@example.com'] }));
    const namespaces = () => {
      const out: [number, string | null][] = [];
      index.scanNewestFirst(
        () => true,
        (slot) => void out.push([index.seq(slot), index.namespace(slot)]),
      );
      return out;
    };
    expect(namespaces()).toEqual([
      [4, null],
      [3, 'original'],
      [2, 'legacy'],
      [1, 'stored'],
    ]);
    for (let seq = 5; seq < 5000; seq++) index.add(record(seq, { namespace: `n${seq % 3}` }));
    for (let seq = 5; seq < 5000; seq++) index.remove(seq);
    expect(namespaces()).toEqual([
      [4, null],
      [3, 'original'],
      [2, 'legacy'],
      [1, 'stored'],
    ]);
  });
});

describe('a range of the index saved for a checkpoint', () => {
  it('leaves room after a restore: the first capture after a restart copies no column', async () => {
    const index = new MessageIndex();
    for (let seq = 1; seq <= 3000; seq++) index.add(record(seq));
    const ranges = [
      [0, 1024],
      [1024, 2048],
      [2048, 4096],
    ] as const;
    const parts = await savedRanges(index, ranges, live(index));
    const again = new MessageIndex();
    again.expect(3000);
    for (const part of parts) again.restoreRange(part, () => Number.MAX_SAFE_INTEGER);
    const restored = again.columnBytes;
    again.add(record(3001));
    // Sized to the rows exactly, that one capture doubled every column (46 bytes a row).
    expect(again.columnBytes).toBe(restored);
    for (let seq = 3002; seq <= 3375; seq++) again.add(record(seq));
    expect(again.columnBytes).toBe(restored);
    // Once full, half as much again.
    again.add(record(3376));
    expect(again.columnBytes / restored).toBeCloseTo(1.5, 2);
  });

  it('restores every field: flags, names, namespace, search text, flow marks, pending deliveries, unparsed captures and pack use', async () => {
    const index = new MessageIndex();
    const flow = { subscription: 7, step: 2 } as unknown as MessageRecord['flow'];
    index.add(record(10, { content: { html: { p: 1, o: 0, n: 50 }, text: { p: 2, o: 100, n: 30 } } }));
    index.add(record(11, { source: 'flow', flow, status: 'pending', deliverAt: '2030-01-02T00:00:00Z', team: 'globex', to: ['a+ns1@example.com'] }));
    index.add(record(12, { source: 'smtp', team: null, sender: null, unparsed: true, content: { raw: { p: 2, o: 500, n: 900 } } }));
    index.add(record(13));
    index.setRead(13, true);
    index.remove(13);
    const saved = joined(await index.serializeRange(10, 20, [10, 11, 12]))!;
    expect(saved).not.toBeNull();

    const again = new MessageIndex();
    const { packs, cutShort } = again.restoreRange(saved, (pack) => (pack === 2 ? 1000 : 10_000));
    // Pack 2 holds 30 + 900 bytes (and two entry headers); capture 12's bytes end at 1420 > 1000.
    expect([...packs]).toEqual([
      [1, 70],
      [2, 970],
    ]);
    expect(cutShort).toBe(1);
    const fields = (ix: MessageIndex) =>
      [10, 11, 12].map((seq) => {
        const slot = ix.slotOf(seq);
        return [
          ix.source(slot),
          ix.status(slot),
          ix.team(slot),
          ix.sender(slot),
          ix.namespace(slot),
          ix.read(slot),
          ix.text(slot),
          ix.createdMs(slot),
          ix.flow(seq),
        ];
      });
    expect(fields(again)).toEqual(fields(index));
    expect(again.slotOf(13)).toBe(-1);
    expect(again.size).toBe(3);
    expect(again.teamRecordCount('acme')).toBe(index.teamRecordCount('acme'));
    expect(again.teamRecordCount('globex')).toBe(1);
    expect([again.usesPack(again.slotOf(10), 1), again.usesPack(again.slotOf(10), 2), again.usesPack(again.slotOf(11), 1)]).toEqual([true, true, false]);
    expect(again.work.pendingDeliveries()).toEqual([[11, Date.parse('2030-01-02T00:00:00Z')]]);
    expect(again.work.unparsedCaptures()).toEqual([12]);
  });

  it('says what deleting a capture releases from the index alone when every part is in a pack (through a checkpoint too), and asks for the record otherwise', async () => {
    const captures = [
      // Parts in two packs (a pack sealed between them), in one, none.
      record(1, { status: 'delivered', content: { html: { p: 1, o: 0, n: 50 }, text: { p: 2, o: 100, n: 30 } } }),
      record(2, {
        status: 'delivered',
        content: { html: { p: 1, o: 70, n: 10 } },
        attachments: [{ filename: 'a.txt', contentType: 'text/plain', size: 7, content: { p: 1, o: 100, n: 7 } }],
      }),
      record(3, { status: 'bounced', content: {} }),
      // An attachment in a file of its own (its name is only in the record), an outcome pending, MIME parts not taken apart.
      record(4, {
        status: 'delivered',
        content: { html: { p: 1, o: 200, n: 10 } },
        attachments: [{ filename: 'big.bin', contentType: 'application/octet-stream', size: 5e6, content: { f: 'abc.part', n: 5e6 } }],
      }),
      record(5, { status: 'pending', deliverAt: '2030-01-02T00:00:00Z', content: { html: { p: 1, o: 300, n: 10 } } }),
      record(6, { status: 'delivered', source: 'smtp', unparsed: true, content: { raw: { p: 1, o: 400, n: 10 } } }),
    ];
    const index = new MessageIndex();
    for (const capture of captures) index.add(capture);
    const answers = (ix: MessageIndex) => captures.map(({ seq }) => ix.packsForDeletion(seq));
    const expected = [packUse(captures[0]!), packUse(captures[1]!), [], null, null, null];
    expect(expected.slice(0, 2)).toEqual([
      [
        [1, 70, 70],
        [2, 50, 150],
      ],
      [[1, 57, 127]],
    ]);
    expect(answers(index)).toEqual(expected);
    // Once it settles, the index answers for capture 5 too.
    index.setStatus(5, 'delivered');
    expect(index.packsForDeletion(5)).toEqual(packUse(captures[4]!));
    index.setStatus(5, 'pending');

    const again = new MessageIndex();
    again.restoreRange(joined(await index.serializeRange(0, 8, [1, 2, 3, 4, 5, 6]))!, () => Number.MAX_SAFE_INTEGER);
    expect(answers(again)).toEqual(expected);
    index.remove(2);
    expect(index.packsForDeletion(2)).toBeNull();

    // A checkpoint written before the flag existed: its rows do not say where every part is, so the record is read.
    const before = new MessageRowsWriter([2]);
    const row = emptyRow();
    Object.assign(row, { created: Date.parse(captures[1]!.createdAt), bits: flagsOf(captures[1]!), pack: 1, packBytes: 57, packEnd: 127 });
    before.set(0, row);
    const old = new MessageIndex();
    old.restoreRange(joined(before.encode())!, () => Number.MAX_SAFE_INTEGER);
    expect(old.has(2)).toBe(true);
    expect(old.packsForDeletion(2)).toBeNull();
  });

  it('saves nothing when the captures differ from what the segment file holds, and refuses damaged or out-of-order ranges unchanged', async () => {
    const index = new MessageIndex();
    for (let seq = 1; seq <= 5; seq++) index.add(record(seq));
    // The file holds 1-4 (5 not written yet), or 1-6 (6 deleted in memory, its tombstone not written).
    expect(await index.serializeRange(0, 8, [1, 2, 3, 4])).toBeNull();
    expect(await index.serializeRange(0, 8, [1, 2, 3, 4, 5, 6])).toBeNull();
    const saved = joined(await index.serializeRange(0, 8, [1, 2, 3, 4, 5]))!;
    const again = new MessageIndex();
    expect(() => again.restoreRange(saved.subarray(0, saved.length - 3), () => 0)).toThrow();
    expect(() => again.restoreRange(Buffer.concat([saved, Buffer.from([1])]), () => 0)).toThrow();
    expect(again.size).toBe(0);
    again.restoreRange(saved, () => 0);
    expect(() => again.restoreRange(saved, () => 0)).toThrow(/out of order/);
    expect(again.size).toBe(5);
  });
});

// docs/storage.md, "Start-up": a background checkpoint must not hold sends up while it takes a
// segment's thousands of captures.
describe('a checkpoint of many captures, taken a chunk per turn of the event loop', () => {
  const seqs = Array.from({ length: 5000 }, (_, i) => i + 1);

  it('lets other work run between its chunks, and saves what one go would', async () => {
    const index = new MessageIndex();
    for (const seq of seqs) index.add(record(seq));
    const order: string[] = [];
    const taking = index.serializeRange(0, 8192, seqs).then((saved) => {
      order.push('checkpoint taken');
      return joined(saved);
    });
    // Queued after the checkpoint's first pause: taken in one go, it would be done before this ran.
    setImmediate(() => order.push('other work'));
    const saved = await taking;
    expect(order).toEqual(['other work', 'checkpoint taken']);
    let pauses = 0;
    const counted = joined(
      await index.serializeRange(0, 8192, seqs, async () => {
        pauses++;
      }),
    );
    // 5,000 captures, 128 a turn (ROWS_PER_TURN): 39 pauses.
    expect(pauses).toBe(39);
    // Byte for byte (Buffer#equals: toEqual walks a megabyte element by element).
    expect(saved).not.toBeNull();
    expect(counted?.equals(saved!)).toBe(true);
  });

  it('is dropped when its segment was written to meanwhile, kept when only another was, and a start from it has every change', async ({ tempDir }) => {
    const index = new MessageIndex();
    let between: (() => Promise<void>) | null = null;
    const during = async () => {
      const work = between;
      between = null;
      await work?.();
    };
    const options = {
      dir: path.join(tempDir, 'messages'),
      segmentSize: 8192,
      fs: nodeFs,
      fsync: false,
      quarantine: new Quarantine(tempDir, nodeFs, () => undefined),
      checkpoint: {
        save: (lo: number, hi: number, live: readonly number[]) => index.serializeRange(lo, hi, live, during),
        restore: (data: Buffer) => void index.restoreRange(data, () => Number.POSITIVE_INFINITY),
      },
    };
    const log = await SegmentLog.open<MessageRecord>(options, (row) => index.add(row));
    const write = async () => {
      const batch = log.begin()!;
      await batch.write();
      batch.commit();
    };
    const put = (row: MessageRecord) => {
      if (index.has(row.seq)) index.setRead(row.seq, row.read);
      else index.add(row);
      log.put(row);
    };
    for (const seq of seqs) put(record(seq));
    await write();
    const exclusive = <R>(task: () => Promise<R>) => task();

    // A capture of the segment read while the checkpoint is taken: written, it changes the file.
    between = async () => {
      put(record(2000, { read: true }));
      await write();
    };
    expect(await log.saveCheckpoint(0, exclusive)).toBe(false);
    // Only changed in memory (its line not written yet): not what the file holds either.
    between = async () => put(record(2001, { read: true }));
    expect(await log.saveCheckpoint(0, exclusive)).toBe(false);
    await write();
    // A new capture in the next segment (a send) while it is taken: this segment is as it was.
    between = async () => {
      put(record(9000));
      await write();
    };
    expect(await log.saveCheckpoint(0, exclusive)).toBe(true);
    expect(between).toBeNull();
    await log.close();

    const again = new MessageIndex();
    const reopened = await SegmentLog.open<MessageRecord>(
      { ...options, checkpoint: { ...options.checkpoint, restore: (data: Buffer) => void again.restoreRange(data, () => Number.POSITIVE_INFINITY) } },
      (row) => again.add(row),
    );
    expect(reopened.checkpointUse).toEqual({ restored: 1, missing: 1, old: 0, damaged: 0 });
    expect(again.size).toBe(5001);
    expect([2000, 2001, 1999, 9000].map((seq) => again.read(again.slotOf(seq)))).toEqual([true, true, false, false]);
    await reopened.close();
  });
});
