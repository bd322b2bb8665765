import type { ImageSection } from '../disk/image-file.ts';

/**
 * What the compact indexes (message-index.ts, recipient-index.ts) share: rows in typed arrays,
 * one slot per record in sequence order.
 */

type Column = Float64Array | Uint32Array | Uint16Array | Uint8Array;

/** The first of the first `used` slots whose sequence number is `seq` or more (binary search). */
function lowerBound(seqs: ArrayLike<number>, used: number, seq: number): number {
  let lo = 0;
  let hi = used;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The slot among the first `used` whose sequence number is `seq`, or -1. */
export function slotWithSeq(seqs: ArrayLike<number>, used: number, seq: number): number {
  const slot = lowerBound(seqs, used, seq);
  return slot < used && seqs[slot] === seq ? slot : -1;
}

/**
 * A full column's next capacity: half as much again, so the spare room stays a third of the rows
 * at most (doubling left up to as many empty slots as rows: 46 MB of them at a million captures).
 */
export function grownFrom(capacity: number): number {
  return Math.ceil(capacity * 1.5);
}

/**
 * Room for `rows` rows and an eighth more (at least `minimum`): what start-up makes, so that the
 * first sends after a restart do not copy every column (sized to the rows exactly, the first one
 * grew them all: the restarted process held more than the one that had ingested them).
 */
export function roomFor(rows: number, minimum: number): number {
  return Math.max(minimum, rows + Math.ceil(rows / 8));
}

/** A column of `capacity` slots of the same kind, holding the first `used` of `from` (grown, or shrunk to fit). */
export function resized<A extends Column>(from: A, used: number, capacity: number): A {
  const next = new (from.constructor as new (length: number) => A)(capacity);
  next.set(from.subarray(0, Math.min(used, capacity)));
  return next;
}

/**
 * The live slots of the first `used` (those without `dead` in `bits`), newest first, that pass
 * `match`; stops when `visit` returns false.
 */
export function newestFirst(
  bits: ArrayLike<number>,
  dead: number,
  used: number,
  match: (slot: number) => boolean,
  visit: (slot: number) => boolean | undefined,
): void {
  for (let slot = used - 1; slot >= 0; slot--) {
    if (bits[slot]! & dead) continue;
    if (!match(slot)) continue;
    if (visit(slot) === false) return;
  }
}

/** `values` of the live slots of the first `used` (as newestFirst), oldest first, that pass `match`: at most `limit`. */
export function oldestFirst(
  values: ArrayLike<number>,
  bits: ArrayLike<number>,
  dead: number,
  used: number,
  limit: number,
  match: (slot: number) => boolean = () => true,
): number[] {
  const out: number[] = [];
  for (let slot = 0; slot < used && out.length < limit; slot++) if (!(bits[slot]! & dead) && match(slot)) out.push(values[slot]!);
  return out;
}

/**
 * Moves the rows `keep` accepts to the front of every column, in order (a compaction of the
 * index after many removals); returns how many there are.
 */
export function keepRows(columns: readonly Column[], used: number, keep: (slot: number) => boolean): number {
  let to = 0;
  for (let from = 0; from < used; from++) {
    if (!keep(from)) continue;
    if (to !== from) for (const column of columns) column[to] = column[from]!;
    to++;
  }
  return to;
}

/**
 * The slots of the live rows whose sequence number is in [lo, hi), for a checkpoint of one
 * segment's rows; null when they are not `expected` (what the segment file holds live, in
 * order): a change not settled yet, nothing consistent to save.
 */
export function liveRowsIn(
  seqs: ArrayLike<number>,
  used: number,
  range: { lo: number; hi: number },
  dead: (slot: number) => boolean,
  expected: readonly number[],
): number[] | null {
  const rows: number[] = [];
  for (let slot = lowerBound(seqs, used, range.lo); slot < used && seqs[slot]! < range.hi; slot++) {
    if (dead(slot)) continue;
    if (seqs[slot] !== expected[rows.length]) return null;
    rows.push(slot);
  }
  return rows.length === expected.length ? rows : null;
}

/** Strings interned (team names, namespaces: few, repeated by many rows): ids from `first` up, in order of first use. */
export class Interned {
  private readonly list: string[] = [];
  private readonly ids = new Map<string, number>();

  constructor(private readonly first = 0) {}

  /** The value's id, interned now if it is new. */
  id(value: string): number {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.first + this.list.length;
      this.list.push(value);
      this.ids.set(value, id);
    }
    return id;
  }

  /** The value's id if it is interned. */
  find(value: string): number | undefined {
    return this.ids.get(value);
  }

  value(id: number): string | undefined {
    return this.list[id - this.first];
  }

  /** Every value, by id. */
  values(): readonly string[] {
    return this.list;
  }

  clear(): void {
    this.list.length = 0;
    this.ids.clear();
  }

  /** Every value of `values` interned again, in order (the ids they had: a start-up image's). */
  static of(values: readonly string[], first = 0): Interned {
    const interned = new Interned(first);
    for (const value of values) interned.id(value);
    return interned;
  }
}

