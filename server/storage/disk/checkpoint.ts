import { crc32 } from 'node:zlib';
import type { Fs } from './fs.ts';

/**
 * Checkpoints (docs/storage.md, "Start-up"): what start-up would otherwise rebuild by reading
 * every segment line and every pack entry, saved per file. A segment's checkpoint
 * (`seg-000012.idx` beside `seg-000012.json`) holds where each live line is and the owner's
 * in-memory rows for that segment; the packs' (`packs/packs.idx`) which sealed packs were
 * scanned and what they held damaged. Each names the file it describes by size, modification
 * time and inode: a file changed since (or replaced, copied, restored) no longer matches and is
 * read as before. A checkpoint is a cache: a missing, old or damaged one only makes a start
 * slower, never loses a record; each ends with a CRC-32 of everything before it.
 */

const SEGMENT_MAGIC = 0x58494850; // "PHIX"
const PACKS_MAGIC = 0x4b504850; // "PHPK"
const FORMAT = 1;

/** What identifies the exact file a checkpoint was taken of. */
export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ino: number;
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

export interface SegmentCheckpoint {
  /** Sequence numbers per segment file when it was taken (a different setting does not match). */
  segmentSize: number;
  file: FileIdentity;
  live: number;
  dead: number;
  /** The highest sequence number any line of the file names (tombstones included). */
  maxSeq: number;
  hasLines: boolean;
  /** Slot, byte offset and length of each live line. */
  slots: Uint32Array;
  offsets: Float64Array;
  lengths: Uint32Array;
  /** The owner's rows (MessageIndex.serializeRange). */
  payload: Buffer;
}

/**
 * A checkpoint as the parts it is written from, in order: views of what is already in memory
 * where possible (a segment's search texts are views of their chunks), so that taking one
 * allocates its columns and little else. Joining them (one copy of megabytes, then another to
 * seal it) made every background checkpoint run set off garbage collections that sends waited
 * behind (bench/README.md, Send latency during a checkpoint).
 */
export type Parts = Buffer[];

