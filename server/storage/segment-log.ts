import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Batch, Participant } from './flusher.ts';
import type { Fs } from './fs.ts';
import type { Quarantine } from './quarantine.ts';

/**
 * Segment files are lowdb's JSON documents, `{"records":[...]}`, written one record per line so
 * that a record can be read back by its byte range and new records appended without rewriting
 * the rest (docs/storage.md). A change appends the record's new version (the last line of a
 * sequence number wins); a deletion appends a tombstone `{"seq":N,"deleted":true}`. After every
 * completed write the file is a valid JSON document again. A segment is rewritten without its
 * dead lines once they outnumber the live ones, and deleted once nothing in it is live.
 */
const HEADER = '{"records":[\n';
const TRAILER = ']}\n';
const HEADER_BYTES = Buffer.from(HEADER);
const TRAILER_BYTES = Buffer.from(TRAILER);
/** The bytes an append overwrites at the end of a segment that has records: "\n]}\n". */
const TAIL_AFTER_RECORD = Buffer.from(`\n${TRAILER}`);
const EMPTY_SEGMENT = Buffer.concat([HEADER_BYTES, TRAILER_BYTES]);

interface Line {
  seq: number;
  /**
   * The record (its JSON is taken when the write starts, so later changes in place are
   * included); null for a tombstone.
   */
  record: object | null;
  /**
   * A new record whose owner rolls it back when its write fails (a capture answered 507 must
   * not come back). Other lines describe state kept in memory and are written again later.
   */
  volatile: boolean;
  onCommit?: () => void;
}

interface Tombstone {
  seq: number;
  deleted: true;
}

class Segment {
  handle: FileHandle | null = null;
  /** Whether `handle` was opened for writing (a read-only data directory opens files to read). */
  writable = false;
  /** A damaged file's good content, to be written as a clean file before anything is appended. */
  needsRewrite: Buffer | null = null;
  /** Everything in the file was deleted at once (clear): the next write starts the file afresh. */
  cleared = false;
  /** Bytes on disk. 0: the file does not exist yet. */
  size = 0;
  /** Whether the file holds at least one line after the header. */
  hasLines = false;
  live = 0;
  /** Lines that no longer count: superseded versions and tombstones. */
  dead = 0;
  pending: Line[] = [];
  /** Byte offset and length of each sequence number's live line (length 0: none). */
  readonly offsets: Float64Array;
  readonly lengths: Uint32Array;

  constructor(
    readonly index: number,
    readonly file: string,
    size: number,
  ) {
    this.offsets = new Float64Array(size);
    this.lengths = new Uint32Array(size);
  }
}

export interface SegmentLogOptions {
  /** The collection's folder. */
  dir: string;
  /** Sequence numbers per segment file. */
  segmentSize: number;
  fs: Fs;
  /** fdatasync every write (--fsync). */
  fsync: boolean;
  quarantine: Quarantine;
}

/** One collection's records on disk: append, replace, delete, read back by sequence number. */
export class SegmentLog<T extends { seq: number }> implements Participant {
  private readonly segments = new Map<number, Segment>();
  /** Lines not written yet, by sequence number (the newest one). */
  private readonly pendingBySeq = new Map<number, Line>();
  /** Segment files to delete with the next write (nothing live in them). */
  private readonly doomed = new Set<Segment>();
  private maxSeqSeen = 0;

  private constructor(private readonly options: SegmentLogOptions) {}

  /**
   * Opens the collection's folder, calling `onRecord` once for every live record in sequence
   * order. Damaged lines are set aside (Quarantine) and the segment rewritten without them;
   * a torn last line (a crash mid-append) is dropped.
   */
  static async open<T extends { seq: number }>(options: SegmentLogOptions, onRecord: (record: T) => void): Promise<SegmentLog<T>> {
    const log = new SegmentLog<T>(options);
    await options.fs.mkdir(options.dir);
    for (const index of await segmentIndexes(options.fs, options.dir)) await log.load(index, onRecord);
    return log;
  }

  get dir(): string {
    return this.options.dir;
  }

  /** The highest sequence number ever stored in this collection (as far as its files say). */
  get maxSeq(): number {
    return this.maxSeqSeen;
  }

