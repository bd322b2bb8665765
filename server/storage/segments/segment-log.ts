import path from 'node:path';
import type { Batch, Participant } from '../disk/flusher.ts';
import type { ImageSection } from '../disk/image-file.ts';
import { anyLost, writeBack } from '../disk/lost-files.ts';
import { applyCheckpoint, ReadBuffers, type ReadCheckpoint, readCheckpoint, saveCheckpoint } from './segment-checkpoints.ts';
import { Segment, segmentIndexesIn } from './segment-file.ts';
import { compactSegment } from './segment-rewrite.ts';
import { adoptSegments, type Identities, imageSegments, segmentIdentities } from './segment-image.ts';
import { type SegmentLogOptions, SegmentTable } from './segment-table.ts';
import { beginSegmentBatch } from './segment-write.ts';

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

/** One collection's records on disk: append, replace, delete, read back by sequence number. */
export class SegmentLog<T extends { seq: number }> implements Participant {
  private readonly table: SegmentTable;
  /** How start-up loaded the segments (with checkpoints), and whether from a start-up image (the owner's rows too). */
  readonly checkpointUse: CheckpointUse = { restored: 0, missing: 0, old: 0, damaged: 0 };
  fromImage = false;

  private constructor(private readonly options: SegmentLogOptions) {
    this.table = new SegmentTable(options);
  }

  /**
   * Opens the collection's folder, calling `onRecord` once for every live record in sequence
   * order. Damaged lines are set aside (Quarantine) and the segment rewritten without them;
   * a torn last line (a crash mid-append) is dropped.
   */
  static async open<T extends { seq: number }>(options: SegmentLogOptions, onRecord: (record: T) => void, image?: ImageSection): Promise<SegmentLog<T>> {
    const log = new SegmentLog<T>(options);
    await options.fs.mkdir(options.dir);
    const names = await options.fs.readdir(options.dir);
    const indexes = segmentIndexesIn(names);
    if (image && (await adoptSegments(log.table, indexes, image))) {
      log.fromImage = true;
      log.checkpointUse.restored = indexes.length;
      await removeCheckpoints(options, names, indexes);
      return log;
    }
    // Checkpoints are read a few segments ahead (the reads overlap; at most that many are held
    // at once) and applied in order, since rows arrive in sequence order.
    const ahead: (Promise<ReadCheckpoint | null> | undefined)[] = [];
    const buffers = new ReadBuffers();
    options.checkpoint?.expect?.(indexes.length * options.segmentSize);
    const readAhead = (i: number) => {
      if (i >= indexes.length) return;
      const read = log.readCheckpoint(indexes[i]!, buffers);
      // Awaited in turn below; a start-up that fails before it must not also report it unhandled.
      read.catch(() => undefined);
      ahead[i] = read;
    };
    for (let i = 0; i < CHECKPOINTS_AHEAD; i++) readAhead(i);
    for (const [i, index] of indexes.entries()) {
      const read = (await ahead[i]) ?? null;
      ahead[i] = undefined;
      readAhead(i + CHECKPOINTS_AHEAD);
      const applied = read !== null && (await log.applyCheckpoint(read));
      if (read) buffers.give(read.held);
      if (!applied) await log.table.load(index, onRecord);
    }
    await removeCheckpoints(options, names, indexes);
    return log;
  }

  /** Each segment file's identity, for a start-up image (segment-image.ts); null when a write is under way. */
  identities(): Promise<Identities | null> {
    return segmentIdentities(this.table);
  }

  /** The segments into a start-up image; false (nothing put) when any changed since `identities`. */
  image(identities: Identities, out: ImageSection): boolean {
    return imageSegments(this.table, identities, out);
  }

  get dir(): string {
    return this.options.dir;
  }

  /** The highest sequence number ever stored in this collection (as far as its files say). */
  get maxSeq(): number {
    return this.table.maxSeq;
  }

  /** Bytes and files on disk, for the disk-usage figure. */
  get files(): number {
    let n = 0;
    for (const segment of this.table.segments.values()) if (segment.size > 0) n++;
    return n;
  }

