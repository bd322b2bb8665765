import type { ImageSection } from '../disk/image-file.ts';
import { roomFor } from './rows.ts';

const INITIAL_ARENA = 64 * 1024;

/**
 * The recipients' search texts (recipient-index.ts), UTF-8 in one shared buffer: each entry its
 * length as a varint, then its bytes; a row holds where its entry starts. Changed and removed
 * texts leave dead bytes until a compaction writes the live ones into a new buffer.
 */
export class TextArena {
  private arena = Buffer.alloc(INITIAL_ARENA);
  private used = 0;
  /** Bytes no row points at any more (changed or removed texts). */
  private dead = 0;

  /** Where the text of the entry at `at` starts (after its varint). */
  start(at: number): number {
    while (this.arena[at]! & 0x80) at++;
    return at + 1;
  }

  /** The length in bytes of the text of the entry at `at`. */
  length(at: number): number {
    let length = 0;
    let scale = 1;
    for (;;) {
      const byte = this.arena[at++]!;
      length += (byte & 0x7f) * scale;
      if (!(byte & 0x80)) return length;
      scale *= 128;
    }
  }

  /** The bytes of the entry at `at` (the varint and the text). */
  entryBytes(at: number): number {
    return this.start(at) - at + this.length(at);
  }

  /** Appends an entry for `text` (or its bytes from..to); returns where it starts. */
  write(text: string | Buffer, from = 0, to = text.length): number {
    const length = typeof text === 'string' ? Buffer.byteLength(text) : to - from;
    this.reserve(length + 5);
    const start = this.used;
    let at = start;
    for (let rest = length; ; rest = Math.floor(rest / 128)) {
      if (rest < 128) {
        this.arena[at++] = rest;
        break;
      }
      this.arena[at++] = (rest & 0x7f) | 0x80;
    }
    if (typeof text === 'string') this.arena.write(text, at, 'utf8');
    else if (length < 64) {
      // A recipient's text is a few dozen bytes: Buffer#copy's checks cost more than the copy.
      for (let i = 0; i < length; i++) this.arena[at + i] = text[from + i]!;
    } else text.copy(this.arena, at, from, to);
    this.used = at + length;
    return start;
  }

  /** Whether the entry at `at` holds `text` already (written after the end and compared there: no string is made of the old text). */
  holds(at: number, text: string): boolean {
    const length = Buffer.byteLength(text);
    if (length !== this.length(at)) return false;
    const start = this.start(at);
    this.reserve(length);
    this.arena.write(text, this.used, 'utf8');
    return this.arena.compare(this.arena, start, start + length, this.used, this.used + length) === 0;
  }

  /** The entry at `at` is no longer used. */
  drop(at: number): void {
    this.dead += this.entryBytes(at);
  }

  /** Entries laid end to end (a checkpoint's), copied in whole; returns where the first starts. */
  copyIn(entries: Buffer): number {
    this.reserve(entries.length);
    const at = this.used;
    entries.copy(this.arena, at);
    this.used += entries.length;
    return at;
  }

  /** Copies the entry at `at` into `target` at `targetAt`; returns its bytes. */
  copyOut(at: number, target: Buffer, targetAt: number): number {
    return this.arena.copy(target, targetAt, at, at + this.entryBytes(at));
  }

  reserve(extra: number): void {
    if (this.used + extra <= this.arena.length) return;
    // A quarter more each time: the spare room stays small next to the texts.
    // Not zero-filled: nothing reads past `used` (every read is of an entry's own bytes).
    const next = Buffer.allocUnsafeSlow(Math.max(this.used + extra, Math.ceil(this.arena.length * 1.25)));
    this.arena.copy(next, 0, 0, this.used);
    this.arena = next;
  }

  /** Its state for a start-up image (disk/image-file.ts): the bytes used, and how many are used and dead. */
  image(out: ImageSection): [number, number] {
    out.put(this.arena, this.used, this.arena.length);
    return [this.used, this.dead];
  }

  /** What `image` saved, on an arena that holds nothing yet. */
  adopt(from: ImageSection, [used, dead]: [number, number]): void {
    this.arena = from.bytes();
    this.used = used;
    this.dead = dead;
  }

  /** Whether enough of the arena is dead to be worth a compaction. */
  get wasteful(): boolean {
    return this.dead > 64 * 1024 && this.dead > this.used / 2;
  }

  /** Writes the live entries (of the first `rows` rows, `places[row]` where each starts) into a new arena, in row order. */
  compact(places: Uint32Array, rows: number, live: (row: number) => boolean): void {
    const old = this.arena;
    let bytes = 0;
    for (let row = 0; row < rows; row++) if (live(row)) bytes += this.entryBytes(places[row]!);
    const arena = Buffer.alloc(Math.max(INITIAL_ARENA, Math.ceil(bytes * 1.25)));
    let at = 0;
    for (let row = 0; row < rows; row++) {
      if (!live(row)) continue;
      const from = places[row]!;
      const length = this.entryBytes(from);
      old.copy(arena, at, from, from + length);
      places[row] = at;
      at += length;
    }
    this.arena = arena;
    this.used = at;
    this.dead = 0;
  }

  /** Gives back the spare room beyond an eighth of what is used (start-up is over: growing again copies it). */
  trim(): void {
    const room = roomFor(this.used, INITIAL_ARENA);
    if (this.arena.length <= room) return;
    const arena = Buffer.alloc(room);
    this.arena.copy(arena, 0, 0, this.used);
    this.arena = arena;
  }

  get byteLength(): number {
    return this.arena.length;
  }

  /** Whether the text of the entry at `at` holds `needle` (see contains). */
  has(at: number, needle: Uint8Array): boolean {
    const start = this.start(at);
    return contains(this.arena, start, start + this.length(at), needle);
  }
}

/** Each needle's failure table (Knuth-Morris-Pratt), made once per needle (a query's words are made once per list). */
const failures = new WeakMap<Uint8Array, Int32Array>();

function failureOf(needle: Uint8Array): Int32Array {
  let table = failures.get(needle);
  if (table) return table;
  table = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = table[k - 1]!;
    if (needle[i] === needle[k]) k++;
    table[i] = k;
  }
  failures.set(needle, table);
  return table;
}

/**
 * Whether `needle` occurs in haystack[start, end), in time linear in both (Knuth-Morris-Pratt):
 * a query word of repeated letters against a text of them costs no more than any other.
 */
function contains(haystack: Uint8Array, start: number, end: number, needle: Uint8Array): boolean {
  const n = needle.length;
  if (n === 0) return true;
  if (end - start < n) return false;
  const table = failureOf(needle);
  let k = 0;
  for (let at = start; at < end; at++) {
    const byte = haystack[at];
    while (k > 0 && byte !== needle[k]) k = table[k - 1]!;
    if (byte === needle[k]) k++;
    if (k === n) return true;
  }
  return false;
}
