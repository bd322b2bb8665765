import type { ImageSection } from '../disk/image-file.ts';

const INITIAL_TABLE = 2048;
/** The table grows (by half) once it is this full: linear probing stays short. */
const MAX_LOAD = 0.75;

/**
 * The recipients' hash table (recipient-index.ts): from a key's 32-bit hash to the rows that may
 * hold it, open addressing with linear probing in a typed array. Each entry is row + 1 (0 is
 * empty); its size need not be a power of two (see home). Rows are removed by moving back the
 * entries after them (no tombstones).
 */
export class KeyTable {
  private table = new Uint32Array(INITIAL_TABLE);

  /** `hashAt(row)`: the hash of the row's key. */
  constructor(private readonly hashAt: (row: number) => number) {}

  get byteLength(): number {
    return this.table.byteLength;
  }

  /** Each row whose entry lies on hash `h`'s probe sequence (the rows that may hold its key). */
  probe(h: number, visit: (row: number) => void): void {
    const table = this.table;
    for (let at = this.home(h); table[at] !== 0; at = this.next(at)) visit(table[at]! - 1);
  }

  /** Adds `row`, with `live` rows in all once it is in: the table grows first when they would fill it. */
  add(row: number, live: number, rows: number, isLive: (row: number) => boolean): void {
    if (live > this.table.length * MAX_LOAD) this.rebuild(Math.ceil(this.table.length * 1.5), rows, isLive);
    else this.insert(row);
  }

  /** Room for `live` rows without growing on the way (a checkpoint's rows, restored at once). */
  reserve(live: number, rows: number, isLive: (row: number) => boolean): void {
    if (live > this.table.length * MAX_LOAD) this.rebuild(Math.max(Math.ceil(live / MAX_LOAD), Math.ceil(this.table.length * 1.5)), rows, isLive);
  }

  insert(row: number): void {
    const table = this.table;
    let at = this.home(this.hashAt(row));
    while (table[at] !== 0) at = this.next(at);
    table[at] = row + 1;
  }

  /** Takes the row out of the table, moving back the entries after it. */
  delete(row: number): void {
    const table = this.table;
    let hole = this.home(this.hashAt(row));
    while (table[hole] !== row + 1) {
      if (table[hole] === 0) return;
      hole = this.next(hole);
    }
    for (let at = this.next(hole); table[at] !== 0; at = this.next(at)) {
      const home = this.home(this.hashAt(table[at]! - 1));
      // An entry whose home lies cyclically in (hole, at] stays; any other may fill the hole.
      const stays = hole <= at ? hole < home && home <= at : hole < home || home <= at;
      if (stays) continue;
      table[hole] = table[at]!;
      hole = at;
    }
    table[hole] = 0;
  }

  /** A new table of `size` entries (at least the initial size) holding the live ones of the first `rows` rows. */
  rebuild(size: number, rows: number, isLive: (row: number) => boolean): void {
    this.table = new Uint32Array(Math.max(INITIAL_TABLE, size));
    for (let row = 0; row < rows; row++) if (isLive(row)) this.insert(row);
  }

  /** Its state for a start-up image (disk/image-file.ts): the table as it is (a key's place depends on its size). */
  image(out: ImageSection): void {
    out.put(this.table);
  }

  /** What `image` saved, on a table that holds nothing yet. */
  adopt(from: ImageSection): void {
    this.table = from.take(Uint32Array);
  }

  /** Where slot `at` of the table is for hash `h`: its high bits scaled to the table's size. */
  private home(h: number): number {
    return Math.floor((h / 4294967296) * this.table.length);
  }

  private next(at: number): number {
    return at + 1 === this.table.length ? 0 : at + 1;
  }
}

/** A 32-bit hash of a lookup key (FNV-1a over its UTF-16 units, then mixed). */
export function keyHash(key: string): number {
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
