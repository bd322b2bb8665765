import { type Parts, Reader } from '../disk/checkpoint.ts';
import type { RecipientRecord } from '../records.ts';

/**
 * What the recipients' compact index (recipient-index.ts) keeps beside it: the interned flag
 * sets, and its rows as a checkpoint holds them.
 */

/**
 * What a recipient is looked up by: its team and its address without regard to case (the same
 * rule as the domain's emailKey, docs/api-contract.md §5).
 */
export function recipientKey(team: string, email: string): string {
  return `${team}\u0000${email.trim().toLowerCase()}`;
}

/** What the sandbox's search looks in (RecipientIndex's texts): the address, the names and the flags, lowercased. */
export function recipientText(record: RecipientRecord): string {
  return [record.email, record.firstName, record.lastName, ...record.flags].join('\n').toLowerCase();
}

/** The column format's leading byte. */
export const COLUMNS_FORMAT = 2;
/** The row-by-row format of checkpoints written before the column format: still read (decodeRows). */
const ROWS_FORMAT = 1;

/**
 * A checkpoint's rows column by column, so that start-up copies each column whole rather than
 * row by row: teams and flag sets as indexes into `names`, and the texts as the index's arena
 * holds them (a varint length, then the UTF-8), end to end in `entries`, row i's from starts[i].
 */
export interface RecipientColumns {
  count: number;
  seqs: Uint32Array;
  updated: Float64Array;
  hashes: Uint32Array;
  bits: Uint8Array;
  teams: Uint32Array;
  flags: Uint32Array;
  names: string[];
  starts: Uint32Array;
  entries: Buffer;
}

/** The columns as the parts of their bytes (checkpoint.ts Parts): the texts as they are, not copied again. */
export function encodeColumns(c: RecipientColumns): Parts {
  const out = new Writer();
  out.byte(COLUMNS_FORMAT);
  out.u32(c.count);
  out.u32(c.names.length);
  for (const name of c.names) out.string(name);
  for (const column of [c.seqs, c.updated, c.hashes, c.teams, c.flags, c.starts, c.bits])
    out.attach(Buffer.from(column.buffer, column.byteOffset, column.byteLength));
  out.u32(c.entries.length);
  out.attach(c.entries);
  return out.done();
}

/** Reads encodeColumns' bytes; throws on anything that does not hold together. */
export function decodeColumns(buffer: Buffer): RecipientColumns {
  const input = new Reader(buffer);
  if (input.u8() !== COLUMNS_FORMAT) throw new Error('not recipient columns');
  const count = input.u32();
  const names: string[] = [];
  for (let n = input.u32(), i = 0; i < n; i++) names.push(input.utf8(input.u32()));
  const seqs = input.array(Uint32Array, count);
  const updated = input.array(Float64Array, count);
  const hashes = input.array(Uint32Array, count);
  const teams = input.array(Uint32Array, count);
  const flags = input.array(Uint32Array, count);
  const starts = input.array(Uint32Array, count);
  const bits = Uint8Array.from(input.take(count));
  const entries = input.take(input.u32());
  input.end();
  for (let i = 0; i < count; i++) {
    if (i > 0 && seqs[i]! <= seqs[i - 1]!) throw new Error(`recipient ${seqs[i]} arrived out of order`);
    if (teams[i]! >= names.length || flags[i]! >= names.length) throw new Error('recipient columns name a missing string');
    if (starts[i]! >= entries.length || (i > 0 && starts[i]! <= starts[i - 1]!)) throw new Error('recipient columns misplace a text');
  }
  return { count, seqs, updated, hashes, bits, teams, flags, names, starts, entries };
}

/**
 * Reads a checkpoint's rows in the row-by-row format (ROWS_FORMAT), after sequence number
 * `last`: into columns first (nothing changes until all of it reads), with no object or string
 * made per row. `spans` holds where each row's team, flags and text lie in `buffer` (start and
 * length, in turn); teams and flag sets repeat, so `same(row, field)` says whether the row's
 * field is the row before's, and each is decoded only when it differs.
 */
