import { decodeSegmentCheckpoint, encodeSegmentCheckpoint, type FileIdentity, type Parts, sameFile, writeCheckpoint } from '../disk/checkpoint.ts';
import type { Fs } from '../disk/fs.ts';
import { checkpointFileOf, openFile, type Segment } from './segment-file.ts';

/**
 * A segment's checkpoint (storage/checkpoint.ts) read, applied and taken: where its live lines
 * are and the owner's rows for it, so that a start need not read the segment file.
 */

/**
 * What a collection's owner keeps in memory per segment, saved with the segment's checkpoint
 * so that a start need not read the file.
 */
export interface CheckpointRows {
  /**
   * The owner's rows for sequence numbers lo <= seq < hi; `live` lists the ones the file holds
   * live. Null when they differ (a change not settled yet): nothing consistent to save now. It
   * may take several turns of the event loop (the captures' index does): saveCheckpoint keeps
   * the result only if the segment did not change meanwhile; `pause` comes between its chunks
   * (a timer in the background, so that sends keep the thread; the next turn at a clean stop).
   * The bytes come as parts (checkpoint.ts Parts), which may be views of memory that never
   * changes once written (search texts' chunks): they are written as they are, not joined.
   */
  save(lo: number, hi: number, live: readonly number[], pause?: () => Promise<void>): Parts | null | Promise<Parts | null>;
  /** Restores what save wrote; throws, having changed nothing, when it cannot. */
  restore(data: Buffer): void;
  /**
   * Start-up is about to restore at most `rows` rows (every segment file full): room for them
   * made once, rather than grown a step at a time (each step a copy, and garbage).
   */
  expect?(rows: number): void;
}

/** A segment's checkpoint that matches its file, read and not applied yet. */
export interface ReadCheckpoint {
  segment: Segment;
  checkpoint: ReturnType<typeof decodeSegmentCheckpoint>;
  size: number;
  /** The buffer its bytes were read into: ReadBuffers' again once the checkpoint is applied. */
  held: Buffer;
}

/**
 * The buffers a start-up reads checkpoint files into, each taken again once the checkpoint read
 * into it is applied (what restores keep is copied out of it). A new buffer per file made some
 * 350 MB of garbage at a million captures; Buffers count against V8's heap, and each 64 MB of
 * them set off a full collection (32 in one start-up).
 */
export class ReadBuffers {
  private readonly free: Buffer[] = [];