  /** Bytes and files on disk, for the disk-usage figure. */
  get files(): number {
    let n = 0;
    for (const segment of this.segments.values()) if (segment.size > 0) n++;
    return n;
  }

  /**
   * Records whose state in memory differs from the file (their write failed, or none was made
   * yet). A line queued only to write the stored state back (a refused change undone) is not one.
   */
  async unsaved(): Promise<number> {
    let n = 0;
    for (const [seq, line] of this.pendingBySeq) {
      const segment = this.segments.get(this.indexOf(seq));
      const slot = seq % this.options.segmentSize;
      const length = segment?.lengths[slot] ?? 0;
      if (line.record === null) {
        if (length > 0) n++;
        continue;
      }
      const stored = length > 0 && segment?.handle ? await this.options.fs.readAt(segment.handle, segment.offsets[slot]!, length).catch(() => null) : null;
      if (stored === null || stored.toString('utf8') !== JSON.stringify(line.record)) n++;
    }
    return n;
  }

  /** Queues the record's current state for the next write. */
  put(record: T, options: { volatile?: boolean; onCommit?: () => void } = {}): void {
    this.queue({ seq: record.seq, record, volatile: options.volatile === true, onCommit: options.onCommit });
  }

  /**
   * Queues a tombstone: the record is gone for good once it is written. Volatile: dropped (not
   * written again) if its write fails, for a deletion that is undone in memory then.
   */
  delete(seq: number, options: { volatile?: boolean } = {}): void {
    this.queue({ seq, record: null, volatile: options.volatile === true });
  }

  /**
   * Forgets a record without writing anything (the request log's oldest entries): its line
   * stays until the whole segment is dropped, and start-up applies the cap again.
   */
  forget(seq: number): void {
    const segment = this.segments.get(this.indexOf(seq));
    if (!segment) return;
    const pending = this.pendingBySeq.get(seq);
    if (pending && segment.pending.includes(pending)) {
      // Not written yet: it never will be.
      segment.pending.splice(segment.pending.indexOf(pending), 1);
      this.pendingBySeq.delete(seq);
    }
    const slot = seq % this.options.segmentSize;
    if (segment.lengths[slot] === 0) return;
    segment.lengths[slot] = 0;
    segment.live--;
    segment.dead++;
    this.maybeDoom(segment);
  }

  /** Drops every segment file with the next write (clearing the whole collection). */
  clear(): void {
    this.pendingBySeq.clear();
    for (const segment of this.segments.values()) {
      segment.pending = [];
      segment.lengths.fill(0);
      segment.live = 0;
      segment.dead = 0;
      segment.needsRewrite = null;
      if (segment.size > 0) segment.cleared = true;
      this.maybeDoom(segment);
    }
  }

  /** The record as last put or as stored, or undefined when there is none. */
  async read(seq: number): Promise<T | undefined> {
    const pending = this.pendingBySeq.get(seq);
    if (pending) return pending.record === null ? undefined : (JSON.parse(JSON.stringify(pending.record)) as T);
    const segment = this.segments.get(this.indexOf(seq));
    if (!segment?.handle) return undefined;
    const slot = seq % this.options.segmentSize;
    const length = segment.lengths[slot]!;
    if (length === 0) return undefined;
    const bytes = await this.options.fs.readAt(segment.handle, segment.offsets[slot]!, length);
    return JSON.parse(bytes.toString('utf8')) as T;
  }

