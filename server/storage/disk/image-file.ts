import { crc32 } from 'node:zlib';
import { writeCheckpoint } from './checkpoint.ts';
import type { Fs } from './fs.ts';

/**
 * The start-up image's file (docs/storage.md, "The start-up image (after a clean stop)"): what the indexes hold in
 * memory, written whole at a clean stop so that the next start reads it straight into the arrays
 * it keeps, with no row decoded, copied or hashed. A file of sections, each plain values (JSON)
 * and typed arrays:
 *
 *   "PHIG" | format (1 byte) | header length (u32) | header (JSON) | each array's bytes | CRC-32
 *
 * The header names each section's values and its arrays' kinds, lengths and the room to make for
 * them; the arrays follow in that order, each only as long as it is used. Like a checkpoint it is
 * a cache: sealed with a CRC-32 of everything before it, written to a temporary file and renamed
 * into place, and anything that does not read back exactly is ignored.
 */

const MAGIC = 0x47494850; // "PHIG"
/** Bumped whenever what any section holds changes (an older image is then simply not read). */
const FORMAT = 2;
/** Array reads in flight at once (the thread pool's four threads, and as many queued). */
const READS_AHEAD = 8;

/** The kinds of array an image holds (`bytes`: a Buffer, not zero-filled past its length). */
const KINDS = {
  f64: Float64Array,
  u32: Uint32Array,
  u16: Uint16Array,
  u8: Uint8Array,
  bytes: Buffer,
} as const;

type Kind = keyof typeof KINDS;
export type ImageArray = Float64Array<ArrayBuffer> | Uint32Array<ArrayBuffer> | Uint16Array<ArrayBuffer> | Uint8Array<ArrayBuffer>;

function kindOf(array: ImageArray): Kind {
  if (Buffer.isBuffer(array)) return 'bytes';
  if (array instanceof Float64Array) return 'f64';
  if (array instanceof Uint32Array) return 'u32';
  if (array instanceof Uint16Array) return 'u16';
  return 'u8';
}

/**
 * One part of the image (an index, a segment log): its plain values, and its arrays in the order
 * `put` gave them, which is the order `take` hands them back in.
 */
export class ImageSection {
  readonly arrays: ImageArray[] = [];
  /** For each array, the room to make for it when it is read back (at least its length). */
  readonly rooms: number[] = [];
  private next = 0;

  constructor(public values: Record<string, unknown> = {}) {}

  /** Saves the first `length` elements of `array`; read back into an array of `room` elements. */
  put(array: Float64Array | Uint32Array | Uint16Array | Uint8Array, length = array.length, room = length): void {
    this.arrays.push(array.subarray(0, length) as ImageArray);
    this.rooms.push(Math.max(room, length));
  }

  /** The next array, read back, a Buffer as `put` gave it. */
  bytes(): Buffer<ArrayBuffer> {
    const array = this.arrays[this.next++];
    if (!Buffer.isBuffer(array)) throw new Error('start-up image: an array is not of the kind expected');
    return array as Buffer<ArrayBuffer>;
  }

  /** The next array, read back, of the kind `put` gave (throws on any other). */
  take<A extends ImageArray>(kind: abstract new (...args: never[]) => A): A {
    const array = this.arrays[this.next++];
    if (!(array instanceof kind)) throw new Error('start-up image: an array is not of the kind expected');
    return array;
  }
}

interface Header {
  sections: Record<string, { values: Record<string, unknown>; arrays: [Kind, number, number][] }>;
}

/** Writes the sections as the image at `file` (a temporary file renamed over it). */
export async function writeImage(fs: Fs, file: string, sections: Record<string, ImageSection>): Promise<void> {
  const header: Header = { sections: {} };
  const parts: Buffer[] = [];
  for (const [name, section] of Object.entries(sections)) {
    header.sections[name] = { values: section.values, arrays: section.arrays.map((array, i) => [kindOf(array), array.length, section.rooms[i]!]) };
    for (const array of section.arrays) parts.push(Buffer.from(array.buffer, array.byteOffset, array.byteLength));
  }
  const json = Buffer.from(JSON.stringify(header));
  const head = Buffer.alloc(9);
  head.writeUInt32LE(MAGIC, 0);
  head.writeUInt8(FORMAT, 4);
  head.writeUInt32LE(json.length, 5);
  await writeCheckpoint(fs, file, [head, json, ...parts]);
}