/** How many bytes the parts make. */
function partsLength(parts: readonly Buffer[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  return length;
}

/** A segment's checkpoint, its payload given as parts; writeCheckpoint seals and writes it. */
export function encodeSegmentCheckpoint(checkpoint: Omit<SegmentCheckpoint, 'payload'> & { payload: Parts }): Parts {
  const head = Buffer.alloc(4 + 1 + 4 + 8 * 3 + 4 + 4 + 8 + 1 + 4);
  let at = head.writeUInt32LE(SEGMENT_MAGIC, 0);
  at = head.writeUInt8(FORMAT, at);
  at = head.writeUInt32LE(checkpoint.segmentSize, at);
  at = head.writeDoubleLE(checkpoint.file.size, at);
  at = head.writeDoubleLE(checkpoint.file.mtimeMs, at);
  at = head.writeDoubleLE(checkpoint.file.ino, at);
  at = head.writeUInt32LE(checkpoint.live, at);
  at = head.writeUInt32LE(checkpoint.dead, at);
  at = head.writeDoubleLE(checkpoint.maxSeq, at);
  at = head.writeUInt8(checkpoint.hasLines ? 1 : 0, at);
  head.writeUInt32LE(checkpoint.slots.length, at);
  const payloadLength = Buffer.alloc(4);
  payloadLength.writeUInt32LE(partsLength(checkpoint.payload));
  return [head, bytesOf(checkpoint.slots), bytesOf(checkpoint.offsets), bytesOf(checkpoint.lengths), payloadLength, ...checkpoint.payload];
}

/** Reads a segment checkpoint; throws when it is damaged, cut short or of another format. */
export function decodeSegmentCheckpoint(bytes: Buffer): SegmentCheckpoint {
  const reader = new Reader(unsealed(bytes));
  if (reader.u32() !== SEGMENT_MAGIC || reader.u8() !== FORMAT) throw new Error('not a segment checkpoint of this version');
  const segmentSize = reader.u32();
  const file = { size: reader.f64(), mtimeMs: reader.f64(), ino: reader.f64() };
  const live = reader.u32();
  const dead = reader.u32();
  const maxSeq = reader.f64();
  const hasLines = reader.u8() === 1;
  const n = reader.u32();
  const slots = reader.array(Uint32Array, n);
  const offsets = reader.array(Float64Array, n);
  const lengths = reader.array(Uint32Array, n);
  const payload = reader.take(reader.u32());
  reader.end();
  return { segmentSize, file, live, dead, maxSeq, hasLines, slots, offsets, lengths, payload };
}

/** A sealed pack as last scanned: the file, and the offsets of entries that failed their checksum. */
export interface PackCheckpoint {
  no: number;
  file: FileIdentity;
  damaged: number[];
}

export function encodePacksCheckpoint(packs: readonly PackCheckpoint[]): Parts {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(9);
  head.writeUInt32LE(PACKS_MAGIC, 0);
  head.writeUInt8(FORMAT, 4);
  head.writeUInt32LE(packs.length, 5);
  parts.push(head);
  for (const pack of packs) {
    const entry = Buffer.alloc(4 + 8 * 3 + 4 + 8 * pack.damaged.length);
    let at = entry.writeUInt32LE(pack.no, 0);
    at = entry.writeDoubleLE(pack.file.size, at);
    at = entry.writeDoubleLE(pack.file.mtimeMs, at);
    at = entry.writeDoubleLE(pack.file.ino, at);
    at = entry.writeUInt32LE(pack.damaged.length, at);
    for (const offset of pack.damaged) at = entry.writeDoubleLE(offset, at);
    parts.push(entry);
  }
  return parts;
}

export function decodePacksCheckpoint(bytes: Buffer): PackCheckpoint[] {
  const reader = new Reader(unsealed(bytes));
  if (reader.u32() !== PACKS_MAGIC || reader.u8() !== FORMAT) throw new Error('not a packs checkpoint of this version');
  const packs: PackCheckpoint[] = [];
  for (let count = reader.u32(), i = 0; i < count; i++) {
    const no = reader.u32();
    const file = { size: reader.f64(), mtimeMs: reader.f64(), ino: reader.f64() };
    const damaged: number[] = [];
    for (let n = reader.u32(), j = 0; j < n; j++) damaged.push(reader.f64());
    packs.push({ no, file, damaged });
  }
  reader.end();
  return packs;
}

/** Bytes of CRC-32 taken in one go between pauses: about a tenth of a millisecond here. */
const CRC_SLICE = 256 * 1024;

/**
 * The parts, then a CRC-32 of all of them, taken part by part (nothing is joined) and, given a
 * `pause`, a slice at a time with the pause between: a segment's checkpoint is megabytes, whose
 * checksum in one go held sends up for a millisecond or two.
 */
async function sealed(parts: Parts, pause?: () => Promise<void>): Promise<Parts> {
  let sum = 0;
  let since = 0;
  for (const part of parts) {
    for (let at = 0; at < part.length; ) {
      if (since >= CRC_SLICE) {
        if (pause) await pause();
        since = 0;
      }
      const end = Math.min(part.length, at + CRC_SLICE - since);
      sum = crc32(part.subarray(at, end), sum);
      since += end - at;
      at = end;
    }
  }
  const tail = Buffer.alloc(4);
  tail.writeUInt32LE(sum);
  return [...parts, tail];
}

function unsealed(bytes: Buffer): Buffer {
  if (bytes.length < 4) throw new Error('checkpoint cut short');
  const body = bytes.subarray(0, bytes.length - 4);
  if (crc32(body) !== bytes.readUInt32LE(bytes.length - 4)) throw new Error('checkpoint checksum does not match');
  return body;
}

/** The bytes of a typed array, without copying. */
export function bytesOf(array: Float64Array | Uint16Array | Uint32Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}

/**
 * Reads a binary format front to back, refusing to read past its end. Numbers and strings are
 * read in place (no Buffer made per field): start-up reads a million rows through it.
 */
export class Reader {
  private at = 0;

  constructor(private readonly data: Buffer) {}

  /** Where the next read starts. */
  get offset(): number {
    return this.at;
  }

  /** Moves past `length` bytes; returns where they start. */
  skip(length: number): number {
    if (length < 0 || this.at + length > this.data.length) throw new Error('cut short');
    const start = this.at;
    this.at += length;
    return start;
  }

  take(length: number): Buffer {
    const start = this.skip(length);
    return this.data.subarray(start, start + length);
  }

  u8(): number {
    return this.data.readUInt8(this.skip(1));
  }

  u32(): number {
    return this.data.readUInt32LE(this.skip(4));
  }

  f64(): number {
    return this.data.readDoubleLE(this.skip(8));
  }

  utf8(length: number): string {
    const start = this.skip(length);
    return this.data.toString('utf8', start, start + length);
  }

  array<A extends Float64Array | Uint16Array | Uint32Array>(kind: { new (length: number): A; BYTES_PER_ELEMENT: number }, n: number): A {
    const out = new kind(n);
    const start = this.skip(n * kind.BYTES_PER_ELEMENT);
    new Uint8Array(out.buffer).set(this.data.subarray(start, start + n * kind.BYTES_PER_ELEMENT));
    return out;
  }

  end(): void {
    if (this.at !== this.data.length) throw new Error('bytes after the end');
  }
}

/**
 * Writes a checkpoint file whole from its parts, sealed (a CRC-32 at the end, `pause` between
 * its slices): a temporary file renamed over the old one (removed if that fails).
 */
export async function writeCheckpoint(fs: Fs, target: string, parts: Parts, pause?: () => Promise<void>): Promise<void> {
  const bytes = await sealed(parts, pause);
  const temp = `${target}.tmp`;
  try {
    const handle = await fs.open(temp, 'w');
    try {
      await fs.writeAt(handle, bytes, 0);
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}
