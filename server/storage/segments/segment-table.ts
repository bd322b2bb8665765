import path from 'node:path';
import { AppendBuffer } from '../disk/append-buffer.ts';
import type { Fs } from '../disk/fs.ts';
import type { Quarantine } from '../disk/quarantine.ts';
import type { CheckpointRows } from './segment-checkpoints.ts';
import { EMPTY_SEGMENT, type Line, openFile, parseSegmentFile, Segment, segmentFileName } from './segment-file.ts';
import { rewriteSegment } from './segment-rewrite.ts';

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

/**
 * A segment log's files as it keeps them in memory: each segment's table, the lines queued and
 * not written yet, the files to delete with the next write. The log (segment-log.ts) reads and
 * queues through it; a group commit's writes (segment-write.ts) tell it what reached the disk.
 */
export class SegmentTable {
  readonly segments = new Map<number, Segment>();
  /** Lines not written yet, by sequence number (the newest one). */
  readonly pendingBySeq = new Map<number, Line>();
  /** Segment files to delete with the next write (nothing live in them). */
  readonly doomed = new Set<Segment>();
  /** The highest sequence number ever stored in this collection (as far as its files say). */
  maxSeq = 0;

  /** Where this log's appends are encoded (segment-write.ts). */
  readonly append = new AppendBuffer();

  constructor(readonly options: SegmentLogOptions) {}

  queue(line: Line): void {
    if (line.seq > this.maxSeq) this.maxSeq = line.seq;
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

  maybeDoom(segment: Segment): void {
    if (segment.live === 0 && segment.pending.length === 0 && segment.size > 0) this.doomed.add(segment);
  }

  indexOf(seq: number): number {
    return Math.floor(seq / this.options.segmentSize);
  }

  segmentFor(seq: number): Segment {
    const index = this.indexOf(seq);
    let segment = this.segments.get(index);
    if (!segment) {
      segment = new Segment(index, this.fileOf(index), this.options.segmentSize);
      this.segments.set(index, segment);
    }
    return segment;
  }

  fileOf(index: number): string {
    return path.join(this.options.dir, segmentFileName(index));
  }

  /** a line was written: it is where reads find the record now. */
  committed(segment: Segment, line: Line, offset: number, length: number): void {
    const slot = line.seq % this.options.segmentSize;
    segment.changed();
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
   * A write failed: lines describing state kept in memory go back in the queue;
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

  /** opens a segment's file for writing (it was opened to read), swapping the handle before closing the old. */
  async reopenWritable(segment: Segment): Promise<void> {
    const handle = await this.options.fs.open(segment.file, 'r+');
    const old = segment.handle;
    segment.handle = handle;
    segment.writable = true;
    await old?.close().catch(() => undefined);
  }

  /** a file that was to be deleted is looked at again with the next write. */
  requeueDoomed(segment: Segment): void {
    this.maybeDoom(segment);
  }

  /** a segment file was deleted. */
  dropped(segment: Segment): void {
    if (segment.live === 0 && segment.pending.length === 0) this.segments.delete(segment.index);
  }

  /** segments to delete now: nothing in them is live or waiting to be written. */
  takeDoomed(): Segment[] {
    const doomed = [...this.doomed].filter((s) => s.live === 0 && s.pending.length === 0);
    this.doomed.clear();
    return doomed;
  }

  /** Replaces a damaged segment's file with its live lines, taken from its old content. */
  rewriteFrom(segment: Segment): Promise<void> {
    return rewriteSegment(this.options.fs, this.options.segmentSize, segment);
  }

  /**
   * Reads segment `index`'s file at start-up, handing `onRecord` each live record: damaged lines
   * and a torn last line are set aside (Quarantine) and the file rewritten without them.
   */
  async load<T>(index: number, onRecord: (record: T) => void): Promise<void> {
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
    if (segment.maxSeq > this.maxSeq) this.maxSeq = segment.maxSeq;
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

  /** Takes in a segment read at start-up (from its file or its checkpoint). */
  adopt(segment: Segment): void {
    if (segment.maxSeq > this.maxSeq) this.maxSeq = segment.maxSeq;
    this.segments.set(segment.index, segment);
    if (segment.live === 0) this.maybeDoom(segment);
  }
}