/**
 * A column of the index holding, per slot, the id of an interned string (a capture's namespace,
 * its From as search reads it): 0 is none. `keep` may refuse a value not interned yet (then the
 * slot holds 0: the owner keeps it elsewhere). A compaction forgets the values no slot holds
 * (reintern), and the ids change: `generation` says so to whoever remembered ids.
 */
export class InternedColumn {
  ids = new Uint32Array(1024);
  private names = new Interned(1);
  generation = 0;
  /** Changes whenever a value is interned, and with the generation. */
  version = 0;

  constructor(private readonly keep: (value: string, count: number) => boolean = () => true) {}

  /** Sets the slot's value; whether it is held (false: null, or refused by `keep`). */
  set(slot: number, value: string | null): boolean {
    let id = value === null ? 0 : (this.names.find(value) ?? 0);
    if (id === 0 && value !== null && this.keep(value, this.names.values().length)) id = this.intern(value);
    this.ids[slot] = id;
    return id !== 0;
  }

  /** The id of a value restored from a checkpoint (whatever `keep` says: it was kept when saved); 0 for none. */
  intern(value: string | null | undefined): number {
    if (value === null || value === undefined) return 0;
    const count = this.names.values().length;
    const id = this.names.id(value);
    if (this.names.values().length !== count) this.version++;
    return id;
  }

  value(slot: number): string | undefined {
    return this.names.value(this.ids[slot]!);
  }

  /** Every value, by id (id i + 1 is values()[i]). */
  values(): readonly string[] {
    return this.names.values();
  }

  resize(used: number, capacity: number): void {
    this.ids = resized(this.ids, used, capacity);
  }

  /** Forgets the values none of the first `used` slots holds any more. */
  reintern(used: number): void {
    const old = this.names;
    this.names = new Interned(1);
    this.generation++;
    this.version++;
    for (let slot = 0; slot < used; slot++) if (this.ids[slot] !== 0) this.ids[slot] = this.names.id(old.value(this.ids[slot]!)!);
  }

  clear(): void {
    this.names.clear();
    this.generation++;
    this.version++;
  }

  /** Its state for a start-up image (disk/image-file.ts): the first `used` slots' ids, and the values. */
  image(out: ImageSection, used: number, room: number): readonly string[] {
    out.put(this.ids, used, room);
    return this.names.values();
  }

  /** What `image` saved, on a column that holds nothing yet. */
  adopt(from: ImageSection, values: readonly string[]): void {
    this.ids = from.take(Uint32Array);
    this.names = Interned.of(values, 1);
    this.generation++;
    this.version++;
  }
}

/**
 * Rows a checkpoint serializes in one turn of the event loop: about 0.3 ms of work (bench:checkpoint
 * measured some 3 ms for 1,024 message rows), so a send waits at most that long behind one.
 */
export const ROWS_PER_TURN = 128;

/** Resolves in the event loop's next turn, after the I/O and timers already due (setImmediate): a clean stop's checkpoints. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves on a timer 4 ms later (sends' I/O and timers run meanwhile), the background
 * checkpoints' pause: between its chunks a checkpoint leaves the thread to sends about nine
 * tenths of the time, so that a server busy with sends is not also short of the time a
 * checkpoint takes (bench/README.md, Send latency during a checkpoint). A checkpoint of 8,192
 * rows then takes about a quarter of a second.
 */
export function pacedTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 4));
}
