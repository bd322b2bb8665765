import path from 'node:path';
import type { Fs } from '../disk/fs.ts';
import { segmentFileName, segmentIndexes } from './segment-file.ts';

/**
 * Sequence numbers per segment file of a data directory made now: at a million captures,
 * about 123 files of captures and 123 of recipients (with 8 MiB packs, some 390 files in all,
 * against 2,086 with 1,024), while a compaction still rewrites at most one segment (a few MB)
 * and an append stays one line (docs/storage.md).
 */
export const SEGMENT_SIZE = 8192;

/** The segment size of a data directory that does not record one (written before it did). */
const LEGACY_SEGMENT_SIZE = 1024;

/**
 * The request log keeps its last 10,000 entries and drops a segment once nothing in it is
 * kept: at most this many per file, so few dropped entries wait on disk (and are read at start-up).
 */
const REQUEST_LOG_SEGMENT_SIZE = 1024;

/** Sequence numbers per segment file of the request log, for a store of `segmentSize`. */
export function requestLogSegmentSize(segmentSize: number): number {
  return Math.min(segmentSize, REQUEST_LOG_SEGMENT_SIZE);
}

/** The folders whose segment files follow the store's segment size (not the request log). */
export interface SegmentFolders {
  messages: string;
  recipients: string;
  subscriptions: string;
}

/**
 * The segment size a data directory is read and written with. meta.json records it when a store
 * is made (`requested`), and a recorded size is used whatever is requested. Without one, the
 * directory was written before sizes were recorded (1,024), unless it holds no segment at all (a
 * new store: `requested`), or its segments say otherwise: meta.json was lost or set aside as
 * damaged, and reading the segments with the wrong size would set every record aside too. A
 * segment file numbered N holds sequence numbers N * size to (N + 1) * size - 1, so the first
 * record of a file numbered 1 or more tells the sizes apart; with only files numbered 0, the
 * larger size reads them as well.
 */
export async function segmentSizeOf(options: { recorded: unknown; requested: number; folders: SegmentFolders; fs: Fs }): Promise<number> {
  const { recorded, requested, folders, fs } = options;
  if (isSize(recorded)) return recorded;
  let any = false;
  const firsts: { index: number; seq: number }[] = [];
  for (const dir of [folders.messages, folders.recipients, folders.subscriptions]) {
    const indexes = await segmentIndexes(fs, dir);
    if (indexes.length > 0) any = true;
    // The newest file numbered 1 or more whose first line parses.
    for (const index of indexes.filter((n) => n > 0).reverse()) {
      const seq = await firstSeq(fs, path.join(dir, segmentFileName(index)));
      if (seq === null) continue;
      firsts.push({ index, seq });
      break;
    }
  }
  if (!any) return requested;
  const candidates = [...new Set([LEGACY_SEGMENT_SIZE, requested])];
  if (firsts.length === 0) return Math.max(...candidates);
  const fits = candidates.filter((size) => firsts.every(({ index, seq }) => Math.floor(seq / size) === index));
  return fits[0] ?? LEGACY_SEGMENT_SIZE;
}

function isSize(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** The sequence number of the first line of a segment file that parses, or null. */
async function firstSeq(fs: Fs, file: string): Promise<number | null> {
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return null;
  try {
    const text = (await fs.readAt(handle, 0, 64 * 1024)).toString('utf8');
    for (const line of text.split('\n').slice(1, -1)) {
      try {
        const seq = (JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as { seq?: unknown }).seq;
        if (typeof seq === 'number' && Number.isSafeInteger(seq)) return seq;
      } catch {
        // A damaged line: the next one may do.
      }
    }
    return null;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