  /**
   * Records whose state in memory differs from the file (their write failed, or none was made
   * yet). A line queued only to write the stored state back (a refused change undone) is not one.
   */
  async unsaved(): Promise<number> {
    let n = 0;
    for (const [seq, line] of this.table.pendingBySeq) {
      const segment = this.table.segments.get(this.table.indexOf(seq));
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
    this.table.queue({ seq: record.seq, record, volatile: options.volatile === true, onCommit: options.onCommit });
  }

  /**
   * Queues a tombstone: the record is gone for good once it is written. Volatile: dropped (not
   * written again) if its write fails, for a deletion that is undone in memory then.
   */
  delete(seq: number, options: { volatile?: boolean } = {}): void {
    this.table.queue({ seq, record: null, volatile: options.volatile === true });
  }

  /**
   * Forgets a record without writing anything (the request log's oldest entries): its line
   * stays until the whole segment is dropped, and start-up applies the cap again.
   */
  forget(seq: number): void {
    const segment = this.table.segments.get(this.table.indexOf(seq));
    if (!segment) return;
    const pending = this.table.pendingBySeq.get(seq);
    if (pending) {
      this.table.pendingBySeq.delete(seq);
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
    this.table.maybeDoom(segment);
  }

  /** Drops every segment file with the next write (clearing the whole collection). */
  clear(): void {
    this.table.pendingBySeq.clear();
    for (const segment of this.table.segments.values()) {
      segment.pending = [];
      segment.lengths.fill(0);
      segment.live = 0;
      segment.dead = 0;
      segment.needsRewrite = null;
      segment.changed();
      if (segment.size > 0) segment.cleared = true;
      this.table.maybeDoom(segment);
    }
  }

  /** The record as last put or as stored, or undefined when there is none. */
  async read(seq: number): Promise<T | undefined> {
    const pending = this.table.pendingBySeq.get(seq);
    if (pending) return pending.record === null ? undefined : (JSON.parse(JSON.stringify(pending.record)) as T);
    const segment = this.table.segments.get(this.table.indexOf(seq));
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
      if (this.table.pendingBySeq.has(seq)) {
        out[i] = await this.read(seq);
        continue;
      }
      const segment = this.table.segments.get(this.table.indexOf(seq));
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
    return this.table.pendingBySeq.get(seq)?.record as T | null | undefined;
  }

  /**
   * The record as stored, read by its byte range synchronously (for a caller that cannot wait,
   * such as a lookup inside a send), with its line's length; undefined when none is stored.
   * Lines queued and not written yet are not looked at (see queued).
   */
  readStoredSync(seq: number): { record: T; bytes: number } | undefined {
    const segment = this.table.segments.get(this.table.indexOf(seq));
    if (!segment?.handle) return undefined;
    const slot = seq % this.options.segmentSize;
    const length = segment.lengths[slot]!;
    if (length === 0) return undefined;
    const bytes = this.options.fs.readAtSync(segment.handle, segment.offsets[slot]!, length);
    return { record: JSON.parse(bytes.toString('utf8')) as T, bytes: length };
  }

  /** The length in bytes of the record's stored line (0: none stored yet). */
  storedBytes(seq: number): number {
    return this.table.segments.get(this.table.indexOf(seq))?.lengths[seq % this.options.segmentSize] ?? 0;
  }

  /** Whether a record with this sequence number is stored (or about to be). */
  has(seq: number): boolean {
    const pending = this.table.pendingBySeq.get(seq);
    if (pending) return pending.record !== null;
    const segment = this.table.segments.get(this.table.indexOf(seq));
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
    for (const segment of this.table.segments.values()) {
      if (segment.pending.length > 0 || segment.live === 0 || segment.dead < 64 || segment.dead <= segment.live) continue;
      let first = 0;
      while (first < this.options.segmentSize && segment.lengths[first] === 0) first++;
      if (segment.dead - 2 * first > segment.live) out.push(segment.index);
    }
    return out;
  }

  /**
   * After the data directory (or this folder) was removed under the running server: writes
   * every segment back from the files still open, so nothing acknowledged is lost.
   */
  async restore(): Promise<number> {
    const { fs } = this.options;
    await fs.mkdir(this.options.dir);
    let restored = 0;
    for (const segment of this.table.segments.values()) {
      if (!segment.handle) continue;
      const handle = await writeBack(fs, segment.file, segment.handle, segment.size);
      if (!handle) continue;
      // Swapped before the old one is closed: a synchronous read may come in between.
      const old = segment.handle;
      segment.handle = handle;
      segment.writable = true;
      segment.changed();
      await old.close().catch(() => undefined);
      restored++;
    }
    return restored;
  }

  /** Whether any file this log writes has lost its name (deleted under the running server). */
  async lostFiles(): Promise<boolean> {
    return anyLost([...this.table.segments.values()].map((segment) => segment.handle));
  }

  /**
   * Rewrites a segment with only its live lines (atomically: a new file renamed over the old).
   * Run with nothing else writing (Flusher.exclusive).
   */
  async compact(index: number): Promise<void> {
    const segment = this.table.segments.get(index);
    if (segment) await compactSegment(this.options, segment);
  }

  async close(): Promise<void> {
    for (const segment of this.table.segments.values()) {
      await segment.handle?.close().catch(() => undefined);
      segment.handle = null;
    }
  }

  begin(): Batch | null {
    return beginSegmentBatch(this.table);
  }

  /** Segment `index`'s checkpoint when there is one that describes the file as it is. */
  private readCheckpoint(index: number, buffers: ReadBuffers): Promise<ReadCheckpoint | null> {
    return readCheckpoint(this.options, new Segment(index, this.table.fileOf(index), this.options.segmentSize), this.checkpointUse, buffers);
  }

  /** Takes a segment from its checkpoint; false (having changed nothing) when the file must be read instead. */
  private async applyCheckpoint(read: ReadCheckpoint): Promise<boolean> {
    if (!(await applyCheckpoint(this.options.checkpoint!, read, this.checkpointUse))) return false;
    this.table.adopt(read.segment);
    return true;
  }

  /**
   * Segments whose checkpoint is missing or older than the file and that have not changed for
   * `quietMs` (the one being appended to changes all the time: replaying it is cheap).
   */
  staleCheckpoints(quietMs: number, now = Date.now()): number[] {
    if (!this.options.checkpoint) return [];
    const out: number[] = [];
    for (const segment of this.table.segments.values()) {
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
  async saveCheckpoint(index: number, exclusive: <R>(task: () => Promise<R>) => Promise<R>, pause?: () => Promise<void>): Promise<boolean> {
    const segment = this.table.segments.get(index);
    if (!this.options.checkpoint || !segment) return false;
    return saveCheckpoint(this.options, segment, exclusive, () => this.table.segments.get(index) === segment, pause);
  }
}

/**
 * Removes the checkpoints of segment files no longer there (deleted while the server was down),
 * and ones cut off by a stop in the middle of their write.
 */
async function removeCheckpoints(options: SegmentLogOptions, names: readonly string[], indexes: readonly number[]): Promise<void> {
  for (const name of names) {
    const index = /^seg-(\d+)\.idx(\.tmp)?$/.exec(name);
    if (index && (index[2] || !indexes.includes(Number(index[1])))) await options.fs.unlink(path.join(options.dir, name)).catch(() => undefined);
  }
}
