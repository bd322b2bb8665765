import { syncDir, type Fs } from '../disk/fs.ts';
import { HEADER_BYTES, openFile, type Segment, TAIL_AFTER_RECORD, TRAILER_BYTES } from './segment-file.ts';

/**
 * A segment file written again with only its live lines: compaction (dead lines outnumber the
 * live ones) and the repair of a damaged file (docs/storage.md). Each replaces the file whole
 * (a new file renamed over the old) and moves the segment's table to the new places.
 */

/** The live lines of `old` (the file's bytes) as a new file's content, with where each slot's line lands. */
function liveContent(segment: Segment, old: Buffer, segmentSize: number): { content: Buffer; moves: [slot: number, offset: number][] } {
  const parts: Buffer[] = [HEADER_BYTES];
  const moves: [slot: number, offset: number][] = [];
  let at = HEADER_BYTES.length;
  for (let slot = 0; slot < segmentSize; slot++) {
    const length = segment.lengths[slot]!;
    if (length === 0) continue;
    if (moves.length > 0) {
      parts.push(Buffer.from(',\n'));
      at += 2;
    }
    parts.push(old.subarray(segment.offsets[slot]!, segment.offsets[slot]! + length));
    moves.push([slot, at]);
    at += length;
  }
  parts.push(moves.length > 0 ? TAIL_AFTER_RECORD : TRAILER_BYTES);
  return { content: Buffer.concat(parts), moves };
}

/**
 * Rewrites a segment with only its live lines (atomically: a new file renamed over the old).
 * Run with nothing else writing (Flusher.exclusive).
 */
export async function compactSegment(options: { fs: Fs; fsync: boolean; dir: string; segmentSize: number }, segment: Segment): Promise<void> {
  if (!segment.handle || segment.pending.length > 0) return;
  const { fs, fsync } = options;
  // One read of the file, not one per live line (a segment holds thousands).
  const old = await fs.readAt(segment.handle, 0, segment.size);
  const { content, moves } = liveContent(segment, old, options.segmentSize);
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
  if (fsync) await syncDir(fs, options.dir);
  const replaced = segment.handle;
  segment.handle = handle;
  segment.writable = true;
  segment.size = content.length;
  segment.hasLines = moves.length > 0;
  segment.dead = 0;
  for (const [slot, offset] of moves) segment.offsets[slot] = offset;
  segment.changed();
  await replaced.close().catch(() => undefined);
}

/** Replaces a damaged segment's file with its live lines, taken from its old content (`needsRewrite`). */
export async function rewriteSegment(fs: Fs, segmentSize: number, segment: Segment): Promise<void> {
  const bytes = segment.needsRewrite;
  if (!bytes) return;
  // Where each line will be: the old places stay in use until the new file is open (a
  // synchronous read may come between the awaits below).
  const { content, moves } = liveContent(segment, bytes, segmentSize);
  const temp = `${segment.file}.tmp`;
  await fs.writeFile(temp, content);
  await fs.rename(temp, segment.file);
  const old = segment.handle;
  const opened = await openFile(fs, segment.file);
  // The new file and where its lines are, in one step.
  segment.handle = opened.handle;
  segment.writable = opened.writable;
  const offsets = new Float64Array(segment.offsets.length);
  for (const [slot, offset] of moves) offsets[slot] = offset;
  segment.offsets.set(offsets);
  await old?.close().catch(() => undefined);
  segment.size = content.length;
  segment.hasLines = moves.length > 0;
  segment.dead = 0;
  segment.needsRewrite = null;
  segment.changed();
}
