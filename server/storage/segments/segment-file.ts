import type { FileHandle } from 'node:fs/promises';
import type { Fs } from '../disk/fs.ts';

/**
 * A segment file's shape (docs/storage.md): lowdb's JSON document `{"records":[...]}`, one record
 * per line, and what the log keeps in memory about one file. The log is segment-log.ts; a group
 * commit's writes are segment-write.ts; what the log keeps of its files, segment-table.ts.
 */
const HEADER = '{"records":[\n';
const TRAILER = ']}\n';
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

  /** `tables`: its offsets and lengths as a start-up image saved them (segment-image.ts), taken as they are. */
  constructor(
    readonly index: number,
    readonly file: string,
    size: number,
    tables?: { offsets: Float64Array; lengths: Uint32Array },
  ) {
    this.offsets = tables?.offsets ?? new Float64Array(size);
    this.lengths = tables?.lengths ?? new Uint32Array(size);
  }

  /** The file changed: its checkpoint (if any) no longer describes it. */
  changed(): void {
    this.changes++;
    this.changedAt = Date.now();
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
 * counts, the highest sequence number) and hands each live record to `onRecord`, in sequence
 * order; returns the lines that do not parse (or name a sequence number of another segment), a
 * torn last line, and whether the file was clean (its header and trailer in place).
 *
 * First the lines' sequence numbers, read from how the log writes them (no parse); then only the
 * last version of each record is parsed, and handed over at once: a segment holds thousands, and
 * they are not all kept until the last line is read. A last version that does not parse is set
 * aside and the version before it, if one parses, is the record.
 */
export function parseSegmentFile<T>(
  bytes: Buffer,
  segment: Segment,
  onRecord: (record: T) => void,
): { damaged: Buffer[]; damagedLines: number; clean: boolean; torn: Buffer | null } {
  const segmentSize = segment.lengths.length;
  /** Byte ranges of the earlier versions of a record, in case its last line does not parse. */
  const earlier = new Map<number, [offset: number, length: number][]>();
  const damaged: Buffer[] = [];
  let damagedLines = 0;
  /** Sets the line at `at` aside (with its comma and newline). */
  const setAside = (at: number) => {
    const newline = bytes.indexOf(0x0a, at);
    damaged.push(bytes.subarray(at, newline < 0 ? bytes.length : newline + 1));
    damagedLines++;
  };
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
      if (end - at === 2 && bytes[at] === 0x5d && bytes[at + 1] === 0x7d && (newline < 0 || newline === bytes.length - 1)) {
        trailer = true;
        break;
      }
      const jsonLength = end - at - (end > at && bytes[end - 1] === 0x2c ? 1 : 0);
      let line = newline < 0 ? null : peekLine(bytes, at, jsonLength);
      if (line === null) {
        // Written otherwise, damaged, or the last line without its newline: parsed to know.
        const parsed = parseLine(bytes.toString('utf8', at, at + jsonLength));
        if (parsed === null) {
          if (newline < 0) torn = bytes.subarray(at, end);
          else setAside(at);
          at = end + 1;
          continue;
        }
        line = { seq: parsed.seq, deleted: 'deleted' in parsed && parsed.deleted === true };
      }
      const { seq } = line;
      if (seq > segment.maxSeq) segment.maxSeq = seq;
      if (Math.floor(seq / segmentSize) !== segment.index) {
        setAside(at);
        at = end + 1;
        continue;
      }
      const slot = seq % segmentSize;
      if (segment.lengths[slot]! > 0) {
        segment.dead++;
        if (!line.deleted) {
          const versions = earlier.get(slot) ?? [];
          versions.push([segment.offsets[slot]!, segment.lengths[slot]!]);
          earlier.set(slot, versions);
        }
      }
      if (line.deleted) {
        segment.dead++;
        segment.lengths[slot] = 0;
        earlier.delete(slot);
      } else {
        segment.offsets[slot] = at;
        segment.lengths[slot] = jsonLength;
      }
      at = end + 1;
    }
    if (!trailer) clean = false;
  }
  let live = 0;
  for (let slot = 0; slot < segmentSize; slot++) {
    if (segment.lengths[slot] === 0) continue;
    const seq = segment.index * segmentSize + slot;
    let parsed: ReturnType<typeof parseLine> = null;
    for (;;) {
      const offset = segment.offsets[slot]!;
      parsed = parseLine(bytes.toString('utf8', offset, offset + segment.lengths[slot]!));
      if (parsed !== null && parsed.seq === seq) break;
      parsed = null;
      setAside(offset);
      const previous = earlier.get(slot)?.pop();
      if (!previous) break;
      [segment.offsets[slot], segment.lengths[slot]] = previous;
    }
    if (parsed === null || ('deleted' in parsed && parsed.deleted === true)) {
      segment.lengths[slot] = 0;
      continue;
    }
    live++;
    onRecord(parsed as T);
  }
  segment.live = live;
  return { damaged, damagedLines, clean, torn };
}

const SEQ_PREFIX = Buffer.from('{"seq":');
const TOMBSTONE_TAIL = Buffer.from(',"deleted":true}');

/**
 * A line as the log writes it, read without parsing it: a record whose first field is its
 * sequence number (`{"seq":N,...}`) or a tombstone (`{"seq":N,"deleted":true}`). Null for any
 * other line, which is then parsed. (A record line damaged after its sequence number is found
 * when it is parsed, as the last version of its record; as an earlier one it is never read, and
 * goes with the segment's next rewrite.)
 */
function peekLine(bytes: Buffer, at: number, length: number): { seq: number; deleted: boolean } | null {
  const end = at + length;
  if (length < SEQ_PREFIX.length + 2 || bytes[end - 1] !== 0x7d || bytes.compare(SEQ_PREFIX, 0, SEQ_PREFIX.length, at, at + SEQ_PREFIX.length) !== 0)
    return null;
  const digits = at + SEQ_PREFIX.length;
  let i = digits;
  let seq = 0;
  while (i < end && bytes[i]! >= 0x30 && bytes[i]! <= 0x39) seq = seq * 10 + (bytes[i++]! - 0x30);
  if (i === digits || i - digits > 15 || (bytes[digits] === 0x30 && i - digits > 1)) return null;
  if (bytes[i] === 0x7d) return i === end - 1 ? { seq, deleted: false } : null;
  if (bytes[i] !== 0x2c) return null;
  const deleted = end - i === TOMBSTONE_TAIL.length && bytes.compare(TOMBSTONE_TAIL, 0, TOMBSTONE_TAIL.length, i, end) === 0;
  return { seq, deleted };
}

/** The file name of segment `index` (which holds sequence numbers index * size to (index + 1) * size - 1). */
export function segmentFileName(index: number): string {
  return `seg-${String(index).padStart(6, '0')}.json`;
}

/** The numbers of the segment files among a folder's names, in order. */
export function segmentIndexesIn(names: readonly string[]): number[] {
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
