import { Reader } from '../disk/checkpoint.ts';
import { COLUMNS_FORMAT, decodeColumns, encodeColumns, FlagSets, type RecipientColumns } from './recipient-rows.ts';
import { keepRows, lowerBound, resized, slotWithSeq } from './rows.ts';
import type { RecipientRecord } from '../records.ts';

const INITIAL_SLOTS = 1024;
const INITIAL_TABLE = 2048;
const INITIAL_ARENA = 64 * 1024;
/** The hash table grows (by half) once it is this full: linear probing stays short. */
const MAX_LOAD = 0.75;
const DEAD = 1;
/**
 * The text kept is not the record's exactly: it holds a lone surrogate, which UTF-8 cannot
 * carry, so a search asks the record itself.
 */
const INEXACT = 2;
/** The row-by-row format of checkpoints written before the column format (recipient-rows.ts): still read. */
const ROWS_FORMAT = 1;
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * What a recipient is looked up by: its team and its address without regard to case (the same
 * rule as the domain's emailKey, docs/api-contract.md §5).
 */
export function recipientKey(team: string, email: string): string {
  return `${team}\u0000${email.trim().toLowerCase()}`;
}

/** A 32-bit hash of a lookup key (FNV-1a over its UTF-16 units, then mixed). */
function keyHash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** What the sandbox's search looks in: the address, the names and the flags, lowercased. */
export function recipientText(record: RecipientRecord): string {
  return [record.email, record.firstName, record.lastName, ...record.flags].join('\n').toLowerCase();
}

export interface RecipientIndexOptions {
  /** The lookup key's 32-bit hash (tests force collisions with a poor one). */
  hash?: (key: string) => number;
}

/**
 * Every recipient, as compact as lookups, lists, search and pruning allow (docs/storage.md,
 * Memory). Fixed-size fields live in typed arrays, one slot per recipient in sequence order:
 * the sequence number, the team (interned), when it was last changed, its key's hash, its set of
 * flags (interned), where its search text is, and a change stamp. The search texts are UTF-8 in
 * one shared buffer. A hash table (a typed array, open addressing) leads from a key's hash to
 * the slots that may hold it: the caller checks the record itself. Everything else is read from
 * the segment file when it is needed.
 */
export class RecipientIndex {
  private capacity = INITIAL_SLOTS;
  /** Sequence numbers (a recipient counter beyond 2^32 is not a sandbox's). */
  private seqs = new Uint32Array(INITIAL_SLOTS);
  private updated = new Float64Array(INITIAL_SLOTS);
  private hashes = new Uint32Array(INITIAL_SLOTS);
  private teams = new Uint16Array(INITIAL_SLOTS);
  private sets = new Uint32Array(INITIAL_SLOTS);
  /** Where each slot's text entry (its length as a varint, then its bytes) starts in the arena. */
  private texts = new Uint32Array(INITIAL_SLOTS);
  private stamps = new Uint32Array(INITIAL_SLOTS);
  private bits = new Uint8Array(INITIAL_SLOTS);
  private used = 0;
  private live = 0;
  /** Slot + 1 of each entry; 0 is empty. Its size need not be a power of two (see home). */
  private table = new Uint32Array(INITIAL_TABLE);
  private arena = Buffer.alloc(INITIAL_ARENA);
  private arenaUsed = 0;
  /** Bytes of the arena no slot points at any more (changed or removed texts). */
  private arenaDead = 0;
  private changes = 0;
  /** Team ids, interned: a handful per configuration. */
  private readonly teamNames: string[] = [];
  private readonly teamIds = new Map<string, number>();
  private readonly flagSets = new FlagSets();
  private readonly hash: (key: string) => number;

  constructor(options: RecipientIndexOptions = {}) {
    this.hash = options.hash ?? keyHash;
  }

  get size(): number {
    return this.live;
  }

  /** Adds a recipient; they arrive in sequence order. Returns its change stamp. */
  add(record: RecipientRecord): number {
    const slot = this.append(
      record.seq,
      this.teamId(record.team),
      this.hash(recipientKey(record.team, record.email)),
      Date.parse(record.updatedAt),
      this.flagSets.acquire(record.flags),
      recipientText(record),
    );
    return (this.stamps[slot] = this.nextStamp());
  }

  /** The recipient changed (names, flags, when): its fields again, and a new change stamp. */
  update(record: RecipientRecord): number {
    const slot = this.slotOf(record.seq);
    if (slot < 0) throw new Error(`recipient ${record.seq} is not in the index`);
    this.updated[slot] = Date.parse(record.updatedAt);
    const set = this.flagSets.acquire(record.flags);
    this.flagSets.release(this.sets[slot]!);
    this.sets[slot] = set;
    this.replaceText(slot, recipientText(record));
    return (this.stamps[slot] = this.nextStamp());
  }

  remove(seq: number): boolean {
    const slot = this.slotOf(seq);
    if (slot < 0) return false;
    this.tableDelete(slot);
    this.bits[slot]! |= DEAD;
    this.flagSets.release(this.sets[slot]!);
    this.arenaDead += this.entryBytes(slot);
    this.live--;
    if (this.used - this.live > Math.max(4096, this.live)) this.compact();
    else this.maybeCompactArena();
    return true;
  }

  /** The slot of a live recipient, or -1. */
  slotOf(seq: number): number {
    const slot = slotWithSeq(this.seqs, this.used, seq);
    return slot >= 0 && !(this.bits[slot]! & DEAD) ? slot : -1;
  }

  /**
   * The slot whose record has this key, or -1: `isIt` is asked (with the sequence number) for
   * each slot whose key has the same hash, and must check the record itself. Should two have
   * the key (files edited by hand), the newest is the one, as when every record was in a Map.
   */
  find(key: string, isIt: (seq: number) => boolean): number {
    const h = this.hash(key) >>> 0;
    const table = this.table;
    let found = -1;
    for (let at = this.home(h); table[at] !== 0; at = this.next(at)) {
      const slot = table[at]! - 1;
      if (slot > found && this.hashes[slot] === h && isIt(this.seqs[slot]!)) found = slot;
    }
    return found;
  }

  /** Live slots, newest first; stops when `visit` returns false. */
  scanNewestFirst(visit: (slot: number) => boolean | undefined): void {
    for (let slot = this.used - 1; slot >= 0; slot--) {
      if (this.bits[slot]! & DEAD) continue;
      if (visit(slot) === false) return;
    }
  }

  seq(slot: number): number {
    return this.seqs[slot]!;
  }
  /** When the recipient was last changed (ms since the epoch). */
  updatedMs(slot: number): number {
    return this.updated[slot]!;
  }
  /** The stamp of the slot's latest change in this process (see add and update). */
  stamp(slot: number): number {
    return this.stamps[slot]!;
  }
  /** The team's interned id, or -1 when no recipient ever had it. */
  teamIdOf(team: string): number {
    return this.teamIds.get(team) ?? -1;
  }
  teamIdAt(slot: number): number {
    return this.teams[slot]!;
  }
  team(slot: number): string {
    return this.teamNames[this.teams[slot]!]!;
  }
  /** The hash a key has here. */
  hashOf(key: string): number {
    return this.hash(key) >>> 0;
  }
  hashAt(slot: number): number {
    return this.hashes[slot]!;
  }
  /** Whether the slot's recipient has this flag: `sets` is what setsWithFlag gave for it. */
  hasFlag(slot: number, sets: Uint8Array): boolean {
    return sets[this.sets[slot]!] === 1;
  }
  /** Which interned flag sets hold `flag` (indexed by set id), for hasFlag. */
  setsWithFlag(flag: string): Uint8Array {
    return this.flagSets.withFlag(flag);
  }

  /**
   * Whether the slot's search text holds every needle (UTF-8 bytes of lowercased words); null
   * when the text kept is not exact and the record must be asked.
   */
  textHas(slot: number, needles: readonly Uint8Array[]): boolean | null {
    if (this.bits[slot]! & INEXACT) return null;
    const start = this.textStart(slot);
    const end = start + this.textLength(slot);
    for (const needle of needles) if (!contains(this.arena, start, end, needle)) return false;
    return true;
  }

  /**
   * The rows whose sequence number is in [lo, hi), self-contained (teams and flags written as
   * strings), for a checkpoint of the index; restoreRange reads them back.
   */
  serializeRange(lo: number, hi: number, expected: readonly number[]): Buffer | null {
    const rows: number[] = [];
    for (let slot = lowerBound(this.seqs, this.used, lo); slot < this.used && this.seqs[slot]! < hi; slot++) {
      if (this.bits[slot]! & DEAD) continue;
      // What the segment file holds live must be these rows: otherwise a change is not settled.
      if (this.seqs[slot] !== expected[rows.length]) return null;
      rows.push(slot);
    }
    if (rows.length !== expected.length) return null;
    const count = rows.length;
    const names: string[] = [];
    const nameIds = new Map<string, number>();
    const name = (value: string) => {
      let id = nameIds.get(value);
      if (id === undefined) nameIds.set(value, (id = names.push(value) - 1));
      return id;
    };
    const columns: RecipientColumns = {
      count,
      seqs: Uint32Array.from(rows, (slot) => this.seqs[slot]!),
      updated: Float64Array.from(rows, (slot) => this.updated[slot]!),
      hashes: Uint32Array.from(rows, (slot) => this.hashes[slot]!),
      bits: Uint8Array.from(rows, (slot) => this.bits[slot]! & INEXACT),
      teams: Uint32Array.from(rows, (slot) => name(this.team(slot))),
      flags: Uint32Array.from(rows, (slot) => name(this.flagSets.key(this.sets[slot]!))),
      names,
      starts: new Uint32Array(count),
      entries: Buffer.alloc(rows.reduce((sum, slot) => sum + this.entryBytes(slot), 0)),
    };
    let at = 0;
    rows.forEach((slot, i) => {
      columns.starts[i] = at;
      at += this.arena.copy(columns.entries, at, this.texts[slot]!, this.texts[slot]! + this.entryBytes(slot));
    });
    return encodeColumns(columns);
  }

  /**
   * Appends the rows serializeRange wrote (ranges arrive in sequence order); throws, having
   * changed nothing, on rows it cannot read.
   */
  restoreRange(buffer: Buffer): void {
    if (buffer[0] === COLUMNS_FORMAT) {
      this.restoreColumns(decodeColumns(buffer));
      return;
    }
    const input = new Reader(buffer);
    const format = input.u8();
    if (format !== ROWS_FORMAT) throw new Error(`recipient index rows in format ${format}, not ${ROWS_FORMAT}`);
    // Read into columns first (nothing changes until all of it reads), with no object or
    // string made per row: teams and flag sets repeat, so each is decoded when it differs from
    // the row before.
    const count = input.u32();
    const seqs = new Uint32Array(count);
    const updated = new Float64Array(count);
    const hashes = new Uint32Array(count);
    const bits = new Uint8Array(count);
    // Where each row's team, flags and text lie in `buffer`: start and length, in turn.
    const spans = new Uint32Array(6 * count);
    let last = this.used > 0 ? this.seqs[this.used - 1]! : 0;
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
    // Room for every row at once: growing step by step copied the columns and rebuilt the
    // hash table a dozen times on the way to 100,000.
    let textBytes = 0;
    for (let row = 0; row < count; row++) textBytes += spans[6 * row + 5]! + 5;
    if (this.used + count > this.capacity) this.resize(Math.max(this.used + count, Math.ceil(this.capacity * 1.5)));
    this.reserveArena(textBytes);
    if (this.live + count > this.table.length * MAX_LOAD)
      this.rebuildTable(Math.max(Math.ceil((this.live + count) / MAX_LOAD), Math.ceil(this.table.length * 1.5)));
    const text = (row: number, field: number) =>
      buffer.toString('utf8', spans[6 * row + 2 * field]!, spans[6 * row + 2 * field]! + spans[6 * row + 2 * field + 1]!);
    let team = 0;
    let flags = '';
    for (let row = 0; row < count; row++) {
      if (!same(row, 0)) team = this.teamId(text(row, 0));
      if (!same(row, 1)) flags = text(row, 1);
      const start = spans[6 * row + 4]!;
      const slot = this.append(seqs[row]!, team, hashes[row]!, updated[row]!, this.flagSets.acquireKey(flags), buffer, start, start + spans[6 * row + 5]!);
      this.bits[slot]! |= bits[row]! & INEXACT;
    }
  }

  /**
   * Appends a checkpoint's columns: each column copied whole, the texts in one copy into the
   * arena, each team and flag set looked up once; what is left per row is its hash table entry.
   */
  private restoreColumns(c: RecipientColumns): void {
    const { count } = c;
    if (count > 0 && this.used > 0 && c.seqs[0]! <= this.seqs[this.used - 1]!) throw new Error(`recipient ${c.seqs[0]} arrived out of order`);
    if (this.used + count > this.capacity) this.resize(Math.max(this.used + count, Math.ceil(this.capacity * 1.5)));
    this.reserveArena(c.entries.length);
    if (this.live + count > this.table.length * MAX_LOAD)
      this.rebuildTable(Math.max(Math.ceil((this.live + count) / MAX_LOAD), Math.ceil(this.table.length * 1.5)));
    const base = this.used;
    this.seqs.set(c.seqs, base);
    this.updated.set(c.updated, base);
    this.hashes.set(c.hashes, base);
    this.stamps.fill(0, base, base + count);
    const teamUse = new Uint8Array(c.names.length);
    const uses = new Uint32Array(c.names.length);
    for (let i = 0; i < count; i++) {
      teamUse[c.teams[i]!] = 1;
      uses[c.flags[i]!]!++;
    }
    const teams = c.names.map((name, i) => (teamUse[i] ? this.teamId(name) : 0));
    const sets = c.names.map((name, i) => (uses[i]! > 0 ? this.flagSets.acquireKey(name, uses[i]) : 0));
    const arenaAt = this.arenaUsed;
    c.entries.copy(this.arena, arenaAt);
    this.arenaUsed += c.entries.length;
    for (let i = 0; i < count; i++) {
      const slot = base + i;
      this.bits[slot] = c.bits[i]! & INEXACT;
      this.teams[slot] = teams[c.teams[i]!]!;
      this.sets[slot] = sets[c.flags[i]!]!;
      this.texts[slot] = arenaAt + c.starts[i]!;
    }
    this.used += count;
    this.live += count;
    for (let slot = base; slot < this.used; slot++) this.tableInsert(slot);
  }

  /** Gives back the spare room of the arrays and the arena (start-up is over: growing again copies them). */
  trim(): void {
    this.resize(Math.max(INITIAL_SLOTS, this.used));
    if (this.arena.length > Math.max(INITIAL_ARENA, this.arenaUsed)) {
      const arena = Buffer.alloc(Math.max(INITIAL_ARENA, this.arenaUsed));
      this.arena.copy(arena, 0, 0, this.arenaUsed);
      this.arena = arena;
    }
  }

  /** Bytes the index holds (typed arrays and arena, at their capacity), for the benchmark. */
  get bytes(): number {
    const arrays = [this.seqs, this.updated, this.hashes, this.teams, this.sets, this.texts, this.stamps, this.bits, this.table];
    return arrays.reduce((sum, a) => sum + a.byteLength, 0) + this.arena.length;
  }

  private append(seq: number, team: number, hash: number, updated: number, set: number, text: string | Buffer, from = 0, to = text.length): number {
    if (this.used > 0 && seq <= this.seqs[this.used - 1]!) throw new Error(`recipient ${seq} arrived out of order`);
    if (seq > 0xffffffff) throw new Error(`recipient ${seq} is beyond the index's range`);
    // Half as much again each time: the spare room stays a third of the rows at most.
    if (this.used === this.capacity) this.resize(Math.ceil(this.capacity * 1.5));
    const slot = this.used++;
    this.seqs[slot] = seq;
    this.updated[slot] = updated;
    this.hashes[slot] = hash >>> 0;
    this.teams[slot] = team;
    this.sets[slot] = set;
    this.stamps[slot] = 0;
    this.bits[slot] = 0;
    this.texts[slot] = this.writeText(slot, text, from, to);
    this.live++;
    if (this.live > this.table.length * MAX_LOAD) this.rebuildTable(Math.ceil(this.table.length * 1.5));
    else this.tableInsert(slot);
    return slot;
  }

  private nextStamp(): number {
    this.changes = this.changes === 0xffffffff ? 1 : this.changes + 1;
    return this.changes;
  }

  private teamId(team: string): number {
    let id = this.teamIds.get(team);
    if (id === undefined) {
      id = this.teamNames.length;
      if (id > 0xffff) throw new Error('more than 65,536 teams');
      this.teamNames.push(team);
      this.teamIds.set(team, id);
    }
    return id;
  }

  /** Where slot `at` of the table is for hash `h`: its high bits scaled to the table's size. */
  private home(h: number): number {
    return Math.floor((h / 4294967296) * this.table.length);
  }

  private next(at: number): number {
    return at + 1 === this.table.length ? 0 : at + 1;
  }

  private tableInsert(slot: number): void {
    const table = this.table;
    let at = this.home(this.hashes[slot]!);
    while (table[at] !== 0) at = this.next(at);
    table[at] = slot + 1;
  }

  /** Takes the slot out of the table, moving back the entries after it (no tombstones). */
  private tableDelete(slot: number): void {
    const table = this.table;
    let hole = this.home(this.hashes[slot]!);
    while (table[hole] !== slot + 1) {
      if (table[hole] === 0) return;
      hole = this.next(hole);
    }
    for (let at = this.next(hole); table[at] !== 0; at = this.next(at)) {
      const home = this.home(this.hashes[table[at]! - 1]!);
      // An entry whose home lies cyclically in (hole, at] stays; any other may fill the hole.
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      table[hole] = table[at]!;
      hole = at;
    }
    table[hole] = 0;
  }

  private rebuildTable(size: number): void {
    this.table = new Uint32Array(Math.max(INITIAL_TABLE, size));
    for (let slot = 0; slot < this.used; slot++) if (!(this.bits[slot]! & DEAD)) this.tableInsert(slot);
  }

  private textStart(slot: number): number {
    let at = this.texts[slot]!;
    while (this.arena[at]! & 0x80) at++;
    return at + 1;
  }

  private textLength(slot: number): number {
    let at = this.texts[slot]!;
    let length = 0;
    let scale = 1;
    for (;;) {
      const byte = this.arena[at++]!;
      length += (byte & 0x7f) * scale;
      if (!(byte & 0x80)) return length;
      scale *= 128;
    }
  }

  /** The bytes of the slot's entry in the arena (the varint and the text). */
  private entryBytes(slot: number): number {
    return this.textStart(slot) - this.texts[slot]! + this.textLength(slot);
  }

  /** Appends a text entry to the arena (marking the slot inexact if need be); returns where it starts. */
  private writeText(slot: number, text: string | Buffer, from = 0, to = text.length): number {
    const length = typeof text === 'string' ? Buffer.byteLength(text) : to - from;
    this.reserveArena(length + 5);
    const start = this.arenaUsed;
    let at = start;
    for (let rest = length; ; rest = Math.floor(rest / 128)) {
      if (rest < 128) {
        this.arena[at++] = rest;
        break;
      }
      this.arena[at++] = (rest & 0x7f) | 0x80;
    }
    if (typeof text === 'string') {
      this.arena.write(text, at, 'utf8');
      if (LONE_SURROGATE.test(text)) this.bits[slot]! |= INEXACT;
    } else if (length < 64) {
      // A recipient's text is a few dozen bytes: Buffer#copy's checks cost more than the copy.
      for (let i = 0; i < length; i++) this.arena[at + i] = text[from + i]!;
    } else text.copy(this.arena, at, from, to);
    this.arenaUsed = at + length;
    return start;
  }

  /** Gives the slot a new text, unless it has the same one already. */
  private replaceText(slot: number, text: string): void {
    const inexact = LONE_SURROGATE.test(text);
    const length = Buffer.byteLength(text);
    const start = this.textStart(slot);
    if (!inexact && !(this.bits[slot]! & INEXACT) && length === this.textLength(slot)) {
      // Written after the end and compared there: no string is made of the old text.
      this.reserveArena(length);
      this.arena.write(text, this.arenaUsed, 'utf8');
      if (this.arena.compare(this.arena, start, start + length, this.arenaUsed, this.arenaUsed + length) === 0) return;
    }
    this.arenaDead += this.entryBytes(slot);
    this.bits[slot]! &= ~INEXACT;
    this.texts[slot] = this.writeText(slot, text);
    this.maybeCompactArena();
  }

  private reserveArena(extra: number): void {
    if (this.arenaUsed + extra <= this.arena.length) return;
    // A quarter more each time: the spare room stays small next to the texts.
    const next = Buffer.alloc(Math.max(this.arenaUsed + extra, Math.ceil(this.arena.length * 1.25)));
    this.arena.copy(next, 0, 0, this.arenaUsed);
    this.arena = next;
  }

  private maybeCompactArena(): void {
    if (this.arenaDead > 64 * 1024 && this.arenaDead > this.arenaUsed / 2) this.compactArena();
  }

  /** Writes the live texts into a new arena, in slot order. */
  private compactArena(): void {
    const old = this.arena;
    const oldTexts = this.texts;
    let live = 0;
    for (let slot = 0; slot < this.used; slot++) if (!(this.bits[slot]! & DEAD)) live += this.entryBytes(slot);
    const arena = Buffer.alloc(Math.max(INITIAL_ARENA, Math.ceil(live * 1.25)));
    let at = 0;
    for (let slot = 0; slot < this.used; slot++) {
      if (this.bits[slot]! & DEAD) continue;
      const from = oldTexts[slot]!;
      const bytes = this.entryBytes(slot);
      old.copy(arena, at, from, from + bytes);
      this.texts[slot] = at;
      at += bytes;
    }
    this.arena = arena;
    this.arenaUsed = at;
    this.arenaDead = 0;
  }

  /** Drops dead slots (after many removals). */
  private compact(): void {
    this.compactArena();
    const columns = [this.seqs, this.updated, this.hashes, this.teams, this.sets, this.texts, this.stamps, this.bits];
    const to = keepRows(columns, this.used, (slot) => !(this.bits[slot]! & DEAD));
    this.used = to;
    this.resize(Math.max(INITIAL_SLOTS, to * 2));
    this.rebuildTable(Math.ceil(this.live / 0.5));
  }

  private resize(capacity: number): void {
    this.seqs = resized(this.seqs, this.used, capacity);
    this.updated = resized(this.updated, this.used, capacity);
    this.hashes = resized(this.hashes, this.used, capacity);
    this.teams = resized(this.teams, this.used, capacity);
    this.sets = resized(this.sets, this.used, capacity);
    this.texts = resized(this.texts, this.used, capacity);
    this.stamps = resized(this.stamps, this.used, capacity);
    this.bits = resized(this.bits, this.used, capacity);
    this.capacity = capacity;
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
