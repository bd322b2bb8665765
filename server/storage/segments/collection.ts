import { SegmentLog } from './segment-log.ts';
import type { SegmentLogOptions } from './segment-table.ts';

export interface Sequenced {
  /** Position in the collection, from the store's counter: never reused. */
  seq: number;
}

/**
 * A collection kept whole in memory (flow subscriptions: few), stored in a segment log: a
 * change appends the record's new version, a deletion a tombstone. Recipients, which grow with
 * the captures, have a compact store of their own (recipient-store.ts).
 */
export class Collection<T extends Sequenced> {
  private readonly bySeq = new Map<number, T>();
  private ordered: T[] = [];
  private orderStale = false;
  private log!: SegmentLog<T>;

  private constructor() {}

  static async open<T extends Sequenced>(options: SegmentLogOptions): Promise<Collection<T>> {
    const collection = new Collection<T>();
    collection.log = await SegmentLog.open<T>(options, (record) => {
      collection.bySeq.set(record.seq, record);
      collection.ordered.push(record);
    });
    return collection;
  }

  /** The log behind it (a participant of the group commit). */
  get storage(): SegmentLog<T> {
    return this.log;
  }

  get size(): number {
    return this.bySeq.size;
  }

  get(seq: number): T | undefined {
    return this.bySeq.get(seq);
  }

  /** The highest sequence number ever stored here, deleted ones included. */
  maxSeq(): number {
    return this.log.maxSeq;
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
    if (this.bySeq.has(record.seq)) throw new Error(`duplicate seq ${record.seq} in ${this.log.dir}`);
    this.bySeq.set(record.seq, record);
    let at = this.ordered.length;
    while (at > 0 && this.ordered[at - 1]!.seq > record.seq) at--;
    if (at === this.ordered.length) this.ordered.push(record);
    else this.ordered.splice(at, 0, record);
    this.log.put(record);
    return record;
  }

  /** Marks a record changed in place so its new state is written with the next flush. */
  touch(record: T): void {
    if (this.bySeq.get(record.seq) !== record) throw new Error(`seq ${record.seq} is not stored in ${this.log.dir}`);
    this.log.put(record);
  }

  /**
   * Takes back a record inserted but never written (the write that carried it was refused):
   * nothing is written for it, not even a tombstone (which would count as a deletion, one that
   * may use a full disk's reserve).
   */
  discard(seq: number): void {
    if (!this.bySeq.delete(seq)) return;
    this.orderStale = true;
    this.log.forget(seq);
  }

  remove(seq: number): T | undefined {
    const record = this.bySeq.get(seq);
    if (!record) return undefined;
    this.bySeq.delete(seq);
    this.orderStale = true;
    this.log.delete(seq);
    return record;
  }

  /** Removes every record: the files go with the next flush. */
  clear(): T[] {
    const all = [...this.all()];
    this.bySeq.clear();
    this.ordered = [];
    this.orderStale = false;
    this.log.clear();
    return all;
  }

  /**
   * Removes the `count` oldest records without writing a tombstone for each (a bounded log
   * trimming itself: start-up applies the same bound); a segment goes once nothing in it lives.
   */
  removeOldest(count: number): T[] {
    const ordered = this.all() as T[];
    const removed: T[] = [];
    while (removed.length < count && ordered.length > 0) removed.push(ordered.shift()!);
    for (const record of removed) {
      this.bySeq.delete(record.seq);
      this.log.forget(record.seq);
    }
    return removed;
  }
}