/** An image's header, read and checked against the file's size, before any of its arrays. */
export interface ImageHeader {
  sections: Record<string, { values: Record<string, unknown> }>;
}

/**
 * An image file opened: its header (to decide whether the image may be used, before reading
 * megabytes of it), then `read` for its sections. Null when there is none, or it is not an image
 * of this format of the size its header says.
 */
export async function openImage(
  fs: Fs,
  file: string,
): Promise<{ header: ImageHeader; read(): Promise<Record<string, ImageSection> | null>; close(): Promise<void> } | null> {
  let handle: Awaited<ReturnType<Fs['open']>>;
  try {
    handle = await fs.open(file, 'r');
  } catch {
    return null;
  }
  const close = () => handle.close().catch(() => undefined);
  try {
    const { size } = await handle.stat();
    const head = await fs.readAt(handle, 0, 9);
    if (head.length < 9 || head.readUInt32LE(0) !== MAGIC || head.readUInt8(4) !== FORMAT) throw new Error('not an image of this format');
    const json = await fs.readAt(handle, 9, head.readUInt32LE(5));
    const header = JSON.parse(json.toString('utf8')) as Header;
    let bytes = 9 + json.length + 4;
    for (const section of Object.values(header.sections)) for (const [kind, length] of section.arrays) bytes += length * elementBytes(kind);
    if (bytes !== size) throw new Error('the image is not the size its header says');
    const read = async () => {
      try {
        return await readSections(fs, handle, header, crc32(json, crc32(head)), 9 + json.length, size);
      } catch {
        // A header damaged where its checksum is not yet known (a room too large to make, a kind
        // unknown, a read that fails): not an image to use.
        return null;
      } finally {
        await close();
      }
    };
    return { header, read, close };
  } catch {
    await close();
    return null;
  }
}

function elementBytes(kind: Kind): number {
  const type = KINDS[kind];
  if (!type) throw new Error(`an array of an unknown kind (${kind})`);
  return type === Buffer ? 1 : (type as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT;
}

/**
 * Reads every array into an array of its room (a few reads in flight), checks the CRC-32 in file
 * order; null when it does not match.
 */
async function readSections(
  fs: Fs,
  handle: Awaited<ReturnType<Fs['open']>>,
  header: Header,
  crcSoFar: number,
  from: number,
  size: number,
): Promise<Record<string, ImageSection> | null> {
  const sections: Record<string, ImageSection> = {};
  const reads: { target: Uint8Array; at: number }[] = [];
  let at = from;
  for (const [name, { values, arrays }] of Object.entries(header.sections)) {
    const section = new ImageSection(values);
    for (const [kind, length, room] of arrays) {
      const array = kind === 'bytes' ? Buffer.allocUnsafeSlow(Math.max(room, length)) : new KINDS[kind](Math.max(room, length));
      const bytes = length * elementBytes(kind);
      section.arrays.push(array);
      section.rooms.push(room);
      reads.push({ target: new Uint8Array(array.buffer, array.byteOffset, bytes), at });
      at += bytes;
    }
    sections[name] = section;
  }
  const pending: Promise<void>[] = [];
  const start = (i: number) => {
    if (i >= reads.length) return;
    const { target, at } = reads[i]!;
    const read = readFully(handle, target, at);
    read.catch(() => undefined);
    pending[i] = read;
  };
  for (let i = 0; i < READS_AHEAD; i++) start(i);
  let sum = crcSoFar;
  for (let i = 0; i < reads.length; i++) {
    await pending[i];
    start(i + READS_AHEAD);
    sum = crc32(reads[i]!.target, sum);
  }
  const tail = await fs.readAt(handle, size - 4, 4);
  return tail.length === 4 && tail.readUInt32LE(0) === sum ? sections : null;
}

async function readFully(handle: Awaited<ReturnType<Fs['open']>>, target: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < target.length; ) {
    const { bytesRead } = await handle.read(target, done, target.length - done, position + done);
    if (bytesRead === 0) throw new Error('the image ends early');
    done += bytesRead;
  }
}
