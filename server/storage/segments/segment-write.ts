import type { FileHandle } from 'node:fs/promises';
import type { Batch } from '../disk/flusher.ts';
import type { Fs } from '../disk/fs.ts';
import { checkpointFileOf, HEADER_BYTES, TAIL_AFTER_RECORD, TRAILER_BYTES, type Line, type Segment, type Tombstone } from './segment-file.ts';
import type { SegmentTable } from './segment-table.ts';

const SEPARATOR = Buffer.from(',\n');

/** One segment's share of a group commit: its queued lines, appended in one write. */
class SegmentWrite {
  /** Where the write started and what it overwrote there, to undo it. */
  private undo: { position: number; restore: Buffer; created: boolean } | null = null;
  private placed: [line: Line, offset: number, length: number][] = [];

  constructor(
    readonly segment: Segment,
    readonly lines: Line[],
  ) {}

  async write(table: SegmentTable): Promise<FileHandle> {
    const { fs, fsync } = table.options;
    const segment = this.segment;
    if (segment.needsRewrite) await table.rewriteFrom(segment);
    let created = false;
    if (segment.cleared && segment.handle) {
      // Its old lines were all deleted: start the file again rather than append after them.
      if (!segment.writable) await table.reopenWritable(segment);
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
      await table.reopenWritable(segment);
    }
    const base = created ? 0 : segment.hasLines ? segment.size - TAIL_AFTER_RECORD.length : segment.size - TRAILER_BYTES.length;
    const out = table.append;
    let offset = base + (created ? out.bytesOf(HEADER_BYTES) : 0);
    let first = !segment.hasLines;
    this.placed = [];
    for (const line of this.lines) {
      if (!first) offset += out.bytesOf(SEPARATOR);
      const length = out.text(JSON.stringify(line.record ?? ({ seq: line.seq, deleted: true } satisfies Tombstone)));
      this.placed.push([line, offset, length]);
      offset += length;
      first = false;
    }
    out.bytesOf(TAIL_AFTER_RECORD);
    this.undo = {
      position: base,
      created,
      restore: created ? Buffer.alloc(0) : segment.hasLines ? TAIL_AFTER_RECORD : TRAILER_BYTES,
    };
    try {
      await fs.writeAt(segment.handle, [out.take()], base);
    } finally {
      out.shrink();
    }
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

  commit(table: SegmentTable, size: number): void {
    this.segment.size = size;
    this.segment.hasLines = true;
    for (const [line, offset, length] of this.placed) table.committed(this.segment, line, offset, length);
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
    private readonly table: SegmentTable,
    private readonly writes: SegmentWrite[],
    /** It deletes records (tombstones), or files. */
    readonly deletes: boolean,
    /** Files will be deleted (some are already empty, or its tombstones empty them). */
    readonly unlinks: boolean,
  ) {}

  get path(): string {
    return this.table.options.dir;
  }

  async write(): Promise<FileHandle[]> {
    const handles: FileHandle[] = [];
    this.written = [];
    for (const write of this.writes) {
      handles.push(await write.write(this.table));
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
    if (!this.unlinks) return;
    const { fs } = this.table.options;
    const doomed = this.table.takeDoomed();
    for (const [at, segment] of doomed.entries()) {
      if (segment.live > 0 || segment.pending.length > 0) continue;
      try {
        await fs.unlink(segment.file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
          for (const rest of doomed.slice(at)) this.table.requeueDoomed(rest);
          throw error;
        }
      }
      await segment.handle?.close().catch(() => undefined);
      segment.handle = null;
      segment.size = 0;
      segment.hasLines = false;
      segment.dead = 0;
      // Its checkpoint describes a file that is gone (it would not match a new one either).
      await fs.unlink(checkpointFileOf(segment.file)).catch(() => undefined);
      this.table.dropped(segment);
    }
  }

  async revert(): Promise<void> {
    for (const write of this.written.reverse()) await write.revert(this.table.options.fs).catch(() => undefined);
  }

  commit(): void {
    for (const write of this.writes) write.commit(this.table, this.ends.get(write)!);
  }

  abort(): void {
    for (const write of this.writes) this.table.aborted(write.segment, write.lines);
  }
}

/** The group commit's share of a segment log: every segment's queued lines, and the files to delete. */
export function beginSegmentBatch(table: SegmentTable): Batch | null {
  const writes: SegmentWrite[] = [];
  for (const segment of table.segments.values()) {
    if (segment.pending.length === 0) continue;
    writes.push(new SegmentWrite(segment, segment.pending));
    segment.pending = [];
  }
  const tombstones = writes.some((w) => w.lines.some((line) => line.record === null));
  // Files go once nothing in them lives: those already empty, and those these tombstones empty.
  const unlinks = table.doomed.size > 0 || writes.some((w) => empties(table, w));
  if (writes.length === 0 && !unlinks) return null;
  return new SegmentBatch(table, writes, unlinks || tombstones, unlinks);
}

/** Whether a write leaves its segment with nothing live (only tombstones, as many as it has live lines, or more). */
function empties(table: SegmentTable, { segment, lines }: SegmentWrite): boolean {
  let dying = 0;
  for (const line of lines) {
    if (line.record !== null) return false;
    if (segment.lengths[line.seq % table.options.segmentSize]! > 0) dying++;
  }
  return dying >= segment.live;
}