  /**
   * Several records, as `read` gives each: those on disk with one read per segment when their
   * lines lie together (a batch of the oldest captures, which retention deletes), else one each.
   */
  async readMany(seqs: readonly number[]): Promise<(T | undefined)[]> {
    const out = new Array<T | undefined>(seqs.length).fill(undefined);
    const bySegment = new Map<Segment, number[]>();
    for (const [i, seq] of seqs.entries()) {
      if (this.pendingBySeq.has(seq)) {
        out[i] = await this.read(seq);
        continue;
      }
      const segment = this.segments.get(this.indexOf(seq));
      if (!segment?.handle || segment.lengths[seq % this.options.segmentSize] === 0) continue;
      const group = bySegment.get(segment) ?? [];
      group.push(i);
      bySegment.set(segment, group);
    }
    for (const [segment, group] of bySegment) {
      const { segmentSize } = this.options;
      let from = Number.POSITIVE_INFINITY;
      let to = 0;
      let bytes = 0;
      for (const i of group) {
        const slot = seqs[i]! % segmentSize;
        from = Math.min(from, segment.offsets[slot]!);
        to = Math.max(to, segment.offsets[slot]! + segment.lengths[slot]!);
        bytes += segment.lengths[slot]!;
      }
      if (group.length === 1 || to - from > 2 * bytes + 64 * 1024) {
        for (const i of group) out[i] = await this.read(seqs[i]!);
        continue;
      }
      const span = await this.options.fs.readAt(segment.handle!, from, to - from);
      for (const i of group) {
        const slot = seqs[i]! % segmentSize;
        const at = segment.offsets[slot]! - from;
        out[i] = JSON.parse(span.toString('utf8', at, at + segment.lengths[slot]!)) as T;
      }
    }
    return out;
  }

  /** Whether a record with this sequence number is stored (or about to be). */
  has(seq: number): boolean {
    const pending = this.pendingBySeq.get(seq);
    if (pending) return pending.record !== null;
    const segment = this.segments.get(this.indexOf(seq));
    return segment !== undefined && segment.lengths[seq % this.options.segmentSize]! > 0;
  }

  /**
   * Segments whose dead lines outnumber the live ones: worth rewriting. Records deleted from a
   * segment's oldest end do not count (the two lines, record and tombstone, of every slot below
   * its first live one): retention empties segments that way, and such a segment is deleted whole
   * once empty, while rewriting it on the way copied each of its records up to twice (with
   * 8,192 per segment at the default retention cap, a record's worth of bytes per capture pruned).
   * Superseded versions and deletions elsewhere still count, so no segment grows without bound.
   */
  compactionCandidates(): number[] {
    const out: number[] = [];
    for (const segment of this.segments.values()) {
      if (segment.pending.length > 0 || segment.live === 0 || segment.dead < 64 || segment.dead <= segment.live) continue;
      let first = 0;
      while (first < this.options.segmentSize && segment.lengths[first] === 0) first++;
      if (segment.dead - 2 * first > segment.live) out.push(segment.index);
    }
    return out;
  }

  /**
   * Rewrites a segment with only its live lines (atomically: a new file renamed over the old).
   * Run with nothing else writing (Flusher.exclusive).
   */
  async compact(index: number): Promise<void> {
    const segment = this.segments.get(index);
    if (!segment?.handle || segment.pending.length > 0) return;
    const { fs, fsync } = this.options;
    // One read of the file, not one per live line (a segment holds thousands).
    const old = await fs.readAt(segment.handle, 0, segment.size);
    const parts: Buffer[] = [HEADER_BYTES];
    const moves: [slot: number, offset: number][] = [];
    let at = HEADER_BYTES.length;
    for (let slot = 0; slot < this.options.segmentSize; slot++) {
      const length = segment.lengths[slot]!;
      if (length === 0) continue;
      const bytes = old.subarray(segment.offsets[slot]!, segment.offsets[slot]! + length);
      if (moves.length > 0) {
        parts.push(Buffer.from(',\n'));
        at += 2;
      }
      parts.push(bytes);
      moves.push([slot, at]);
      at += length;
    }
    parts.push(moves.length > 0 ? TAIL_AFTER_RECORD : TRAILER_BYTES);
    const content = Buffer.concat(parts);
    const temp = `${segment.file}.tmp`;
    const handle = await fs.open(temp, 'w+');
    try {
      await fs.writeAt(handle, [content], 0);
      if (fsync) await handle.datasync();
      await fs.rename(temp, segment.file);
    } catch (error) {
      await handle.close().catch(() => undefined);
      await fs.unlink(temp).catch(() => undefined);
      throw error;
    }
    if (fsync) await syncDir(fs, this.options.dir);
    const replaced = segment.handle;
    segment.handle = handle;
    segment.writable = true;
    segment.size = content.length;
    segment.hasLines = moves.length > 0;
    segment.dead = 0;
    for (const [slot, offset] of moves) segment.offsets[slot] = offset;
    await replaced.close().catch(() => undefined);
  }

