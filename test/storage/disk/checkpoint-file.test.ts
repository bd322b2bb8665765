import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { decodeSegmentCheckpoint, encodeSegmentCheckpoint, writeCheckpoint } from '../../../server/storage/disk/checkpoint.ts';
import { nodeFs } from '../../../server/storage/disk/fs.ts';
import { MessageIndex } from '../../../server/storage/indexes/message-index.ts';
import { test as it } from '../../support/fixtures.ts';
import { captureRecord } from '../../support/records.ts';

/**
 * docs/storage.md, "Start-up": a checkpoint is written from its parts as they lie in memory (the
 * search texts as views of their chunks, nothing joined) and sealed by a CRC-32 taken a slice
 * at a time, so that taking one in the background allocates little and never holds the thread
 * for long (bench/README.md, Send latency during a checkpoint).
 */

/** A capture with a subject and snippet long enough that 8,192 texts fill more than one chunk. */
const capture = (seq: number) =>
  captureRecord(seq, {
    recipient: `user${seq}@example.com`,
    to: [`user${seq}@example.com`],
    subject: `Your order ${seq} has shipped, and here is everything you need to know about it`,
    snippet: `Hello customer ${seq}, thank you for your order. ${'It left our warehouse today. '.repeat(4)}`,
  });

describe('a checkpoint file', () => {
  it('takes a segment’s search texts as a few views of their chunks, not a copy per capture', async () => {
    const index = new MessageIndex();
    const seqs = Array.from({ length: 8192 }, (_, i) => i + 1);
    for (const seq of seqs) index.add(capture(seq));
    const parts = (await index.serializeRange(0, 8193, seqs))!;
    // The head, the string table (4 strings, a length and the bytes each), 6 columns, the texts,
    // the extras' length and JSON: a handful of parts, the texts' range or two among them.
    expect(parts.length).toBeLessThan(20);
    const texts = parts.filter((part) => part.buffer.byteLength === 1 << 20);
    // Some 1.6 MB of texts: more than one chunk holds, so two ranges at least.
    expect(texts.reduce((sum, part) => sum + part.length, 0)).toBeGreaterThan(1 << 20);
    expect(texts.length).toBeGreaterThanOrEqual(2);
    // Each a view of memory that was there before (a search-text chunk of a mebibyte), not a
    // buffer of its own: every other part is smaller than that.
    for (const part of parts) if (!texts.includes(part)) expect(part.buffer.byteLength).toBeLessThan(1 << 18);
    // And what they make restores the same captures.
    const again = new MessageIndex();
    again.restoreRange(Buffer.concat(parts), () => Number.POSITIVE_INFINITY);
    expect(again.size).toBe(8192);
  });

  it('is sealed a slice at a time with the pause between, and reads back whole', async ({ tempDir }) => {
    const payload = [Buffer.alloc(700_000, 7), Buffer.alloc(10, 1), Buffer.alloc(400_000, 9)];
    const file = { size: 123, mtimeMs: 456.5, ino: 789 };
    const checkpoint = {
      segmentSize: 8192,
      file,
      live: 2,
      dead: 1,
      maxSeq: 3,
      hasLines: true,
      slots: Uint32Array.from([0, 2]),
      offsets: Float64Array.from([0, 120]),
      lengths: Uint32Array.from([60, 3]),
    };
    let pauses = 0;
    const target = path.join(tempDir, 'seg-000000.idx');
    await writeCheckpoint(nodeFs, target, encodeSegmentCheckpoint({ ...checkpoint, payload }), async () => {
      pauses++;
    });
    // 1.1 MB in slices of 256 KiB: four pauses between five slices.
    expect(pauses).toBe(4);
    const bytes = await readFile(target);
    const read = decodeSegmentCheckpoint(bytes);
    expect(read.file).toEqual(file);
    expect([...read.slots]).toEqual([0, 2]);
    expect(read.payload.equals(Buffer.concat(payload))).toBe(true);
    // Without a pause (a clean stop's packs, a direct call) the same bytes, in one go.
    const unpaced = path.join(tempDir, 'seg-000001.idx');
    await writeCheckpoint(nodeFs, unpaced, encodeSegmentCheckpoint({ ...checkpoint, payload }));
    expect((await readFile(unpaced)).equals(bytes)).toBe(true);
    // One byte changed anywhere fails the checksum.
    bytes[800_000] = bytes[800_000]! ^ 1;
    expect(() => decodeSegmentCheckpoint(bytes)).toThrow(/checksum/);
  });
});
