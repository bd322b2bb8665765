import { Reader } from '../disk/checkpoint.ts';

/**
 * What the recipients' compact index (recipient-index.ts) keeps beside it: the interned flag
 * sets, and its rows as a checkpoint holds them.
 */

/** The column format's leading byte (format 1, row by row, is recipient-index.ts's). */
export const COLUMNS_FORMAT = 2;

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

export function encodeColumns(c: RecipientColumns): Buffer {
  const out = new Writer();
  out.byte(COLUMNS_FORMAT);
  out.u32(c.count);
  out.u32(c.names.length);
  for (const name of c.names) out.string(name);
  for (const column of [c.seqs, c.updated, c.hashes, c.teams, c.flags, c.starts]) out.raw(new Uint8Array(column.buffer, column.byteOffset, column.byteLength));
  out.raw(c.bits);
  out.bytes(c.entries);
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
  private current = Buffer.alloc(64 * 1024);
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
  done(): Buffer {
    return Buffer.concat([...this.parts, this.current.subarray(0, this.at)]);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.current.length) return;
    this.parts.push(this.current.subarray(0, this.at));
    this.current = Buffer.alloc(Math.max(64 * 1024, bytes));
    this.at = 0;
  }
}