  /**
   * After the data directory (or this folder) was removed under the running server: writes
   * every segment back from the files still open, so nothing acknowledged is lost.
   */
  async restore(): Promise<number> {
    const { fs } = this.options;
    await fs.mkdir(this.options.dir);
    let restored = 0;
    for (const segment of this.segments.values()) {
      if (!segment.handle) continue;
      const present = await fs.stat(segment.file);
      const current = await segment.handle.stat();
      if (present && present.ino === current.ino && current.nlink > 0) continue;
      const content = await fs.readAt(segment.handle, 0, segment.size);
      const handle = await fs.open(segment.file, 'w+');
      await fs.writeAt(handle, [content], 0);
      await segment.handle.close().catch(() => undefined);
      segment.handle = handle;
      segment.writable = true;
      restored++;
    }
    return restored;
  }

  /** Whether any file this log writes has lost its name (deleted under the running server). */
  async lostFiles(): Promise<boolean> {
    for (const segment of this.segments.values()) {
      if (segment.handle && (await segment.handle.stat()).nlink === 0) return true;
    }
    return false;
  }

  async close(): Promise<void> {
    for (const segment of this.segments.values()) {
      await segment.handle?.close().catch(() => undefined);
      segment.handle = null;
    }
  }

  begin(): Batch | null {
    const writes: SegmentWrite[] = [];
    for (const segment of this.segments.values()) {
      if (segment.pending.length === 0) continue;
      writes.push(new SegmentWrite(segment, segment.pending));
      segment.pending = [];
    }
    const deletes = this.doomed.size > 0 || writes.some((w) => w.lines.some((line) => line.record === null));
    if (writes.length === 0 && !deletes) return null;
    return new SegmentBatch(this, writes, deletes);
  }

  /** @internal segments to delete now: nothing in them is live or waiting to be written. */
  takeDoomed(): Segment[] {
    const doomed = [...this.doomed].filter((s) => s.live === 0 && s.pending.length === 0);
    this.doomed.clear();
    return doomed;
  }

  /** @internal the batch's view of this log. */
  options_(): SegmentLogOptions {
    return this.options;
  }

  /** @internal a line was written: it is where reads find the record now. */
  committed(segment: Segment, line: Line, offset: number, length: number): void {
    const slot = line.seq % this.options.segmentSize;
    const had = segment.lengths[slot]! > 0;
    if (had) segment.dead++;
    if (line.record === null) {
      segment.dead++;
      segment.lengths[slot] = 0;
      if (had) segment.live--;
    } else {
      segment.offsets[slot] = offset;
      segment.lengths[slot] = length;
      if (!had) segment.live++;
    }
    if (this.pendingBySeq.get(line.seq) === line) this.pendingBySeq.delete(line.seq);
    line.onCommit?.();
    this.maybeDoom(segment);
  }

  /**
   * @internal A write failed: lines describing state kept in memory go back in the queue;
   * volatile ones (new records, deletions the caller undoes) are dropped.
   */
  aborted(segment: Segment, lines: Line[]): void {
    for (const line of lines) if (line.volatile && this.pendingBySeq.get(line.seq) === line) this.pendingBySeq.delete(line.seq);
    const again: Line[] = [];
    for (const line of lines) {
      if (line.volatile) continue;
      const newest = this.pendingBySeq.get(line.seq);
      // A newer line for the same record was queued while this one was being written.
      if (newest !== undefined && newest !== line && segment.pending.includes(newest)) continue;
      again.push(line);
      this.pendingBySeq.set(line.seq, line);
    }
    segment.pending = [...again, ...segment.pending];
  }

  /** @internal a file that was to be deleted is looked at again with the next write. */
  requeueDoomed(segment: Segment): void {
    this.maybeDoom(segment);
  }

  /** @internal a segment file was deleted. */
  dropped(segment: Segment): void {
    if (segment.live === 0 && segment.pending.length === 0) this.segments.delete(segment.index);
  }

