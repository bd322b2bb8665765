import type { ImageSection } from '../disk/image-file.ts';
import { addressTag } from '../namespace.ts';
import { ByteCache } from './byte-cache.ts';
import { RecipientIndex, type RecipientIndexOptions } from './recipient-index.ts';
import { recipientKey, recipientText } from './recipient-rows.ts';
import type { RecipientRecord } from '../records.ts';
import { SegmentLog } from '../segments/segment-log.ts';
import type { SegmentLogOptions } from '../segments/segment-table.ts';

export interface RecipientStoreOptions extends RecipientIndexOptions {
  /** The records kept parsed after a read, bounded by their bytes on disk (JSON). */
  cacheBytes?: number;
}

/** Which recipients a list takes; every field given must match. */
export interface RecipientQuery {
  team?: string;
  /** The address, without regard to case (as find compares it). */
  email?: string;
  flag?: string;
  /** Lowercased words, each found in the address, a name or a flag (recipientText). */
  words?: readonly string[];
}

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The recipients: a compact index in memory (RecipientIndex), the records in segment files,
 * read back by their byte range when one is needed, synchronously (a send looks its recipients
 * up), and the last ones read kept parsed, bounded by bytes. A record with a change not written
 * yet is the segment log's queued object, so a change made to it in place is written with it.
 */
export class RecipientStore {
  private log!: SegmentLog<RecipientRecord>;
  private readonly index: RecipientIndex;
  private readonly cache: ByteCache<RecipientRecord>;

  private constructor(options: RecipientStoreOptions) {
    this.index = new RecipientIndex(options);
    this.cache = new ByteCache(options.cacheBytes ?? 256 * 1024);
  }

  /** Opens the folder, indexing each record as it loads (the records themselves are not kept). */
  static async open(log: SegmentLogOptions, options: RecipientStoreOptions = {}, image?: { log: ImageSection; rows: ImageSection }): Promise<RecipientStore> {
    const store = new RecipientStore(options);
    const rows = {
      save: (lo: number, hi: number, live: readonly number[], pause?: () => Promise<void>) => store.index.serializeRange(lo, hi, live, pause),
      restore: (data: Buffer) => store.index.restoreRange(data),
      expect: (count: number) => store.index.expect(count),
    };
    store.log = await SegmentLog.open<RecipientRecord>({ ...log, checkpoint: rows }, (record) => void store.index.add(record), image?.log);
    if (store.log.fromImage) store.index.adopt(image!.rows);
    else store.index.trim();
    return store;
  }

  /** The index into a start-up image (start-image.ts). */
  image(out: ImageSection): void {
    this.index.image(out);
  }

  /** The log behind it (a participant of the group commit). */
  get storage(): SegmentLog<RecipientRecord> {
    return this.log;
  }

  get size(): number {
    return this.index.size;
  }

  /** The highest sequence number ever stored here, deleted ones included. */
  maxSeq(): number {
    return this.log.maxSeq;
  }

  /**
   * The record, to read or to change in place (then `touch` it). Read from its segment when it
   * is neither waiting to be written nor among those read lately.
   */
  get(seq: number): RecipientRecord | undefined {
    const queued = this.log.queued(seq);
    if (queued !== undefined) return queued ?? undefined;
    const cached = this.cache.get(seq);
    if (cached) return cached;
    const stored = this.log.readStoredSync(seq);
    if (!stored) return undefined;
    this.cache.set(seq, stored.record, stored.bytes);
    return stored.record;
  }

  /** The team's recipient with this address (compared without regard to case). */
  find(team: string, email: string): RecipientRecord | undefined {
    const key = recipientKey(team, email);
    const slot = this.index.find(key, (seq) => {
      const record = this.get(seq);
      return record !== undefined && recipientKey(record.team, record.email) === key;
    });
    return slot < 0 ? undefined : this.get(this.index.seq(slot));
  }

  /**
   * Stores a new record (complete: its fields are indexed now) with the next flush; returns its
   * change stamp (see lastChange).
   */
  insert(record: RecipientRecord): number {
    if (this.index.slotOf(record.seq) >= 0) throw new Error(`duplicate seq ${record.seq} in ${this.log.dir}`);
    const stamp = this.index.add(record);
    this.log.put(record);
    return stamp;
  }

  /** The record (as `get` gave it) was changed in place: indexed again and written with the next flush. */
  touch(record: RecipientRecord): number {
    if (this.index.slotOf(record.seq) < 0) throw new Error(`seq ${record.seq} is not stored in ${this.log.dir}`);
    const stamp = this.index.update(record);
    if (this.cache.peek(record.seq) !== record) this.cache.delete(record.seq);
    this.log.put(record);
    return stamp;
  }

  /**
   * The stamp of the recipient's latest change in this process (insert and touch return it);
   * 0 once it is gone. An undo compares it to know whether it still owns the latest change.
   */
  lastChange(seq: number): number {
    const slot = this.index.slotOf(seq);
    return slot < 0 ? 0 : this.index.stamp(slot);
  }

  /**
   * Takes back a record inserted but never written (the write that carried it was refused):
   * nothing is written for it, not even a tombstone (which would count as a deletion, one that
   * may use a full disk's reserve).
   */
  discard(seq: number): void {
    if (!this.index.remove(seq)) return;
    this.cache.delete(seq);
    this.log.forget(seq);
  }

