import path from 'node:path';
import type { Batch, Participant } from '../disk/flusher.ts';
import { syncDir, type Fs } from '../disk/fs.ts';
import type { Quarantine } from '../disk/quarantine.ts';
import { applyCheckpoint, type CheckpointRows, type ReadCheckpoint, readCheckpoint, saveCheckpoint } from './segment-checkpoints.ts';
import { EMPTY_SEGMENT, HEADER_BYTES, openFile, Segment, TAIL_AFTER_RECORD, TRAILER_BYTES, type Line, parseSegmentFile } from './segment-file.ts';
import { SegmentBatch, SegmentWrite } from './segment-write.ts';

/**
 * Segment files are lowdb's JSON documents, `{"records":[...]}`, written one record per line so
 * that a record can be read back by its byte range and new records appended without rewriting
 * the rest (docs/storage.md). A change appends the record's new version (the last line of a
 * sequence number wins); a deletion appends a tombstone `{"seq":N,"deleted":true}`. After every
 * completed write the file is a valid JSON document again. A segment is rewritten without its
 * dead lines once they outnumber the live ones, and deleted once nothing in it is live.
 */
/** Checkpoints read ahead of the one being applied at start-up. */
const CHECKPOINTS_AHEAD = 4;

/** Why start-up read segment files instead of their checkpoints (none: all came from checkpoints). */
export interface CheckpointUse {
  restored: number;
  /** No checkpoint (a new segment, or checkpoints were never taken here). */
  missing: number;
  /** The file changed after its checkpoint was taken. */
  old: number;
  /** The checkpoint failed its checksum or could not be read. */
  damaged: number;
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
  /** Checkpoints of the owner's rows per segment; without it every start reads every file. */
  checkpoint?: CheckpointRows;
}

/** One collection's records on disk: append, replace, delete, read back by sequence number. */
export class SegmentLog<T extends { seq: number }> implements Participant {
  private readonly segments = new Map<number, Segment>();
  /** Lines not written yet, by sequence number (the newest one). */
  private readonly pendingBySeq = new Map<number, Line>();
  /** Segment files to delete with the next write (nothing live in them). */
  private readonly doomed = new Set<Segment>();
  private maxSeqSeen = 0;
  /** How start-up loaded the segments (with checkpoints). */
  readonly checkpointUse: CheckpointUse = { restored: 0, missing: 0, old: 0, damaged: 0 };

  private constructor(private readonly options: SegmentLogOptions) {}