  private queue(line: Line): void {
    if (line.seq > this.maxSeqSeen) this.maxSeqSeen = line.seq;
    const segment = this.segmentFor(line.seq);
    const previous = this.pendingBySeq.get(line.seq);
    if (previous && segment.pending.includes(previous) && (previous.volatile === line.volatile || (previous.volatile && previous.record !== null))) {
      // Not written yet: the newer state replaces it in place (a new record stays new).
      previous.record = line.record;
      if (line.onCommit) {
        const first = previous.onCommit;
        const second = line.onCommit;
        previous.onCommit = first
          ? () => {
              first();
              second();
            }
          : second;
      }
      if (line.record === null && previous.volatile && previous.record !== null) {
        // A record deleted before it was ever written: nothing to write at all.
        segment.pending.splice(segment.pending.indexOf(previous), 1);
        this.pendingBySeq.delete(line.seq);
      }
      return;
    }
    segment.pending.push(line);
    this.pendingBySeq.set(line.seq, line);
    this.doomed.delete(segment);
  }

  private maybeDoom(segment: Segment): void {
    if (segment.live === 0 && segment.pending.length === 0 && segment.size > 0) this.doomed.add(segment);
  }

  private indexOf(seq: number): number {
    return Math.floor(seq / this.options.segmentSize);
  }

  private segmentFor(seq: number): Segment {
    const index = this.indexOf(seq);
    let segment = this.segments.get(index);
    if (!segment) {
      segment = new Segment(index, this.fileOf(index), this.options.segmentSize);
      this.segments.set(index, segment);
    }
    return segment;
  }

  private fileOf(index: number): string {
    return path.join(this.options.dir, segmentFileName(index));
  }