export function decodeRows(buffer: Buffer, last: number) {
  const input = new Reader(buffer);
  const format = input.u8();
  if (format !== ROWS_FORMAT) throw new Error(`recipient index rows in format ${format}, not ${ROWS_FORMAT}`);
  const count = input.u32();
  const seqs = new Uint32Array(count);
  const updated = new Float64Array(count);
  const hashes = new Uint32Array(count);
  const bits = new Uint8Array(count);
  const spans = new Uint32Array(6 * count);
  for (let row = 0; row < count; row++) {
    seqs[row] = input.u32();
    if (seqs[row]! <= last) throw new Error(`recipient ${seqs[row]} arrived out of order`);
    last = seqs[row]!;
    updated[row] = input.f64();
    hashes[row] = input.u32();
    bits[row] = input.u8();
    for (let field = 0; field < 3; field++) {
      const length = input.u32();
      spans[6 * row + 2 * field] = input.skip(length);
      spans[6 * row + 2 * field + 1] = length;
    }
  }
  input.end();
  // Byte by byte: teams and flag sets are a few bytes, where Buffer#compare's argument checks
  // cost more than the comparison (a fifth of a restart at 100,000 recipients).
  const same = (row: number, field: number) => {
    if (row === 0) return false;
    const a = spans[6 * (row - 1) + 2 * field]!;
    const b = spans[6 * row + 2 * field]!;
    const length = spans[6 * row + 2 * field + 1]!;
    if (spans[6 * (row - 1) + 2 * field + 1] !== length) return false;
    for (let i = 0; i < length; i++) if (buffer[a + i] !== buffer[b + i]) return false;
    return true;
  };
  return { count, seqs, updated, hashes, bits, spans, same };
}

/**
 * Sets of flags, interned (most recipients share a few): an id per distinct list, counted, and
 * given back once no recipient has it. Id 0 is no flags.
 */
export class FlagSets {
  /** Each set as JSON (the key it is interned by); null: free. */
  private readonly keys: (string | null)[] = [''];
  private readonly ids = new Map<string, number>();
  private readonly refs: number[] = [0];
  private readonly free: number[] = [];

  acquire(flags: readonly string[]): number {
    return flags.length === 0 ? 0 : this.acquireKey(JSON.stringify(flags));
  }

  /** As acquire, given the set's key ('' for no flags), for `times` recipients at once. */
  acquireKey(key: string, times = 1): number {
    if (key === '') return 0;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.free.pop() ?? this.keys.length;
      this.keys[id] = key;
      this.refs[id] = 0;
      this.ids.set(key, id);
    }
    this.refs[id]! += times;
    return id;
  }

  release(id: number): void {
    if (id === 0) return;
    this.refs[id]!--;
    if (this.refs[id] !== 0) return;
    this.ids.delete(this.keys[id]!);
    this.keys[id] = null;
    this.free.push(id);
  }

  key(id: number): string {
    return this.keys[id] ?? '';
  }

  /** Its state for a start-up image (disk/image-file.ts): every set's key (null: free) and use count. */
  image(): [(string | null)[], number[]] {
    return [this.keys, this.refs];
  }

  /** What `image` saved, on sets that hold nothing yet. */
  adopt([keys, refs]: [(string | null)[], number[]]): void {
    for (const [id, key] of keys.entries()) {
      this.keys[id] = key;
      this.refs[id] = refs[id]!;
      if (key === null) this.free.push(id);
      else if (id > 0) this.ids.set(key, id);
    }
  }

  withFlag(flag: string): Uint8Array {
    const out = new Uint8Array(this.keys.length);
    for (let id = 1; id < this.keys.length; id++) {
      const key = this.keys[id];
      if (key && (JSON.parse(key) as string[]).includes(flag)) out[id] = 1;
    }
    return out;
  }
}

/** Builds a binary format front to back (checkpoint.ts Reader reads it). */
class Writer {
  private readonly parts: Buffer[] = [];
  private current = Buffer.alloc(4 * 1024);
  private at = 0;

  byte(value: number): void {
    this.room(1);
    this.current[this.at++] = value;
  }
  u32(value: number): void {
    this.room(4);
    this.at = this.current.writeUInt32LE(value, this.at);
  }
  f64(value: number): void {
    this.room(8);
    this.at = this.current.writeDoubleLE(value, this.at);
  }
  string(value: string): void {
    this.bytes(Buffer.from(value, 'utf8'));
  }
  bytes(value: Uint8Array): void {
    this.u32(value.length);
    this.raw(value);
  }
  /** The bytes as they are, without their length. */
  raw(value: Uint8Array): void {
    this.room(value.length);
    this.current.set(value, this.at);
    this.at += value.length;
  }
  /** Bytes to follow as they are, a part of their own (not copied). */
  attach(value: Buffer): void {
    this.parts.push(this.current.subarray(0, this.at), value);
    this.current = this.current.subarray(this.at);
    this.at = 0;
  }
  /** What was written, as parts. */
  done(): Parts {
    return [...this.parts, this.current.subarray(0, this.at)];
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.current.length) return;
    this.parts.push(this.current.subarray(0, this.at));
    this.current = Buffer.alloc(Math.max(4 * 1024, bytes));
    this.at = 0;
  }
}
