import { describe, expect, it } from 'vitest';
import { RecipientIndex } from '../../../server/storage/indexes/recipient-index.ts';
import { recipientKey } from '../../../server/storage/indexes/recipient-rows.ts';
import { decodeColumns } from '../../../server/storage/indexes/recipient-rows.ts';
import type { RecipientRecord } from '../../../server/storage/records.ts';
import { growth, LINEAR } from '../../support/scale.ts';
import { joined, savedRanges } from '../../support/parts.ts';

function recipient(seq: number, over: Partial<RecipientRecord> = {}): RecipientRecord {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, 0, seq)).toISOString();
  return {
    seq,
    sqid: `s${seq}`,
    team: seq % 3 === 0 ? 'beta' : 'acme',
    email: `User${seq}@Example.com`,
    firstName: '',
    lastName: '',
    flags: [],
    hasBeenSentEmail: true,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

/** A small deterministic generator (tests must not depend on chance). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Homes at the start, the very end (wrapping round) and the middle of the table: every key collides with a third of the others. */
const poorHash = (key: string) => [0, 0xffffffff, 0x80000000][key.length % 3]!;

const live = (index: RecipientIndex) => {
  const seqs: number[] = [];
  index.scanNewestFirst((slot) => void seqs.push(index.seq(slot)));
  return seqs;
};

describe('the compact recipient index', () => {
  it('finds every key through forced collisions, also after removals move entries back in the table and dead slots are dropped', () => {
    const index = new RecipientIndex({ hash: poorHash });
    const records = new Map<number, RecipientRecord>();
    const keyOf = (r: RecipientRecord) => recipientKey(r.team, r.email);
    const lookup = (team: string, email: string) => {
      const key = recipientKey(team, email);
      const slot = index.find(key, (seq) => keyOf(records.get(seq)!) === key);
      return slot < 0 ? undefined : index.seq(slot);
    };
    const random = generator(21);
    let seq = 0;
    for (let round = 0; round < 12_000; round++) {
      const live = [...records.keys()];
      if (live.length > 0 && random() < 0.4) {
        const gone = live[Math.floor(random() * live.length)]!;
        expect(index.remove(gone)).toBe(true);
        records.delete(gone);
      } else {
        const record = recipient(++seq, { email: `r${'x'.repeat(Math.floor(random() * 5))}${seq}@example.com` });
        records.set(record.seq, record);
        index.add(record);
      }
    }
    expect(index.size).toBe(records.size);
    expect(live(index)).toEqual([...records.keys()].sort((a, b) => b - a));
    for (const record of records.values()) expect(lookup(record.team, record.email.toUpperCase())).toBe(record.seq);
    for (let gone = 1; gone <= seq; gone++) if (!records.has(gone)) expect(lookup(recipient(gone).team, `r${gone}@example.com`)).toBeUndefined();
    // The same address in another team is another recipient.
    const one = [...records.values()][0]!;
    expect(lookup(one.team === 'acme' ? 'beta' : 'acme', one.email)).toBeUndefined();
  });

  it('keeps texts, flag sets and change times as records change, and finds words only within one recipient', () => {
    const index = new RecipientIndex();
    index.add(recipient(1, { firstName: 'Ada', flags: ['vip'] }));
    index.add(recipient(2, { lastName: 'Lovelace' }));
    const words = (...list: string[]) => list.map((w) => Buffer.from(w));
    expect(index.textHas(index.slotOf(1), words('ada', 'user1@'))).toBe(true);
    // "ada" of one recipient and "lovelace" of another are not one match.
    expect(index.textHas(index.slotOf(1), words('ada', 'lovelace'))).toBe(false);
    const vip = index.setsWithFlag('vip');
    expect([index.hasFlag(index.slotOf(1), vip), index.hasFlag(index.slotOf(2), vip)]).toEqual([true, false]);

    const stamp = index.stamp(index.slotOf(2));
    const changed = recipient(2, { lastName: 'Byron', flags: ['vip', 'new'], updatedAt: new Date(Date.UTC(2031, 0, 1)).toISOString() });
    expect(index.update(changed)).toBeGreaterThan(stamp);
    expect(index.textHas(index.slotOf(2), words('byron', 'new'))).toBe(true);
    expect(index.textHas(index.slotOf(2), words('lovelace'))).toBe(false);
    expect(index.hasFlag(index.slotOf(2), index.setsWithFlag('new'))).toBe(true);
    expect(index.updatedMs(index.slotOf(2))).toBe(Date.UTC(2031, 0, 1));
    // A text that cannot be UTF-8 exactly (a lone surrogate) is not answered from the index.
    index.update(recipient(1, { firstName: 'A\ud800' }));
    expect(index.textHas(index.slotOf(1), words('a'))).toBeNull();
  });

  it('writes a range of rows self-contained and reads it back into another index, the same', async () => {
    const index = new RecipientIndex();
    const random = generator(5);
    for (let seq = 1; seq <= 3000; seq++) {
      const flags = random() < 0.3 ? ['vip'] : random() < 0.5 ? [] : ['a', `f${seq % 7}`];
      const firstName = seq % 11 === 0 ? 'Zoë \ud83d\ude00' : seq % 13 === 0 ? 'lone \udc00' : '';
      index.add(recipient(seq, { flags, firstName }));
    }
    for (let seq = 1; seq <= 3000; seq += 1 + Math.floor(random() * 4)) index.remove(seq);
    index.update(recipient(live(index)[0]!, { firstName: 'Changed', flags: ['vip'] }));

    const ranges = [
      [0, 1024],
      [1024, 2048],
      [2048, 3072],
    ] as const;
    const liveIn = (lo: number, hi: number) =>
      live(index)
        .filter((seq) => seq >= lo && seq < hi)
        .sort((a, b) => a - b);
    const serialize = async (of: RecipientIndex) =>
      (await Promise.all(ranges.map(([lo, hi]) => of.serializeRange(lo, hi, liveIn(lo, hi))))).map((saved) => joined(saved)!);
    const parts = await serialize(index);
    // Column by column (format 2); checkpoints written row by row (format 1) still restore.
    expect(parts.every((part) => part[0] === 2)).toBe(true);
    // Rows that differ from what the segment file holds (a change not settled) are not saved.
    expect(await index.serializeRange(0, 1024, liveIn(0, 1024).slice(1))).toBeNull();
    expect(await index.serializeRange(0, 1024, [...liveIn(0, 1024), 1023.5])).toBeNull();
    const copy = new RecipientIndex();
    for (const part of parts) copy.restoreRange(part);

    expect(copy.size).toBe(index.size);
    expect(live(copy)).toEqual(live(index));
    const fields = (of: RecipientIndex) => {
      const rows: unknown[] = [];
      const vip = of.setsWithFlag('vip');
      const f3 = of.setsWithFlag('f3');
      const needles = [[Buffer.from('user2')], [Buffer.from('zoë')], [Buffer.from('changed')]];
      of.scanNewestFirst(
        (slot) =>
          void rows.push([
            of.seq(slot),
            of.team(slot),
            of.updatedMs(slot),
            of.hashAt(slot),
            of.hasFlag(slot, vip),
            of.hasFlag(slot, f3),
            needles.map((needle) => of.textHas(slot, needle)),
          ]),
      );
      return rows;
    };
    expect(fields(copy)).toEqual(fields(index));
    // Looked up the same way, and written back byte for byte.
    const seq = live(index)[10]!;
    const key = recipientKey(recipient(seq).team, recipient(seq).email);
    expect(copy.seq(copy.find(key, (s) => s === seq))).toBe(seq);
    expect(await serialize(copy)).toEqual(parts);
    const fromRows = new RecipientIndex();
    for (const part of parts) fromRows.restoreRange(rowsFormat(part));
    expect(fields(fromRows)).toEqual(fields(index));
    expect(await serialize(fromRows)).toEqual(parts);
    // Rows cut short are refused and leave the index as it was.
    const other = new RecipientIndex();
    expect(() => other.restoreRange(parts[1]!.subarray(0, parts[1]!.length - 5))).toThrow();
    expect(other.size).toBe(0);
    // Another format is refused, not misread.
    const future = Buffer.from(parts[0]!);
    future[0] = 3;
    expect(() => new RecipientIndex().restoreRange(future)).toThrow('format 3');
  });
});

/** A columns checkpoint written as the row-by-row format 1 that checkpoints before it used. */
function rowsFormat(part: Buffer): Buffer {
  const c = decodeColumns(part);
  const out: Buffer[] = [Buffer.from([1]), u32(c.count)];
  const text = (start: number) => {
    let at = start;
    let length = 0;
    for (let scale = 1; ; scale *= 128) {
      const byte = c.entries[at++]!;
      length += (byte & 0x7f) * scale;
      if (!(byte & 0x80)) break;
    }
    return c.entries.subarray(at, at + length);
  };
  const field = (bytes: Uint8Array) => [u32(bytes.length), Buffer.from(bytes)];
  for (let i = 0; i < c.count; i++) {
    const updated = Buffer.alloc(8);
    updated.writeDoubleLE(c.updated[i]!);
    out.push(u32(c.seqs[i]!), updated, u32(c.hashes[i]!), Buffer.from([c.bits[i]!]));
    out.push(...field(Buffer.from(c.names[c.teams[i]!]!)), ...field(Buffer.from(c.names[c.flags[i]!]!)), ...field(text(c.starts[i]!)));
  }
  return Buffer.concat(out);
}

function u32(value: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeUInt32LE(value);
  return out;
}

describe('room after a restart', () => {
  it('leaves room after a restore: the first recipients after a restart copy no column, arena or hash table', async () => {
    const index = new RecipientIndex();
    for (let seq = 1; seq <= 5000; seq++) index.add(recipient(seq, { firstName: `Name ${seq}` }));
    const ranges = [
      [0, 2048],
      [2048, 4096],
      [4096, 6144],
    ] as const;
    const parts = await savedRanges(index, ranges, live(index));
    const copy = new RecipientIndex();
    copy.expect(5000);
    for (const part of parts) copy.restoreRange(part);
    copy.trim();
    const restored = copy.bytes;
    // Trimmed to the rows exactly, the first new recipient grew every column by half and rebuilt the table.
    for (let seq = 5001; seq <= 5100; seq++) copy.add(recipient(seq, { firstName: `Name ${seq}` }));
    expect(copy.bytes).toBe(restored);
    expect(copy.size).toBe(5100);
  });

  it('gives spare room back after a restore only when it is worth copying every column', async () => {
    const index = new RecipientIndex();
    for (let seq = 1; seq <= 5000; seq++) index.add(recipient(seq, { firstName: `Name ${seq}` }));
    const parts = await savedRanges(index, [[0, 8192]], live(index));
    const restore = (expected: number) => {
      const copy = new RecipientIndex();
      copy.expect(expected);
      for (const part of parts) copy.restoreRange(part);
      return copy;
    };
    // Segments nearly full (start-up expected 5,200 rows, found 5,000): a few slots are not worth a copy of every column.
    const near = restore(5200);
    const nearBytes = near.bytes;
    near.trim();
    expect(near.bytes).toBe(nearBytes);
    // Segments mostly dead (20,000 expected): the room goes back.
    const far = restore(20_000);
    const farBytes = far.bytes;
    far.trim();
    expect(far.bytes).toBeLessThan(farBytes - 5000 * 20);
    expect(far.size).toBe(5000);
  });
});

describe('recipient search text is matched in linear time', () => {
  it('writes a checkpoint of many rows a chunk per turn of the event loop, letting other work run between', async () => {
    const index = new RecipientIndex();
    const seqs = Array.from({ length: 3000 }, (_, i) => i + 1);
    for (const seq of seqs) index.add(recipient(seq));
    const order: string[] = [];
    const taking = index.serializeRange(0, 4096, seqs).then((saved) => {
      order.push('checkpoint taken');
      return joined(saved);
    });
    // Queued after the first pause: taken in one go, the checkpoint would be done before this ran.
    setImmediate(() => order.push('other work'));
    const saved = await taking;
    expect(order).toEqual(['other work', 'checkpoint taken']);
    let pauses = 0;
    const counted = joined(
      await index.serializeRange(0, 4096, seqs, async () => {
        pauses++;
      }),
    );
    // 3,000 rows, 128 a turn (ROWS_PER_TURN): 23 pauses, and the same bytes.
    expect(pauses).toBe(23);
    expect(saved).not.toBeNull();
    expect(counted?.equals(saved!)).toBe(true);
  });

  it('finds words anywhere in the text, and a word of repeated letters against a name of them costs linear time', async () => {
    const index = new RecipientIndex();
    index.add(recipient(1, { firstName: 'Ada', lastName: 'Lovelace', flags: ['vip'] }));
    const slot = index.slotOf(1);
    const has = (...words: string[]) =>
      index.textHas(
        slot,
        words.map((word) => Buffer.from(word)),
      );
    expect([has('user1@'), has('lovelace', 'vip'), has('ada', 'zebra'), has('aab'), has('')]).toEqual([true, true, false, false, true]);
    // Overlapping prefixes (the case a naive restart gets right only by rescanning).
    const overlap = new RecipientIndex();
    overlap.add(recipient(1, { firstName: 'aabaabaaab' }));
    expect(overlap.textHas(overlap.slotOf(1), [Buffer.from('aabaaab')])).toBe(true);
    expect(overlap.textHas(overlap.slotOf(1), [Buffer.from('aabaabaaaa')])).toBe(false);

    // Hostile: a name of n 'a's and a word of n/2 'a's then 'b' (a naive search costs n²/2).
    const make = (n: number) => {
      const ix = new RecipientIndex();
      ix.add(recipient(1, { firstName: 'a'.repeat(n) }));
      return { ix, needle: [Buffer.from(`${'a'.repeat(n / 2)}b`)] };
    };
    const { ratio } = await growth(make, ({ ix, needle }) => ix.textHas(ix.slotOf(1), needle), 2000);
    expect(ratio).toBeLessThan(LINEAR);
  });
});