  /** A buffer of at least `size` bytes. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) if (this.free[i]!.length >= size && (best < 0 || this.free[i]!.length < this.free[best]!.length)) best = i;
    if (best >= 0) return this.free.splice(best, 1)[0]!;
    return Buffer.allocUnsafeSlow(Math.max(size, 1 << 20));
  }

  give(buffer: Buffer): void {
    this.free.push(buffer);
  }
}

/** The whole file read into a buffer of `buffers` (its bytes: the start of it); null when it cannot be read. */
async function readInto(fs: Fs, file: string, buffers: ReadBuffers): Promise<{ held: Buffer; bytes: Buffer } | null> {
  let handle: Awaited<ReturnType<Fs['open']>>;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return null;
  }
  let held: Buffer | null = null;
  try {
    const { size } = await handle.stat();
    held = buffers.take(size);
    let read = 0;
    while (read < size) {
      const { bytesRead } = await handle.read(held, read, size - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { held, bytes: held.subarray(0, read) };
  } catch {
    if (held) buffers.give(held);
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

interface Options {
  fs: Fs;
  segmentSize: number;
  checkpoint?: CheckpointRows;
}

/** Counts of how start-up took its segments (segment-log.ts CheckpointUse). */
interface Use {
  restored: number;
  missing: number;
  old: number;
  damaged: number;
}

/**
 * The checkpoint of `segment` (new, not opened yet) when there is one that describes its file as
 * it is (the segment's file then open); null, counted in `use`, when the file must be read.
 */
export async function readCheckpoint(options: Options, segment: Segment, use: Use, buffers: ReadBuffers): Promise<ReadCheckpoint | null> {
  const { fs, segmentSize, checkpoint: rows } = options;
  if (!rows) return null;
  const read = await readInto(fs, checkpointFileOf(segment.file), buffers);
  if (read === null) {
    use.missing++;
    return null;
  }
  const { held, bytes } = read;
  let checkpoint: ReturnType<typeof decodeSegmentCheckpoint>;
  try {
    checkpoint = decodeSegmentCheckpoint(bytes);
  } catch {
    buffers.give(held);
    use.damaged++;
    return null;
  }
  try {
    const opened = await openFile(fs, segment.file);
    segment.handle = opened.handle;
    segment.writable = opened.writable;
    const stat = await segment.handle.stat();
    if (checkpoint.segmentSize !== segmentSize || !sameFile(checkpoint.file, stat)) {
      await segment.handle.close().catch(() => undefined);
      buffers.give(held);
      use.old++;
      return null;
    }
    return { segment, checkpoint, size: stat.size, held };
  } catch (error) {
    buffers.give(held);
    throw error;
  }
}

/**
 * Restores the owner's rows and the segment's line table from what readCheckpoint found; false
 * (having changed nothing, the file closed) when the rows cannot be restored.
 */
export async function applyCheckpoint(rows: CheckpointRows, { segment, checkpoint, size }: ReadCheckpoint, use: Use): Promise<boolean> {
  try {
    rows.restore(checkpoint.payload);
  } catch {
    await segment.handle!.close().catch(() => undefined);
    use.damaged++;
    return false;
  }
  for (let i = 0; i < checkpoint.slots.length; i++) {
    segment.offsets[checkpoint.slots[i]!] = checkpoint.offsets[i]!;
    segment.lengths[checkpoint.slots[i]!] = checkpoint.lengths[i]!;
  }
  segment.size = size;
  segment.hasLines = checkpoint.hasLines;
  segment.live = checkpoint.live;
  segment.dead = checkpoint.dead;
  segment.maxSeq = checkpoint.maxSeq;
  segment.checkpointed = 0;
  use.restored++;
  return true;
}

/**
 * Takes `segment`'s checkpoint and writes it beside the file (a temporary file renamed over the
 * old one), while `current` says it is still the collection's. What the file holds is read with
 * nothing writing (`exclusive`); the owner's rows are taken after, with writes going on (they
 * may take many turns of the event loop, and sends must not wait for them), and kept only if,
 * with nothing writing again, the segment is as it was: no line written or waiting to be, the
 * same file. False when there is nothing consistent to save now (the next round tries again).
 */
export async function saveCheckpoint(
  options: Options,
  segment: Segment,
  exclusive: <R>(task: () => Promise<R>) => Promise<R>,
  current: () => boolean,
  pause?: () => Promise<void>,
): Promise<boolean> {
  const { fs, segmentSize, checkpoint: rows } = options;
  if (!rows) return false;
  const settled = async (): Promise<{ changes: number; stat: FileIdentity } | null> => {
    if (!segment.handle || !segment.writable || segment.size === 0 || segment.pending.length > 0 || segment.needsRewrite || segment.cleared) return null;
    if (!current()) return null;
    const changes = segment.changes;
    const { size, mtimeMs, ino } = await segment.handle.stat();
    // Nothing may have changed during the stat (exclusive holds writes, not compaction's bookkeeping).
    if (segment.changes !== changes || size !== segment.size) return null;
    return { changes, stat: { size, mtimeMs, ino } };
  };
  const before = await exclusive(settled);
  if (before === null) return false;
  const slots: number[] = [];
  for (let slot = 0; slot < segmentSize; slot++) if (segment.lengths[slot]! > 0) slots.push(slot);
  const file = {
    live: segment.live,
    dead: segment.dead,
    maxSeq: segment.maxSeq,
    hasLines: segment.hasLines,
    slots: Uint32Array.from(slots),
    offsets: Float64Array.from(slots, (slot) => segment.offsets[slot]!),
    lengths: Uint32Array.from(slots, (slot) => segment.lengths[slot]!),
  };
  const lo = segment.index * segmentSize;
  const payload = await rows.save(
    lo,
    lo + segmentSize,
    slots.map((slot) => lo + slot),
    pause,
  );
  if (payload === null) return false;
  const after = await exclusive(settled);
  if (after === null || after.changes !== before.changes || !sameFile(after.stat, before.stat)) return false;
  await writeCheckpoint(fs, checkpointFileOf(segment.file), encodeSegmentCheckpoint({ segmentSize, file: before.stat, ...file, payload }), pause);
  segment.checkpointed = before.changes;
  return true;
}
