import { type FileIdentity, sameFile } from '../disk/checkpoint.ts';
import type { ImageSection } from '../disk/image-file.ts';
import { openFile, Segment } from './segment-file.ts';
import type { SegmentTable } from './segment-table.ts';

/**
 * A segment log's part of the start-up image (disk/image-file.ts, docs/storage.md): each segment
 * file's identity and what the log keeps of it (its counts, and where each live line is), so that
 * start-up neither reads the files nor their checkpoints. Used only when every file is the one
 * the image names (size, modification time and inode), and the log holds exactly those files.
 */

/** One segment: index, size, mtimeMs, ino, live, dead, maxSeq, hasLines (1/0), checkpoint current (1/0). */
type SavedSegment = [number, number, number, number, number, number, number, number, number];

/** Each segment file's identity, and its change count when it was taken (imageSegments checks it is still that). */
export type Identities = Map<number, { file: FileIdentity; changes: number }>;

/** The files' identities; null when a segment is not settled (lines waiting, a rewrite due, not writable). */
export async function segmentIdentities(table: SegmentTable): Promise<Identities | null> {
  const out: Identities = new Map();
  for (const segment of table.segments.values()) {
    if (fileless(segment)) continue;
    if (!segment.handle || !segment.writable || segment.needsRewrite || segment.cleared || segment.pending.length > 0) return null;
    const changes = segment.changes;
    const { size, mtimeMs, ino } = await segment.handle.stat();
    if (size !== segment.size || segment.changes !== changes) return null;
    out.set(segment.index, { file: { size, mtimeMs, ino }, changes });
  }
  return out;
}

/**
 * The segments as they are now into `out` (synchronously: with the owner's index, one moment);
 * false, nothing put, when any changed since `identities` were taken or lines wait to be written.
 */
export function imageSegments(table: SegmentTable, identities: Identities, out: ImageSection): boolean {
  if (table.pendingBySeq.size > 0 || table.doomed.size > 0) return false;
  const files = [...table.segments.values()].filter((segment) => identities.has(segment.index)).sort((a, b) => a.index - b.index);
  if (files.length !== identities.size || table.segments.size !== files.length + [...table.segments.values()].filter(fileless).length) return false;
  const saved: SavedSegment[] = [];
  for (const segment of files) {
    const { file, changes } = identities.get(segment.index)!;
    if (changes !== segment.changes || segment.pending.length > 0 || file.size !== segment.size) return false;
    const current = segment.checkpointed === segment.changes ? 1 : 0;
    saved.push([segment.index, file.size, file.mtimeMs, file.ino, segment.live, segment.dead, segment.maxSeq, segment.hasLines ? 1 : 0, current]);
  }
  // Each segment's own tables, whole: start-up takes them as the segment's (no copy, nothing made per line).
  for (const segment of files) {
    out.put(segment.offsets);
    out.put(segment.lengths);
  }
  out.values = { segments: saved };
  return true;
}

/** A segment the log knows of that has no file (nothing written to it yet, nothing waiting): not in an image. */
function fileless(segment: Segment): boolean {
  return segment.size === 0 && segment.pending.length === 0 && !segment.handle;
}

/**
 * Takes the log's segments from the image when the folder holds exactly the files it names, each
 * the very file (`indexes`: the segment files there, in order); false, having changed nothing
 * (every file it opened closed again), when not: the log is then opened as without an image.
 */
export async function adoptSegments(table: SegmentTable, indexes: readonly number[], from: ImageSection): Promise<boolean> {
  const saved = from.values.segments as SavedSegment[];
  if (saved.length !== indexes.length || saved.some(([index], i) => index !== indexes[i])) return false;
  const { fs, segmentSize } = table.options;
  const tables = saved.map(() => ({ offsets: from.take(Float64Array), lengths: from.take(Uint32Array) }));
  if (tables.some(({ offsets, lengths }) => offsets.length !== segmentSize || lengths.length !== segmentSize)) return false;
  const segments = saved.map(([index], i) => new Segment(index, table.fileOf(index), segmentSize, tables[i]));
  const opened = await Promise.allSettled(
    segments.map(async (segment, i) => {
      const file = await openFile(fs, segment.file);
      [segment.handle, segment.writable] = [file.handle, file.writable];
      const [, size, mtimeMs, ino] = saved[i]!;
      return sameFile(await file.handle.stat(), { size, mtimeMs, ino });
    }),
  );
  if (opened.some((result) => result.status !== 'fulfilled' || !result.value)) {
    await Promise.all(segments.map((segment) => segment.handle?.close().catch(() => undefined)));
    return false;
  }
  for (const [i, segment] of segments.entries()) {
    const [, size, , , live, dead, maxSeq, hasLines, current] = saved[i]!;
    [segment.size, segment.live, segment.dead, segment.maxSeq] = [size, live, dead, maxSeq];
    segment.hasLines = hasLines === 1;
    segment.checkpointed = current === 1 ? 0 : -1;
    table.adopt(segment);
  }
  return true;
}
