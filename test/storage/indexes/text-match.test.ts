import { describe, expect } from 'vitest';
import { MessageIndex } from '../../../server/storage/indexes/message-index.ts';
import { searchText } from '../../../server/storage/indexes/search-texts.ts';
import type { MessageRecord } from '../../../server/storage/records.ts';
import { test as it } from '../../support/fixtures.ts';
import { joined, savedRanges } from '../../support/parts.ts';
import { captureRecord } from '../../support/records.ts';

/**
 * The index keeps each capture's From (interned, up to a limit) and sender id beside its search
 * text rather than in it (storage/indexes/text-match.ts); search must find exactly what it found
 * when both were in every text.
 */

const FROMS = [
  'Hello <hello@acme.example>',
  'Billing Team <billing@acme.example>',
  'noreply@globex.test',
  'ΟΔΥΣΣΕΥΣ <o@ithaca.test>',
  `${'x'.repeat(300)}@long.test`,
];
const SENDERS = ['acme-main', 'acme-bulk', 'Globex-Ops', null];

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function records(count: number, seed: number, from = 1): MessageRecord[] {
  const next = random(seed);
  return Array.from({ length: count }, (_, i) => {
    const seq = from + i;
    const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)]!;
    return captureRecord(seq, {
      // Mostly a few Froms (as a run sends), some unique (as a hostile or varied sender does).
      from: next() < 0.2 ? `Person ${seq} <p${seq}@unique.test>` : pick(FROMS),
      sender: pick(SENDERS),
      subject: `Subject ${seq} ${pick(['order', 'invoice', 'welcome'])}`,
    });
  });
}

/** What search looked in before: the text with the From and the sender id in it. */
const wholeText = (record: MessageRecord) => `${searchText(record, false)}\u0002${(record.sender ?? '').toLowerCase()}`;

const QUERIES = [
  ['acme'],
  ['billing'],
  ['globex'],
  ['globex-ops'],
  ['acme-bulk', 'invoice'],
  ['unique'],
  ['p17@unique'],
  ['ithaca', 'order'],
  ['οδυσσευσ'],
  ['xxxxxxxx'],
  ['long.test', 'welcome'],
  ['hello', 'subject'],
  ['main'],
  ['nothing-here'],
  ['acme', 'globex'],
];

function found(index: MessageIndex, words: readonly string[]): number[] {
  const match = index.textMatcher(words.map((word) => Buffer.from(word, 'utf8')));
  const seqs: number[] = [];
  index.scanNewestFirst(match, (slot) => void seqs.push(index.seq(slot)));
  return seqs.sort((a, b) => a - b);
}

function expected(live: readonly MessageRecord[], words: readonly string[]): number[] {
  return live.filter((record) => words.every((word) => wholeText(record).includes(word))).map((record) => record.seq);
}

function expectSameAnswers(index: MessageIndex, live: readonly MessageRecord[]): void {
  for (const words of QUERIES) expect([words, found(index, words)]).toEqual([words, expected(live, words)]);
}

describe('Froms and sender ids kept beside the search texts', () => {
  it('are found by search as when every text held them, up to the limit and past it', () => {
    const all = records(600, 7);
    const index = new MessageIndex(3);
    for (const record of all) index.add(record);
    expectSameAnswers(index, all);
    // The first three Froms to come (of at most 256 characters) are apart, not in the text; the others in it.
    const first = [...new Set(all.map((record) => record.from).filter((from) => from.length <= 256))].slice(0, 3);
    const apart = all.filter((record) => !index.text(index.slotOf(record.seq)).includes(record.from.toLowerCase()));
    expect(apart.map((record) => record.seq)).toEqual(all.filter((record) => first.includes(record.from)).map((record) => record.seq));
    expect(apart.length).toBeGreaterThan(100);
    // No text holds a sender id field any more.
    expect(index.text(index.slotOf(1)).split('\u0002')).toHaveLength(apart.some((record) => record.seq === 1) ? 3 : 4);
  });

  it('are found the same after a checkpoint restores them, and after a compaction interns them again', async () => {
    const all = records(6000, 11);
    const index = new MessageIndex(4);
    for (const record of all) index.add(record);
    const again = new MessageIndex(4);
    for (const range of await savedRanges(
      index,
      [
        [1, 3001],
        [3001, 6001],
      ],
      all.map((record) => record.seq),
    ))
      again.restoreRange(range, () => Number.POSITIVE_INFINITY);
    expectSameAnswers(again, all);
    // A search made before the compaction (a waiter's) and one made after agree with the texts.
    const before = index.textMatcher([Buffer.from('billing')]);
    const scan = () => {
      const held: number[] = [];
      index.scanNewestFirst(before, (slot) => void held.push(index.seq(slot)));
      return held.sort((a, b) => a - b);
    };
    expect(scan()).toEqual(expected(all, ['billing']));
    for (let seq = 1; seq <= 5000; seq++) index.remove(seq);
    const live = all.slice(5000);
    expectSameAnswers(index, live);
    expect(scan()).toEqual(expected(live, ['billing']));
  });

  it('are found by a search made before their capture came (a waiter), including a From or sender id new then', () => {
    const index = new MessageIndex();
    const first = records(50, 3).map((record) => ({ ...record, from: 'old@acme.example', sender: 'acme-main' }));
    for (const record of first) index.add(record);
    const waiters = ['zeta', 'nova-sender', 'acme'].map((word) => ({ word, match: index.textMatcher([Buffer.from(word)]), found: [] as number[] }));
    // Each waiter tests the captures there are, then each new one as it comes.
    const test = (seq: number) => {
      for (const waiter of waiters) if (waiter.match(index.slotOf(seq))) waiter.found.push(seq);
    };
    test(50);
    index.add(captureRecord(51, { from: 'Zeta <z@zeta.test>' }));
    test(51);
    index.add(captureRecord(52, { sender: 'Nova-Sender' }));
    test(52);
    expect(waiters.map(({ word, found }) => [word, found])).toEqual([
      ['zeta', [51]],
      ['nova-sender', [52]],
      ['acme', [50, 51, 52]],
    ]);
  });

  it('read from a checkpoint of the earlier format, whose texts hold the From', () => {
    const all = records(200, 5);
    const inline = new MessageIndex(0);
    for (const record of all) inline.add(record);
    // Format 1 had three ids a row (no From's); every text held its From.
    return inline
      .serializeRange(
        0,
        201,
        all.map((record) => record.seq),
      )
      .then((parts) => {
        const older = asFormat1(joined(parts)!, all.length);
        const index = new MessageIndex();
        index.restoreRange(older, () => Number.POSITIVE_INFINITY);
        expectSameAnswers(index, all);
        expect(index.text(index.slotOf(1))).toContain(all[0]!.from.toLowerCase().slice(0, 20));
      });
  });
});

/** A format-2 range (message-rows.ts) as format 1 wrote it: the fourth id of each row dropped. */
function asFormat1(range: Buffer, count: number): Buffer {
  expect(range[0]).toBe(2);
  let at = 9;
  for (let n = range.readUInt32LE(5), i = 0; i < n; i++) at += 4 + range.readUInt32LE(at);
  at += (8 + 8 + 2) * count;
  const ids = new Uint32Array(range.buffer.slice(range.byteOffset + at, range.byteOffset + at + 16 * count));
  const three = new Uint32Array(3 * count);
  for (let i = 0; i < count; i++) three.set(ids.subarray(4 * i, 4 * i + 3), 3 * i);
  const out = Buffer.concat([range.subarray(0, at), Buffer.from(three.buffer), range.subarray(at + 16 * count)]);
  out[0] = 1;
  return out;
}