  remove(seq: number): boolean {
    if (!this.index.remove(seq)) return false;
    this.cache.delete(seq);
    this.log.delete(seq);
    return true;
  }

  /**
   * A page of the recipients the query takes, newest first, and how many it takes in all: the
   * index is scanned, and only the page's records are read (and those a filter must check).
   */
  list(query: RecipientQuery, offset: number, limit: number): { total: number; items: RecipientRecord[] } {
    const match = this.matcher(query);
    const seqs: number[] = [];
    let total = 0;
    this.index.scanNewestFirst((slot) => {
      if (!match(slot)) return;
      if (total >= offset && seqs.length < limit) seqs.push(this.index.seq(slot));
      total++;
    });
    return { total, items: seqs.map((seq) => this.get(seq)!) };
  }

  /**
   * Removes the recipients of a team, of a namespace's addresses (storage/namespace.ts), both,
   * or (neither given) all, each with a tombstone; returns how many.
   */
  removeWhere(scope: { team?: string; namespace?: string }): number {
    const team = scope.team === undefined ? undefined : this.index.teamIdOf(scope.team);
    if (team === -1) return 0;
    const namespace = scope.namespace;
    // Every address tagged `ns` holds "+ns@" in its lowercased text; the record decides.
    const mark = namespace === undefined ? undefined : [Buffer.from(`+${namespace}@`)];
    const doomed: number[] = [];
    this.index.scanNewestFirst((slot) => {
      if (team !== undefined && this.index.teamIdAt(slot) !== team) return;
      if (mark !== undefined) {
        if (this.index.textHas(slot, mark) === false) return;
        const record = this.peek(this.index.seq(slot));
        if (!record || addressTag(record.email) !== namespace) return;
      }
      doomed.push(this.index.seq(slot));
    });
    for (const seq of doomed) this.remove(seq);
    return doomed.length;
  }

  /**
   * Removes the recipients last changed before `beforeMs`, except those `keep` names (a team
   * and an address, compared as find does); returns how many. Only the records whose key has
   * the hash of one kept are read.
   */
  removeUnchangedSince(beforeMs: number, keep: readonly { team: string; email: string }[]): number {
    const kept = new Set(keep.map(({ team, email }) => recipientKey(team, email)));
    const keptHashes = new Set([...kept].map((key) => this.index.hashOf(key)));
    const doomed: number[] = [];
    this.index.scanNewestFirst((slot) => {
      if (!(this.index.updatedMs(slot) < beforeMs)) return;
      const seq = this.index.seq(slot);
      if (keptHashes.has(this.index.hashAt(slot))) {
        const record = this.peek(seq);
        if (!record || kept.has(recipientKey(record.team, record.email))) return;
      }
      doomed.push(seq);
    });
    for (const seq of doomed) this.remove(seq);
    return doomed.length;
  }

  /** Bytes the index holds, for the benchmark. */
  get indexBytes(): number {
    return this.index.bytes;
  }

  /** The record for a filter to check, without making it one of those kept. */
  private peek(seq: number): RecipientRecord | undefined {
    const queued = this.log.queued(seq);
    if (queued !== undefined) return queued ?? undefined;
    return this.cache.peek(seq) ?? this.log.readStoredSync(seq)?.record;
  }

  private matcher(query: RecipientQuery): (slot: number) => boolean {
    const { index } = this;
    const team = query.team === undefined ? undefined : index.teamIdOf(query.team);
    if (team === -1) return () => false;
    const tests: ((slot: number) => boolean)[] = [];
    if (team !== undefined) tests.push((slot) => index.teamIdAt(slot) === team);
    if (query.email !== undefined) {
      const email = query.email;
      // The key's hash first (per team: the key includes it), then the record itself.
      const hashes = new Map<number, number>();
      const hashFor = (slot: number) => {
        const id = index.teamIdAt(slot);
        let hash = hashes.get(id);
        if (hash === undefined) hashes.set(id, (hash = index.hashOf(recipientKey(index.team(slot), email))));
        return hash;
      };
      tests.push((slot) => {
        if (index.hashAt(slot) !== hashFor(slot)) return false;
        const record = this.peek(index.seq(slot));
        return record !== undefined && recipientKey(record.team, record.email) === recipientKey(record.team, email);
      });
    }
    if (query.flag !== undefined) {
      const sets = index.setsWithFlag(query.flag);
      tests.push((slot) => index.hasFlag(slot, sets));
    }
    const words = query.words ?? [];
    if (words.length > 0) {
      const needles = words.map((word) => Buffer.from(word, 'utf8'));
      // A word with a lone surrogate cannot be looked for in UTF-8: every record is asked.
      const exact = !words.some((word) => LONE_SURROGATE.test(word));
      tests.push((slot) => {
        const found = exact ? index.textHas(slot, needles) : null;
        if (found !== null) return found;
        const record = this.peek(index.seq(slot));
        if (!record) return false;
        const text = recipientText(record);
        return words.every((word) => text.includes(word));
      });
    }
    return (slot) => tests.every((test) => test(slot));
  }
}