  private async load(index: number, onRecord: (record: T) => void): Promise<void> {
    const { fs, quarantine, segmentSize } = this.options;
    const file = this.fileOf(index);
    const bytes = await fs.readFile(file);
    if (bytes.length === 0) {
      // Created by a write that never got further: nothing was ever stored in it.
      await fs.unlink(file).catch(() => undefined);
      return;
    }
    const segment = new Segment(index, file, segmentSize);
    /** Byte ranges of the earlier versions of a record, in case its last line does not parse. */
    const earlier = new Map<number, [offset: number, length: number][]>();
    const damaged: Buffer[] = [];
    let damagedLines = 0;
    /** Sets the line at `at` aside (with its comma and newline). */
    const setAside = (at: number) => {
      const newline = bytes.indexOf(0x0a, at);
      damaged.push(bytes.subarray(at, newline < 0 ? bytes.length : newline + 1));
      damagedLines++;
    };
    let clean = bytes.subarray(0, HEADER_BYTES.length).equals(HEADER_BYTES);
    let trailer = false;
    let torn: Buffer | null = null;
    if (!clean) {
      damaged.push(bytes);
      damagedLines = countLines(bytes);
    } else {
      // First the lines' sequence numbers, read from how this log writes them (no parse), so
      // that only the last version of each record is parsed, below.
      let at = HEADER_BYTES.length;
      while (at < bytes.length) {
        const newline = bytes.indexOf(0x0a, at);
        const end = newline < 0 ? bytes.length : newline;
        if (end - at === 2 && bytes[at] === 0x5d && bytes[at + 1] === 0x7d && (newline < 0 || newline === bytes.length - 1)) {
          trailer = true;
          break;
        }
        const jsonLength = end - at - (end > at && bytes[end - 1] === 0x2c ? 1 : 0);
        let line = newline < 0 ? null : peekLine(bytes, at, jsonLength);
        if (line === null) {
          // Written otherwise, damaged, or the last line without its newline: parsed to know.
          const parsed = parseLine(bytes.toString('utf8', at, at + jsonLength));
          if (parsed === null) {
            if (newline < 0) torn = bytes.subarray(at, end);
            else setAside(at);
            at = end + 1;
            continue;
          }
          line = { seq: parsed.seq, deleted: 'deleted' in parsed && parsed.deleted === true };
        }
        const { seq } = line;
        if (seq > this.maxSeqSeen) this.maxSeqSeen = seq;
        if (Math.floor(seq / segmentSize) !== index) {
          setAside(at);
          at = end + 1;
          continue;
        }
        const slot = seq % segmentSize;
        if (segment.lengths[slot]! > 0) {
          segment.dead++;
          if (!line.deleted) {
            const versions = earlier.get(slot) ?? [];
            versions.push([segment.offsets[slot]!, segment.lengths[slot]!]);
            earlier.set(slot, versions);
          }
        }
        if (line.deleted) {
          segment.dead++;
          segment.lengths[slot] = 0;
          earlier.delete(slot);
        } else {
          segment.offsets[slot] = at;
          segment.lengths[slot] = jsonLength;
        }
        at = end + 1;
      }
      if (!trailer) clean = false;
    }
    // Then each live record, parsed and handed over one at a time (a segment holds thousands:
    // they are not all kept until the last one is read). A last version that does not parse is
    // set aside and the version before it, if one parses, is the record.
    let live = 0;
    for (let slot = 0; slot < segmentSize; slot++) {
      if (segment.lengths[slot] === 0) continue;
      const seq = index * segmentSize + slot;
      let parsed: ReturnType<typeof parseLine> = null;
      for (;;) {
        const offset = segment.offsets[slot]!;
        parsed = parseLine(bytes.toString('utf8', offset, offset + segment.lengths[slot]!));
        if (parsed !== null && parsed.seq === seq) break;
        parsed = null;
        setAside(offset);
        const previous = earlier.get(slot)?.pop();
        if (!previous) break;
        [segment.offsets[slot], segment.lengths[slot]] = previous;
      }
      if (parsed === null || ('deleted' in parsed && parsed.deleted === true)) {
        segment.lengths[slot] = 0;
        continue;
      }
      live++;
      onRecord(parsed as T);
    }
    if (damaged.length > 0) await quarantine.keep(file, Buffer.concat(damaged), damagedLines, 'damaged lines that do not parse');
    // Kept, not thrown away: after a crash mid-append it is a record nobody was answered for, but
    // a file cut short by other means (a copy, a full disk outside the server) loses records
    // that were, and the partial line is all that is left of them.
    if (torn)
      await quarantine.keep(
        file,
        torn,
        torn[0] === 0x7b ? 1 : 0,
        'a torn last line (a write cut short, by a crash or otherwise) was dropped; records after it, if any, are not in the file',
      );
    segment.live = live;
    this.segments.set(index, segment);
    await openSegment(fs, segment);
    segment.size = bytes.length;
    segment.hasLines = bytes.length > EMPTY_SEGMENT.length;
    if (!clean || damaged.length > 0 || torn) {
      // Rewrite the good lines as a clean file, so appends land after whole lines again (on a
      // read-only file system: before the first append, once it can be written).
      segment.needsRewrite = bytes;
      await this.rewriteFrom(segment).catch(() => undefined);
    }
    if (segment.live === 0) this.maybeDoom(segment);
  }

  /** Replaces a damaged segment's file with its live lines, taken from its old content. */
  async rewriteFrom(segment: Segment): Promise<void> {
    const bytes = segment.needsRewrite;
    if (!bytes) return;
    const { fs } = this.options;
    const parts: Buffer[] = [HEADER_BYTES];
    let at = HEADER_BYTES.length;
    let count = 0;
    for (let slot = 0; slot < this.options.segmentSize; slot++) {
      const length = segment.lengths[slot]!;
      if (length === 0) continue;
      if (count > 0) {
        parts.push(Buffer.from(',\n'));
        at += 2;
      }
      parts.push(bytes.subarray(segment.offsets[slot]!, segment.offsets[slot]! + length));
      segment.offsets[slot] = at;
      at += length;
      count++;
    }
    parts.push(count > 0 ? TAIL_AFTER_RECORD : TRAILER_BYTES);
    const content = Buffer.concat(parts);
    const temp = `${segment.file}.tmp`;
    await fs.writeFile(temp, content);
    await fs.rename(temp, segment.file);
    await segment.handle?.close().catch(() => undefined);
    segment.handle = null;
    await openSegment(fs, segment);
    segment.size = content.length;
    segment.hasLines = count > 0;
    segment.dead = 0;
    segment.needsRewrite = null;
  }
}

