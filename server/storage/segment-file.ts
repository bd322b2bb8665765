import type { FileHandle } from 'node:fs/promises';
import type { Fs } from './fs.ts';

/**
 * A segment file's shape (docs/storage.md): lowdb's JSON document `{"records":[...]}`, one record
 * per line, and what the log keeps in memory about one file. The log is segment-log.ts; a group
 * commit's writes are segment-write.ts.
 */
export const HEADER = '{"records":[\n';
export const TRAILER = ']}\n';
export const HEADER_BYTES = Buffer.from(HEADER);
export const TRAILER_BYTES = Buffer.from(TRAILER);
/** The bytes an append overwrites at the end of a segment that has records: "\n]}\n". */
export const TAIL_AFTER_RECORD = Buffer.from(`\n${TRAILER}`);
export const EMPTY_SEGMENT = Buffer.concat([HEADER_BYTES, TRAILER_BYTES]);

export interface Line {
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

export interface Tombstone {
  seq: number;
  deleted: true;
}

export class Segment {
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
  /** The highest sequence number a line of the file names (tombstones included). */
  maxSeq = 0;
  /** Changes made to the file in this process, and how many of them its checkpoint includes (-1: none is current). */
  changes = 0;
  checkpointed = -1;
  /** When the file last changed (ms, wall clock): a checkpoint waits until it has been quiet a while. */
  changedAt = 0;

  constructor(
    readonly index: number,
    readonly file: string,
    size: number,
  ) {
    this.offsets = new Float64Array(size);
    this.lengths = new Uint32Array(size);
  }
}

/** Opens a segment's file to read and write, or only to read where the file system refuses writes. */
export async function openFile(fs: Fs, file: string): Promise<{ handle: FileHandle; writable: boolean }> {
  try {
    return { handle: await fs.open(file, 'r+'), writable: true };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM') throw error;
    return { handle: await fs.open(file, 'r'), writable: false };
  }
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

/** Where a segment file's checkpoint is kept: beside it. */
export function checkpointFileOf(segmentFile: string): string {
  return segmentFile.replace(/\.json$/, '.idx');
}

/**
 * Reads a segment file's lines into `segment`'s tables (where each live line is, live and dead
 * counts, the highest sequence number); returns the live records, the lines that do not parse
 * (or name a sequence number of another segment), a torn last line, and whether the file was
 * clean (its header and trailer in place).
 */
export function parseSegmentFile<T>(
  bytes: Buffer,
  segment: Segment,
): { latest: Map<number, T>; damaged: Buffer[]; damagedLines: number; clean: boolean; torn: Buffer | null } {
  const segmentSize = segment.lengths.length;
  const latest = new Map<number, T>();
  const damaged: Buffer[] = [];
  let damagedLines = 0;
  let clean = bytes.subarray(0, HEADER_BYTES.length).equals(HEADER_BYTES);
  let trailer = false;
  let torn: Buffer | null = null;
  if (!clean) {
    damaged.push(bytes);
    damagedLines = countLines(bytes);
  } else {
    let at = HEADER_BYTES.length;
    while (at < bytes.length) {
      const newline = bytes.indexOf(0x0a, at);
      const end = newline < 0 ? bytes.length : newline;
      const raw = bytes.subarray(at, end);
      const text = raw.toString('utf8');
      if (text === ']}' && (newline < 0 || newline === bytes.length - 1)) {
        trailer = true;
        break;
      }
      const jsonLength = raw.length - (text.endsWith(',') ? 1 : 0);
      const parsed = parseLine(raw.subarray(0, jsonLength).toString('utf8'));
      if (parsed === null) {
        if (newline < 0) torn = raw;
        else {
          damaged.push(bytes.subarray(at, end + 1));
          damagedLines++;
        }
      } else {
        const seq = parsed.seq;
        if (seq > segment.maxSeq) segment.maxSeq = seq;
        const slot = seq % segmentSize;
        if (Math.floor(seq / segmentSize) !== segment.index) {
          damaged.push(bytes.subarray(at, end + 1));
          damagedLines++;
        } else {
          if (segment.lengths[slot]! > 0) segment.dead++;
          if ('deleted' in parsed && parsed.deleted === true) {
            segment.dead++;
            segment.lengths[slot] = 0;
            latest.delete(seq);
          } else {
            segment.offsets[slot] = at;
            segment.lengths[slot] = jsonLength;
            latest.set(seq, parsed as T);
          }
        }
      }
      at = end + 1;
    }
    if (!trailer) clean = false;
  }
  return { latest, damaged, damagedLines, clean, torn };
}
