import type { FileHandle } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/**
 * A pack file's entries (docs/storage.md): each a 20-byte header (magic, the capture's sequence
 * number, the part, the length, a CRC-32 of the header and the data), then the data; and what
 * the pack store keeps in memory about one pack.
 */
const MAGIC = 0x314b4850; // "PHK1"
export const ENTRY_HEADER = 20;

/** The file name of pack `no`. */
export function packFileName(no: number): string {
  return `${String(no).padStart(6, '0')}.pack`;
}

/** The numbers of the pack files among a folder's names, in order. */
export function packNumbers(names: readonly string[]): number[] {
  return names
    .map((name) => /^(\d{6})\.pack$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The header of an entry holding `data` as part `part` of capture `seq`. */
export function entryHeader(seq: number, part: number, data: Buffer): Buffer {
  const header = Buffer.allocUnsafe(ENTRY_HEADER);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(seq, 4);
  header.writeUInt16LE(part, 8);
  header.writeUInt16LE(0, 10);
  header.writeUInt32LE(data.length, 12);
  header.writeUInt32LE(crc32(data, crc32(header.subarray(0, 16))), 16);
  return header;
}

/** Whether `header` starts an entry (its magic number is there). */
export function isEntryHeader(header: Buffer): boolean {
  return header.length >= ENTRY_HEADER && header.readUInt32LE(0) === MAGIC;
}

/** Null when the entry's header and checksum hold, else what is wrong with it. */
export function checkEntry(bytes: Buffer, seq: number | null, length: number): string | null {
  if (bytes.length < ENTRY_HEADER + length) return 'is cut short';
  if (bytes.readUInt32LE(0) !== MAGIC) return 'has no entry header';
  if (seq !== null && bytes.readUInt32LE(4) !== seq) return 'belongs to another capture';
  if (bytes.readUInt32LE(12) !== length) return 'has another length than stored';
  const expected = crc32(bytes.subarray(ENTRY_HEADER, ENTRY_HEADER + length), crc32(bytes.subarray(0, 16)));
  if (bytes.readUInt32LE(16) !== expected) return 'failed its checksum';
  return null;
}

export class Pack {
  handle: FileHandle | null = null;
  writable = false;
  /** Bytes on disk. */
  size = 0;
  /** Bytes being written now (taken by a batch, not committed yet). */
  inflightBytes = 0;
  /** Bytes queued for the next write (their offsets are already handed out). */
  queued: Buffer[] = [];
  queuedBytes = 0;
  /** Of the queued bytes, those of new captures, which are rolled back if their write fails. */
  queuedVolatile = 0;
  /** Data of entries not on disk yet, by offset, so a read never waits for the write. */
  readonly unsaved = new Map<number, Buffer>();
  /** Bytes of entries still referenced by a capture. */
  live = 0;
  sealed = false;

  constructor(
    readonly no: number,
    readonly file: string,
  ) {}

  get end(): number {
    return this.size + this.inflightBytes + this.queuedBytes;
  }
}