/** The file name of segment `index` (which holds sequence numbers index * size to (index + 1) * size - 1). */
export function segmentFileName(index: number): string {
  return `seg-${String(index).padStart(6, '0')}.json`;
}

/** The numbers of the segment files in a folder, in order. */
export async function segmentIndexes(fs: Fs, dir: string): Promise<number[]> {
  return (await fs.readdir(dir))
    .map((name) => /^seg-(\d+)\.json$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Opens a segment to read and write, or only to read where the file system refuses writes. */
async function openSegment(fs: Fs, segment: Segment): Promise<void> {
  try {
    segment.handle = await fs.open(segment.file, 'r+');
    segment.writable = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM') throw error;
    segment.handle = await fs.open(segment.file, 'r');
    segment.writable = false;
  }
}

/** One segment's share of a group commit: its queued lines, appended in one write. */
class SegmentWrite {
  /** Where the write started and what it overwrote there, to undo it. */
  private undo: { position: number; restore: Buffer; created: boolean } | null = null;
  private placed: [line: Line, offset: number, length: number][] = [];

  constructor(
    readonly segment: Segment,
    readonly lines: Line[],
  ) {}

  async write(log: SegmentLog<{ seq: number }>): Promise<FileHandle> {
    const { fs, fsync } = log.options_();
    const segment = this.segment;
    if (segment.needsRewrite) await log.rewriteFrom(segment);
    let created = false;
    if (segment.cleared && segment.handle) {
      // Its old lines were all deleted: start the file again rather than append after them.
      if (!segment.writable) {
        const handle = await fs.open(segment.file, 'r+');
        await segment.handle.close().catch(() => undefined);
        segment.handle = handle;
        segment.writable = true;
      }
      await segment.handle.truncate(0);
      segment.size = 0;
      segment.hasLines = false;
      segment.cleared = false;
    }
    if (!segment.handle || segment.size === 0) {
      if (!segment.handle || !segment.writable) {
        await segment.handle?.close().catch(() => undefined);
        segment.handle = await fs.open(segment.file, 'w+');
        segment.writable = true;
      }
      created = true;
    } else if (!segment.writable) {
      const handle = await fs.open(segment.file, 'r+');
      await segment.handle.close().catch(() => undefined);
      segment.handle = handle;
      segment.writable = true;
    }
    const base = created ? 0 : segment.hasLines ? segment.size - TAIL_AFTER_RECORD.length : segment.size - TRAILER_BYTES.length;
    let text = created ? HEADER : '';
    let offset = base + (created ? HEADER_BYTES.length : 0);
    let first = !segment.hasLines;
    this.placed = [];
    for (const line of this.lines) {
      const json = JSON.stringify(line.record ?? ({ seq: line.seq, deleted: true } satisfies Tombstone));
      const separator = first ? '' : ',\n';
      text += separator + json;
      offset += Buffer.byteLength(separator);
      const length = Buffer.byteLength(json);
      this.placed.push([line, offset, length]);
      offset += length;
      first = false;
    }
    text += `\n${TRAILER}`;
    const buffer = Buffer.from(text);
    this.undo = {
      position: base,
      created,
      restore: created ? Buffer.alloc(0) : segment.hasLines ? TAIL_AFTER_RECORD : TRAILER_BYTES,
    };
    await fs.writeAt(segment.handle, [buffer], base);
    if (fsync) await segment.handle.datasync();
    return segment.handle;
  }

  /** Puts the file back as it was before this write (truncation needs no free space). */
  async revert(fs: Fs): Promise<void> {
    const { segment, undo } = this;
    if (!undo || !segment.handle) return;
    if (undo.created) {
      await segment.handle.truncate(0);
      return;
    }
    await segment.handle.truncate(undo.position + undo.restore.length);
    await fs.writeAt(segment.handle, [undo.restore], undo.position);
  }

  commit(log: SegmentLog<{ seq: number }>, size: number): void {
    this.segment.size = size;
    this.segment.hasLines = true;
    for (const [line, offset, length] of this.placed) log.committed(this.segment, line, offset, length);
  }

  /** The file's size once this write is in. */
  endOf(): number {
    const last = this.placed.at(-1);
    return last ? last[1] + last[2] + TAIL_AFTER_RECORD.length : this.segment.size;
  }
}

class SegmentBatch implements Batch {
  private written: SegmentWrite[] = [];
  private ends = new Map<SegmentWrite, number>();

  constructor(
    private readonly log: SegmentLog<{ seq: number }>,
    private readonly writes: SegmentWrite[],
    /** Files will be deleted (some are already empty, or tombstones may empty them). */
    readonly deletes: boolean,
  ) {}

  get path(): string {
    return this.log.dir;
  }

  async write(): Promise<FileHandle[]> {
    const handles: FileHandle[] = [];
    this.written = [];
    for (const write of this.writes) {
      handles.push(await write.write(this.log));
      this.written.push(write);
      this.ends.set(write, write.endOf());
    }
    return handles;
  }

  /**
   * Deletes the segment files nothing lives in any more, including those this batch's
   * tombstones just emptied (meta.json, written earlier in the cycle, keeps the counters).
   */
  async unlink(): Promise<void> {
    if (!this.deletes) return;
    const { fs } = this.log.options_();
    const doomed = this.log.takeDoomed();
    for (const [at, segment] of doomed.entries()) {
      if (segment.live > 0 || segment.pending.length > 0) continue;
      try {
        await fs.unlink(segment.file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          for (const rest of doomed.slice(at)) this.log.requeueDoomed(rest);
          throw error;
        }
      }
      await segment.handle?.close().catch(() => undefined);
      segment.handle = null;
      segment.size = 0;
      segment.hasLines = false;
      segment.dead = 0;
      this.log.dropped(segment);
    }
  }

  async revert(): Promise<void> {
    for (const write of this.written.reverse()) await write.revert(this.log.options_().fs).catch(() => undefined);
  }

  commit(): void {
    for (const write of this.writes) write.commit(this.log, this.ends.get(write)!);
  }

  abort(): void {
    for (const write of this.writes) this.log.aborted(write.segment, write.lines);
  }
}

const SEQ_PREFIX = Buffer.from('{"seq":');
const TOMBSTONE_TAIL = Buffer.from(',"deleted":true}');

/**
 * A line as this log writes it, read without parsing it: a record whose first field is its
 * sequence number (`{"seq":N,...}`) or a tombstone (`{"seq":N,"deleted":true}`). Null for any
 * other line, which is then parsed. (A record line damaged after its sequence number is found
 * when it is parsed, as the last version of its record; as an earlier one it is never read, and
 * goes with the segment's next rewrite.)
 */
function peekLine(bytes: Buffer, at: number, length: number): { seq: number; deleted: boolean } | null {
  const end = at + length;
  if (length < SEQ_PREFIX.length + 2 || bytes[end - 1] !== 0x7d || bytes.compare(SEQ_PREFIX, 0, SEQ_PREFIX.length, at, at + SEQ_PREFIX.length) !== 0)
    return null;
  const digits = at + SEQ_PREFIX.length;
  let i = digits;
  let seq = 0;
  while (i < end && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) seq = seq * 10 + (bytes[i++]! - 0x30);
  if (i === digits || i - digits > 15 || (bytes[digits] === 0x30 && i - digits > 1)) return null;
  if (bytes[i] === 0x7d) return i === end - 1 ? { seq, deleted: false } : null;
  if (bytes[i] !== 0x2c) return null;
  const deleted = end - i === TOMBSTONE_TAIL.length && bytes.compare(TOMBSTONE_TAIL, 0, TOMBSTONE_TAIL.length, i, end) === 0;
  return { seq, deleted };
}

function parseLine(text: string): (Record<string, unknown> & { seq: number }) | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || !Number.isSafeInteger((value as { seq?: unknown }).seq)) return null;
    return value as Record<string, unknown> & { seq: number };
  } catch {
    return null;
  }
}

function countLines(bytes: Buffer): number {
  let n = 0;
  for (let at = bytes.indexOf(0x0a); at >= 0; at = bytes.indexOf(0x0a, at + 1)) n++;
  return Math.max(1, n - 1);
}

/** fsync on a folder makes a rename in it durable. */
export async function syncDir(fs: Fs, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
