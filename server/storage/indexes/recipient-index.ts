import type { Parts } from '../disk/checkpoint.ts';
import type { ImageArray, ImageSection } from '../disk/image-file.ts';
import { COLUMNS_FORMAT, decodeColumns, decodeRows, encodeColumns, FlagSets, type RecipientColumns, recipientKey, recipientText } from './recipient-rows.ts';
import { KeyTable, keyHash } from './key-table.ts';
import { grownFrom, Interned, keepRows, liveRowsIn, newestFirst, nextTurn, roomFor, ROWS_PER_TURN, resized, slotWithSeq } from './rows.ts';
import { TextArena } from './text-arena.ts';
import type { RecipientRecord } from '../records.ts';

const INITIAL_SLOTS = 1024;
const DEAD = 1;
/** The text kept is not the record's exactly (a lone surrogate, which UTF-8 cannot carry): search asks the record. */
const INEXACT = 2;
const LONE_SURROGATE = /\p{Cs}/u;
/** seqs, updated, hashes, teams, sets, texts, stamps, bits (RecipientIndex.columns). */
type Columns = [U32, Float64Array<ArrayBuffer>, U32, Uint16Array<ArrayBuffer>, U32, U32, U32, Uint8Array<ArrayBuffer>];
type U32 = Uint32Array<ArrayBuffer>;
const COLUMN_KINDS = [Uint32Array, Float64Array, Uint32Array, Uint16Array, Uint32Array, Uint32Array, Uint32Array, Uint8Array];

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
  /** Sequence numbers (a recipient counter beyond 2^32 is not a sandbox's). */
  private seqs = new Uint32Array(INITIAL_SLOTS);
  private updated = new Float64Array(INITIAL_SLOTS);
  private hashes = new Uint32Array(INITIAL_SLOTS);
  private teams = new Uint16Array(INITIAL_SLOTS);
  private sets = new Uint32Array(INITIAL_SLOTS);
  /** Where each slot's text entry starts in the arena. */
  private texts = new Uint32Array(INITIAL_SLOTS);
  private stamps = new Uint32Array(INITIAL_SLOTS);
  private bits = new Uint8Array(INITIAL_SLOTS);
  private used = 0;
  /** The rows start-up expects to restore (expect), for sizing the arena once. */
  private expected = 0;
  private live = 0;
  private readonly table = new KeyTable((slot) => this.hashes[slot]!);
  private readonly arena = new TextArena();
  private changes = 0;
  /** Team ids, interned: a handful per configuration. */
  private teamNames = new Interned();
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
    this.table.delete(slot);
    this.bits[slot]! |= DEAD;
    this.flagSets.release(this.sets[slot]!);
    this.arena.drop(this.texts[slot]!);
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
    let found = -1;
    this.table.probe(h, (slot) => {
      if (slot > found && this.hashes[slot] === h && isIt(this.seqs[slot]!)) found = slot;
    });
    return found;
  }

  /** Live slots, newest first; stops when `visit` returns false. */
  scanNewestFirst(visit: (slot: number) => boolean | undefined): void {
    newestFirst(this.bits, DEAD, this.used, () => true, visit);
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
    return this.teamNames.find(team) ?? -1;
  }
  teamIdAt(slot: number): number {
    return this.teams[slot]!;
  }
  team(slot: number): string {
    return this.teamNames.value(this.teams[slot]!)!;
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
    for (const needle of needles) if (!this.arena.has(this.texts[slot]!, needle)) return false;
    return true;
  }

  /**
   * The rows with `lo <= seq < hi`, self-contained (teams and flags as strings), for a checkpoint
   * that restoreRange reads back; null when they are not `expected` (a change not settled). Taken
   * as MessageIndex.serializeRange is, ROWS_PER_TURN at a time with a `pause` between.
   */
  async serializeRange(lo: number, hi: number, expected: readonly number[], pause: () => Promise<void> = nextTurn): Promise<Parts | null> {
    const settled = () => liveRowsIn(this.seqs, this.used, { lo, hi }, (slot) => (this.bits[slot]! & DEAD) !== 0, expected) !== null;
    if (!settled()) return null;
    const count = expected.length;
    const names = new Interned();
    const columns = {
      seqs: Uint32Array.from(expected),
      updated: new Float64Array(count),
      hashes: new Uint32Array(count),
      bits: new Uint8Array(count),
      teams: new Uint32Array(count),
      starts: new Uint32Array(count),
    };
    // Flags interned after the teams, as a checkpoint always lists them; the texts copied (the
    // arena may move) into one buffer sized before the first pause (no buffer per row, none
    // joined): a text that no longer fits is a change in between, nothing consistent to save.
    const flagKeys: string[] = [];
    let room = 0;
    for (const seq of expected) room += this.slotOf(seq) >= 0 ? this.arena.entryBytes(this.texts[this.slotOf(seq)]!) : 0;
    const entries = Buffer.allocUnsafe(room);
    let at = 0;
    for (let i = 0; i < expected.length; i++) {
      if (i > 0 && i % ROWS_PER_TURN === 0) await pause();
      const slot = this.slotOf(expected[i]!);
      if (slot < 0) return null;
      columns.updated[i] = this.updated[slot]!;
      columns.hashes[i] = this.hashes[slot]!;
      columns.bits[i] = this.bits[slot]! & INEXACT;
      columns.teams[i] = names.id(this.team(slot));
      flagKeys.push(this.flagSets.key(this.sets[slot]!));
      if (at + this.arena.entryBytes(this.texts[slot]!) > entries.length) return null;
      columns.starts[i] = at;
      at += this.arena.copyOut(this.texts[slot]!, entries, at);
    }
    if (!settled()) return null;
    const flags = Uint32Array.from(flagKeys, (key) => names.id(key));
    return encodeColumns({ count, ...columns, flags, names: [...names.values()], entries: entries.subarray(0, at) });
  }

  /**
   * Room for `rows` rows in all (start-up's restore): columns and hash table made once; the
   * texts' arena, sized at the first restore from its bytes per row, too.
   */
  expect(rows: number): void {
    if (rows > this.seqs.length) this.resize(roomFor(rows, INITIAL_SLOTS));
    this.table.reserve(roomFor(rows, 0), this.used, this.isLive);
    this.expected = rows;
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
    const { count, seqs, updated, hashes, bits, spans, same } = decodeRows(buffer, this.used > 0 ? this.seqs[this.used - 1]! : 0);
    // Room for every row at once: growing step by step copied the columns and rebuilt the
    // hash table a dozen times on the way to 100,000.
    let textBytes = 0;
    for (let row = 0; row < count; row++) textBytes += spans[6 * row + 5]! + 5;
    if (this.used + count > this.seqs.length) this.resize(Math.max(this.used + count, grownFrom(this.seqs.length)));
    this.arena.reserve(textBytes);
    this.table.reserve(this.live + count, this.used, this.isLive);
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
    if (this.used + count > this.seqs.length) this.resize(Math.max(this.used + count, grownFrom(this.seqs.length)));
    this.table.reserve(this.live + count, this.used, this.isLive);
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
    if (this.expected > this.used + count && count > 0) this.arena.reserve(Math.ceil((c.entries.length / count) * 1.05 * (this.expected - this.used)));
    const arenaAt = this.arena.copyIn(c.entries);
    for (let i = 0; i < count; i++) {
      const slot = base + i;
      this.bits[slot] = c.bits[i]! & INEXACT;
      this.teams[slot] = teams[c.teams[i]!]!;
      this.sets[slot] = sets[c.flags[i]!]!;
      this.texts[slot] = arenaAt + c.starts[i]!;
    }
    this.used += count;
    this.live += count;
    for (let slot = base; slot < this.used; slot++) this.table.insert(slot);
  }

  /**
   * Gives back the spare room beyond an eighth of the rows (what sends take before the arrays are
   * copied again), when more than a sixteenth would go back: start-up sized them for full segments
   * (a copy left ~35 MB of old arrays at a million recipients for the next collection).
   */
  trim(): void {
    const room = roomFor(this.used, INITIAL_SLOTS);
    if (this.seqs.length > room + Math.ceil(room / 16)) this.resize(room);
    this.arena.trim();
  }

  /** Its whole state for a start-up image (disk/image-file.ts): written at a clean stop, adopted at the next start. */
  image(out: ImageSection): void {
    const room = roomFor(this.used, INITIAL_SLOTS);
    for (const column of this.columns) out.put(column, this.used, room);
    this.table.image(out);
    const [teams, sets, arena] = [this.teamNames.values(), this.flagSets.image(), this.arena.image(out)];
    out.values = { used: this.used, live: this.live, changes: this.changes, teams, sets, arena };
  }

  /** What `image` saved (its arrays taken back in the order put), on an index that holds nothing yet: start-up. */
  adopt(from: ImageSection): void {
    const saved = from.values as { used: number; live: number; changes: number; teams: string[]; sets: [(string | null)[], number[]]; arena: [number, number] };
    this.columns = COLUMN_KINDS.map((kind) => from.take<ImageArray>(kind)) as Columns;
    [this.used, this.live, this.changes, this.teamNames] = [saved.used, saved.live, saved.changes, Interned.of(saved.teams)];
    this.table.adopt(from);
    this.arena.adopt(from, saved.arena);
    this.flagSets.adopt(saved.sets);
  }

  /** Bytes the index holds (typed arrays and arena, at their capacity), for the benchmark. */
  get bytes(): number {
    return [...this.columns, this.table].reduce((sum, a) => sum + a.byteLength, 0) + this.arena.byteLength;
  }

  private append(seq: number, team: number, hash: number, updated: number, set: number, text: string | Buffer, from = 0, to = text.length): number {
    if (this.used > 0 && seq <= this.seqs[this.used - 1]!) throw new Error(`recipient ${seq} arrived out of order`);
    if (seq > 0xffffffff) throw new Error(`recipient ${seq} is beyond the index's range`);
    if (this.used === this.seqs.length) this.resize(grownFrom(this.seqs.length));
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
    this.table.add(slot, this.live, this.used, this.isLive);
    return slot;
  }

  private nextStamp(): number {
    this.changes = this.changes === 0xffffffff ? 1 : this.changes + 1;
    return this.changes;
  }

  private teamId(team: string): number {
    if (this.teamNames.find(team) === undefined && this.teamNames.values().length > 0xffff) throw new Error('more than 65,536 teams');
    return this.teamNames.id(team);
  }

  private readonly isLive = (slot: number): boolean => !(this.bits[slot]! & DEAD);

  /** Appends a text entry to the arena (marking the slot inexact if need be); returns where it starts. */
  private writeText(slot: number, text: string | Buffer, from = 0, to = text.length): number {
    if (typeof text === 'string' && LONE_SURROGATE.test(text)) this.bits[slot]! |= INEXACT;
    return this.arena.write(text, from, to);
  }

  /** Gives the slot a new text, unless it has the same one already. */
  private replaceText(slot: number, text: string): void {
    const inexact = LONE_SURROGATE.test(text);
    if (!inexact && !(this.bits[slot]! & INEXACT) && this.arena.holds(this.texts[slot]!, text)) return;
    this.arena.drop(this.texts[slot]!);
    this.bits[slot]! &= ~INEXACT;
    this.texts[slot] = this.writeText(slot, text);
    this.maybeCompactArena();
  }

  private maybeCompactArena(): void {
    if (this.arena.wasteful) this.arena.compact(this.texts, this.used, this.isLive);
  }

  /** Drops dead slots (after many removals). */
  private compact(): void {
    this.arena.compact(this.texts, this.used, this.isLive);
    const to = keepRows(this.columns, this.used, (slot) => !(this.bits[slot]! & DEAD));
    this.used = to;
    this.resize(Math.max(INITIAL_SLOTS, to * 2));
    this.table.rebuild(Math.ceil(this.live / 0.5), this.used, this.isLive);
  }

  /** The per-row columns (all of a capacity), in the order an image saves them. */
  private get columns(): Columns {
    return [this.seqs, this.updated, this.hashes, this.teams, this.sets, this.texts, this.stamps, this.bits];
  }

  private set columns(columns: Columns) {
    [this.seqs, this.updated, this.hashes, this.teams, this.sets, this.texts, this.stamps, this.bits] = columns;
  }

  private resize(capacity: number): void {
    this.columns = this.columns.map((column) => resized(column, this.used, capacity)) as Columns;
  }
}