  /**
   * Opens the collection's folder, calling `onRecord` once for every live record in sequence
   * order. Damaged lines are set aside (Quarantine) and the segment rewritten without them;
   * a torn last line (a crash mid-append) is dropped.
   */
  static async open<T extends { seq: number }>(options: SegmentLogOptions, onRecord: (record: T) => void): Promise<SegmentLog<T>> {
    const log = new SegmentLog<T>(options);
    await options.fs.mkdir(options.dir);
    const names = await options.fs.readdir(options.dir);
    const indexes = segmentIndexesIn(names);
    // Checkpoints are read a few segments ahead (the reads overlap; at most that many are held
    // at once) and applied in order, since rows arrive in sequence order.
    const ahead: (Promise<ReadCheckpoint | null> | undefined)[] = [];
    const readAhead = (i: number) => {
      if (i >= indexes.length) return;
      const read = log.readCheckpoint(indexes[i]!);
      // Awaited in turn below; a start-up that fails before it must not also report it unhandled.
      read.catch(() => undefined);
      ahead[i] = read;
    };
    for (let i = 0; i < CHECKPOINTS_AHEAD; i++) readAhead(i);
    for (const [i, index] of indexes.entries()) {
      const read = await ahead[i];
      ahead[i] = undefined;
      readAhead(i + CHECKPOINTS_AHEAD);
      if (!(read && (await log.applyCheckpoint(read)))) await log.load(index, onRecord);
    }
    // Checkpoints of segment files no longer there (deleted while the server was down), and
    // ones cut off by a stop in the middle of their write.
    for (const name of names) {
      const index = /^seg-(\d+)\.idx(\.tmp)?$/.exec(name);
      if (index && (index[2] || !indexes.includes(Number(index[1])))) await options.fs.unlink(path.join(options.dir, name)).catch(() => undefined);
    }
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
    if (pending) {
      this.pendingBySeq.delete(seq);
      if (segment.pending.includes(pending)) {
        // Not written yet: it never will be.
        segment.pending.splice(segment.pending.indexOf(pending), 1);
      } else {
        // Being written right now, by a group commit that took it before its owner heard that
        // its own write failed (a refused send's new recipient): a failed write drops it
        // instead of queuing it again, and one that succeeds is followed by its tombstone.
        pending.volatile = true;
        const committed = pending.onCommit;
        pending.onCommit = () => {
          committed?.();
          this.delete(seq);
        };
      }
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
      this.changed(segment);
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

  /**
   * The record of the line queued for this sequence number and not written yet: the very object
   * put (changes made to it in place are written with it); null for a deletion; undefined when
   * nothing is queued.
   */
  queued(seq: number): T | null | undefined {
    return this.pendingBySeq.get(seq)?.record as T | null | undefined;
  }

  /**
   * The record as stored, read by its byte range synchronously (for a caller that cannot wait,
   * such as a lookup inside a send), with its line's length; undefined when none is stored.
   * Lines queued and not written yet are not looked at (see queued).
   */
  readStoredSync(seq: number): { record: T; bytes: number } | undefined {
    const segment = this.segments.get(this.indexOf(seq));
    if (!segment?.handle) return undefined;
    const slot = seq % this.options.segmentSize;
    const length = segment.lengths[slot]!;
    if (length === 0) return undefined;
    const bytes = this.options.fs.readAtSync(segment.handle, segment.offsets[slot]!, length);
    return { record: JSON.parse(bytes.toString('utf8')) as T, bytes: length };
  }

  /** The length in bytes of the record's stored line (0: none stored yet). */
  storedBytes(seq: number): number {
    return this.segments.get(this.indexOf(seq))?.lengths[seq % this.options.segmentSize] ?? 0;
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
    this.changed(segment);
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
      // Swapped before the old one is closed: a synchronous read may come in between.
      const old = segment.handle;
      segment.handle = handle;
      segment.writable = true;
      this.changed(segment);
      await old.close().catch(() => undefined);
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
    const tombstones = writes.some((w) => w.lines.some((line) => line.record === null));
    // Files go once nothing in them lives: those already empty, and those these tombstones empty.
    const unlinks = this.doomed.size > 0 || writes.some((w) => this.empties(w));
    if (writes.length === 0 && !unlinks) return null;
    return new SegmentBatch(this, writes, unlinks || tombstones, unlinks);
  }

  /** Whether a write leaves its segment with nothing live (only tombstones, as many as it has live lines, or more). */
  private empties({ segment, lines }: SegmentWrite): boolean {
    let dying = 0;
    for (const line of lines) {
      if (line.record !== null) return false;
      if (segment.lengths[line.seq % this.options.segmentSize]! > 0) dying++;
    }
    return dying >= segment.live;
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
    this.changed(segment);
    if (line.seq > segment.maxSeq) segment.maxSeq = line.seq;
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

  /** @internal opens a segment's file for writing (it was opened to read), swapping the handle before closing the old. */
  async reopenWritable(segment: Segment): Promise<void> {
    const handle = await this.options.fs.open(segment.file, 'r+');
    const old = segment.handle;
    segment.handle = handle;
    segment.writable = true;
    await old?.close().catch(() => undefined);
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

  /** The file changed: its checkpoint (if any) no longer describes it. */
  changed(segment: Segment): void {
    segment.changes++;
    segment.changedAt = Date.now();
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
    const { damaged, damagedLines, clean, torn } = parseSegmentFile<T>(bytes, segment, onRecord);
    if (segment.maxSeq > this.maxSeqSeen) this.maxSeqSeen = segment.maxSeq;
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
    this.segments.set(index, segment);
    const opened = await openFile(fs, file);
    segment.handle = opened.handle;
    segment.writable = opened.writable;
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

  /** Segment `index`'s checkpoint when there is one that describes the file as it is. */
  private readCheckpoint(index: number): Promise<ReadCheckpoint | null> {
    return readCheckpoint(this.options, new Segment(index, this.fileOf(index), this.options.segmentSize), this.checkpointUse);
  }

  /** Takes a segment from its checkpoint; false (having changed nothing) when the file must be read instead. */
  private async applyCheckpoint(read: ReadCheckpoint): Promise<boolean> {
    if (!(await applyCheckpoint(this.options.checkpoint!, read, this.checkpointUse))) return false;
    const { segment } = read;
    if (segment.maxSeq > this.maxSeqSeen) this.maxSeqSeen = segment.maxSeq;
    this.segments.set(segment.index, segment);
    if (segment.live === 0) this.maybeDoom(segment);
    return true;
  }

  /**
   * Segments whose checkpoint is missing or older than the file and that have not changed for
   * `quietMs` (the one being appended to changes all the time: replaying it is cheap).
   */
  staleCheckpoints(quietMs: number, now = Date.now()): number[] {
    if (!this.options.checkpoint) return [];
    const out: number[] = [];
    for (const segment of this.segments.values()) {
      if (segment.checkpointed === segment.changes || segment.size === 0 || segment.handle === null) continue;
      if (now - segment.changedAt >= quietMs) out.push(segment.index);
    }
    return out.sort((a, b) => a - b);
  }

  /**
   * Takes segment `index`'s checkpoint, with nothing writing (`exclusive`), and writes it beside
   * the file. False when there is nothing consistent to save now (lines waiting to be written, a
   * change not settled).
   */
  async saveCheckpoint(index: number, exclusive: <R>(task: () => Promise<R>) => Promise<R>): Promise<boolean> {
    const segment = this.segments.get(index);
    if (!this.options.checkpoint || !segment) return false;
    return saveCheckpoint(this.options, segment, exclusive, () => this.segments.get(index) === segment);
  }

  /** Replaces a damaged segment's file with its live lines, taken from its old content. */
  async rewriteFrom(segment: Segment): Promise<void> {
    const bytes = segment.needsRewrite;
    if (!bytes) return;
    const { fs } = this.options;
    const parts: Buffer[] = [HEADER_BYTES];
    // Where each line will be: the old places stay in use until the new file is open (a
    // synchronous read may come between the awaits below).
    const offsets = new Float64Array(segment.offsets.length);
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
      offsets[slot] = at;
      at += length;
      count++;
    }
    parts.push(count > 0 ? TAIL_AFTER_RECORD : TRAILER_BYTES);
    const content = Buffer.concat(parts);
    const temp = `${segment.file}.tmp`;
    await fs.writeFile(temp, content);
    await fs.rename(temp, segment.file);
    const old = segment.handle;
    const opened = await openFile(fs, segment.file);
    // The new file and where its lines are, in one step.
    segment.handle = opened.handle;
    segment.writable = opened.writable;
    segment.offsets.set(offsets);
    await old?.close().catch(() => undefined);
    segment.size = content.length;
    segment.hasLines = count > 0;
    segment.dead = 0;
    segment.needsRewrite = null;
    this.changed(segment);
  }
}

/** The file name of segment `index` (which holds sequence numbers index * size to (index + 1) * size - 1). */
export function segmentFileName(index: number): string {
  return `seg-${String(index).padStart(6, '0')}.json`;
}

/** The numbers of the segment files among a folder's names, in order. */
function segmentIndexesIn(names: readonly string[]): number[] {
  return names
    .map((name) => /^seg-(\d+)\.json$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The numbers of the segment files in a folder, in order. */
export async function segmentIndexes(fs: Fs, dir: string): Promise<number[]> {
  return segmentIndexesIn(await fs.readdir(dir));
}
