import { decodeSegmentCheckpoint, encodeSegmentCheckpoint, sameFile, writeCheckpoint } from '../disk/checkpoint.ts';
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
   * live. Null when they differ (a change not settled yet): nothing consistent to save now.
   */
  save(lo: number, hi: number, live: readonly number[]): Buffer | null;
  /** Restores what save wrote; throws, having changed nothing, when it cannot. */
  restore(data: Buffer): void;
}

/** A segment's checkpoint that matches its file, read and not applied yet. */
export interface ReadCheckpoint {
  segment: Segment;
  checkpoint: ReturnType<typeof decodeSegmentCheckpoint>;
  size: number;
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
export async function readCheckpoint(options: Options, segment: Segment, use: Use): Promise<ReadCheckpoint | null> {
  const { fs, segmentSize, checkpoint: rows } = options;
  if (!rows) return null;
  const bytes = await fs.readFile(checkpointFileOf(segment.file)).catch(() => null);
  if (bytes === null) {
    use.missing++;
    return null;
  }
  let checkpoint: ReturnType<typeof decodeSegmentCheckpoint>;
  try {
    checkpoint = decodeSegmentCheckpoint(bytes);
  } catch {
    use.damaged++;
    return null;
  }
  const opened = await openFile(fs, segment.file);
  segment.handle = opened.handle;
  segment.writable = opened.writable;
  const stat = await segment.handle.stat();
  if (checkpoint.segmentSize !== segmentSize || !sameFile(checkpoint.file, stat)) {
    await segment.handle.close().catch(() => undefined);
    use.old++;
    return null;
  }
  return { segment, checkpoint, size: stat.size };
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
 * Takes `segment`'s checkpoint with nothing writing (`exclusive`), while `current` says it is
 * still the collection's, and writes it beside the file (a temporary file renamed over the old
 * one). False when there is nothing consistent to save now.
 */
export async function saveCheckpoint(
  options: Options,
  segment: Segment,
  exclusive: <R>(task: () => Promise<R>) => Promise<R>,
  current: () => boolean,
): Promise<boolean> {
  const { fs, segmentSize, checkpoint: rows } = options;
  if (!rows) return false;
  const taken = await exclusive(async () => {
    if (!segment.handle || !segment.writable || segment.size === 0 || segment.pending.length > 0 || segment.needsRewrite || segment.cleared) return null;
    if (!current()) return null;
    const changes = segment.changes;
    const stat = await segment.handle.stat();
    // Nothing may have changed during the stat (exclusive holds writes, not compaction's bookkeeping).
    if (segment.changes !== changes || stat.size !== segment.size) return null;
    const slots: number[] = [];
    for (let slot = 0; slot < segmentSize; slot++) if (segment.lengths[slot]! > 0) slots.push(slot);
    const lo = segment.index * segmentSize;
    const payload = rows.save(
      lo,
      lo + segmentSize,
      slots.map((slot) => lo + slot),
    );
    if (payload === null) return null;
    const bytes = encodeSegmentCheckpoint({
      segmentSize,
      file: { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino },
      live: segment.live,
      dead: segment.dead,
      maxSeq: segment.maxSeq,
      hasLines: segment.hasLines,
      slots: Uint32Array.from(slots),
      offsets: Float64Array.from(slots, (slot) => segment.offsets[slot]!),
      lengths: Uint32Array.from(slots, (slot) => segment.lengths[slot]!),
      payload,
    });
    return { bytes, changes };
  });
  if (taken === null) return false;
  await writeCheckpoint(fs, checkpointFileOf(segment.file), taken.bytes);
  segment.checkpointed = taken.changes;
  return true;
}
