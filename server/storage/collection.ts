import type { Low } from 'lowdb';
import type { Flusher } from './flusher.ts';
import { ensureDir, listSegments, openJsonFile, removeFile, segmentPath } from './segment-file.ts';

export interface Sequenced {
  /** Position in the collection, from the store's counter: never reused. */
  seq: number;
}

const LOAD_BATCH = 4;

interface SegmentData<T> {
  records: T[];
}

/**
 * A growing collection split into lowdb segment files of at most `segmentSize` records, by
 * sequence number. A change rewrites only the segment that holds the record, so the cost of a
 * write stays bounded however much is stored (design.md, Storage). All records stay in memory
 * for reads; bodies and attachments never enter these files.
 */
export class Collection<T extends Sequenced> {
  private readonly segments = new Map<number, Low<SegmentData<T>>>();
  private readonly bySeq = new Map<number, T>();
  private ordered: T[] = [];
  private orderStale = false;

  private constructor(
    private readonly dir: string,
    private readonly segmentSize: number,
    private readonly flusher: Flusher,
  ) {}

  static async open<T extends Sequenced>(dir: string, segmentSize: number, flusher: Flusher): Promise<Collection<T>> {
    const collection = new Collection<T>(dir, segmentSize, flusher);
    await ensureDir(dir);
    // Segments are read a few at a time: reading them all at once holds every file's text in
    // memory together, which sets the process's resident size long after the texts are gone.
    const indexes = await listSegments(dir);
    for (let at = 0; at < indexes.length; at += LOAD_BATCH) {
      const batch = indexes.slice(at, at + LOAD_BATCH);
      const loaded = await Promise.all(
        batch.map(async (index) => {
          const db = openJsonFile<SegmentData<T>>(segmentPath(dir, index), { records: [] });
          await db.read();
          return [index, db] as const;
        }),
      );
      for (const [index, db] of loaded) {
        if (db.data.records.length === 0) {
          await removeFile(segmentPath(dir, index));
          continue;
        }
        collection.segments.set(index, db);
        for (const record of db.data.records) {
          collection.bySeq.set(record.seq, record);
          collection.ordered.push(record);
        }
      }
    }
    collection.ordered.sort((a, b) => a.seq - b.seq);
    return collection;
  }

  get size(): number {
    return this.bySeq.size;
  }

  get(seq: number): T | undefined {
    return this.bySeq.get(seq);
  }

  /** The highest sequence number stored, or 0. */
  maxSeq(): number {
    const all = this.all();
    return all.length === 0 ? 0 : all[all.length - 1]!.seq;
  }

  /** Every record, oldest first. The array is shared: do not modify it. */
  all(): readonly T[] {
    if (this.orderStale) {
      this.ordered = this.ordered.filter((record) => this.bySeq.get(record.seq) === record);
      this.orderStale = false;
    }
    return this.ordered;
  }

  insert(record: T): T {
    if (this.bySeq.has(record.seq)) throw new Error(`duplicate seq ${record.seq} in ${this.dir}`);
    const segment = this.segmentFor(record.seq);
    segment.data.records.push(record);
    this.bySeq.set(record.seq, record);
    // Sends finish out of order (ids are taken before their files are written), so a record
    // can arrive just behind newer ones: find its place from the end instead of re-sorting.
    let at = this.ordered.length;
    while (at > 0 && this.ordered[at - 1]!.seq > record.seq) at--;
    if (at === this.ordered.length) this.ordered.push(record);
    else this.ordered.splice(at, 0, record);
    this.flusher.markDirty(segment);
    return record;
  }

  /** Marks a record changed in place so its segment is written with the next flush. */
  touch(record: T): void {
    const segment = this.segments.get(this.indexOf(record.seq));
    if (!segment || this.bySeq.get(record.seq) !== record) throw new Error(`seq ${record.seq} is not stored in ${this.dir}`);
    this.flusher.markDirty(segment);
  }

  remove(seq: number): T | undefined {
    const record = this.bySeq.get(seq);
    if (!record) return undefined;
    this.detach(record);
    this.orderStale = true;
    return record;
  }

  /**
   * Removes the `count` oldest records (a bounded log trimming itself) without re-scanning the
   * whole order as `remove` does on the next read.
   */
  removeOldest(count: number): T[] {
    const ordered = this.all() as T[];
    const removed: T[] = [];
    // shift() trims the array's front in place; splice(0, n) would copy the rest.
    while (removed.length < count && ordered.length > 0) removed.push(ordered.shift()!);
    for (const record of removed) this.detach(record);
    return removed;
  }

  /** Takes a record out of the index and its segment; an emptied segment's file goes too. */
  private detach(record: T): void {
    const index = this.indexOf(record.seq);
    const segment = this.segments.get(index)!;
    const at = segment.data.records.indexOf(record);
    if (at >= 0) segment.data.records.splice(at, 1);
    this.bySeq.delete(record.seq);
    if (segment.data.records.length > 0) {
      this.flusher.markDirty(segment);
      return;
    }
    // An emptied segment's file is deleted with the next flush rather than kept as an empty
    // file (a bounded log or a cleared inbox would otherwise leave empty files behind). If a
    // record lands in that segment again before the flush, the file stays.
    this.segments.delete(index);
    this.flusher.forget(segment);
    const file = segmentPath(this.dir, index);
    this.flusher.markDirty({ write: async () => (this.segments.has(index) ? undefined : removeFile(file)) });
  }

  private indexOf(seq: number): number {
    return Math.floor(seq / this.segmentSize);
  }

  private segmentFor(seq: number): Low<SegmentData<T>> {
    const index = this.indexOf(seq);
    let segment = this.segments.get(index);
    if (!segment) {
      segment = openJsonFile<SegmentData<T>>(segmentPath(this.dir, index), { records: [] });
      this.segments.set(index, segment);
    }
    return segment;
  }
}
