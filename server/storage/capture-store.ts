import { ByteCache } from './indexes/byte-cache.ts';
import type { MessageIndex } from './indexes/message-index.ts';
import type { JsonFile } from './disk/json-file.ts';
import { recordNamespace } from './namespace.ts';
import { prepareContent, preparedFiles, storeContent, type IncomingPart, type PreparedContent, type StoredContent } from './packs/capture-parts.ts';
import { PART, type ContentRef, type PackStore } from './packs/pack-store.ts';
import type { PackUse } from './indexes/message-rows.ts';
import { contentRefs, type MessageRecord, type MetaData } from './records.ts';
import type { SegmentLog } from './segments/segment-log.ts';

export type { IncomingPart } from './packs/capture-parts.ts';
export type { MessageIndex } from './indexes/message-index.ts';
export { ADDRESS_MARK, unmarked } from './indexes/search-texts.ts';
export { ByteCache } from './indexes/byte-cache.ts';

/** Full records kept decoded (those just looked at), by the bytes of their stored JSON. */
const CACHE_BYTES = 1024 * 1024;
/** What a record not written yet counts for in the cache. */
const UNSTORED_RECORD_BYTES = 2048;
/** A pack left to retention is looked at again this much later (see compact). */
const EMPTYING_RECHECK_MS = 5000;

/**
 * A capture about to be deleted: what the deletion releases, its parts' refs (read from its
 * record) or, when the index alone can say it (MessageIndex.packsForDeletion), the bytes it
 * takes in each pack.
 */
export interface Doomed {
  seq: number;
  refs: readonly ContentRef[];
  packs: readonly PackUse[];
}

/** Storage's own parts the capture store works with (the store builds it when it opens). */
export interface CaptureParts {
  readonly index: MessageIndex;
  readonly log: SegmentLog<MessageRecord>;
  readonly packs: PackStore;
  readonly meta: JsonFile<MetaData>;
  /** Store.update: the change, then the group commit that writes it. */
  update<T>(change: () => T, options?: { freesSpace?: boolean }): Promise<T>;
  /** Writes what the upkeep queued (compaction's moves, dead packs): no unit of work of the domain's. */
  write(): Promise<void>;
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /** The segment logs compaction looks at besides the captures'. */
  readonly compactable: readonly { compactionCandidates(): number[]; compact(segment: number): Promise<void> }[];
}

/** What the domain hands the capture store when it starts (the domain is made after the store). */
export interface CaptureHooks {
  /**
   * A capture as the domain has it now (its outcome settled, its parts taken apart), read before
   * compaction moves its parts, so that the record written with the new places is the whole of it.
   */
  current(seq: number): Promise<MessageRecord | undefined>;
}

/**
 * The captures as stored (docs/storage.md): a record per capture in the message segments, its
 * parts in packs, the compact index in memory, the records just read kept decoded. It offers
 * what the domain's rules are made of (add a capture with its parts, read it and its parts,
 * remove, clear) and does the upkeep itself: packs and segments that deletions left mostly
 * dead are compacted in the background.
 */
export class CaptureStore {
  readonly index: MessageIndex;
  private readonly cache = new ByteCache<MessageRecord>(CACHE_BYTES);
  /** Captures whose tombstones are queued or being written (still in the index until they are on disk). */
  private readonly deleting = new Set<number>();
  private maintenance: NodeJS.Timeout | null = null;
  /** Each pack's live bytes when compaction last looked: whether deletions are still emptying it. */
  private packsLive = new Map<number, number>();

  private current: (seq: number) => Promise<MessageRecord | undefined> = (seq) => this.read(seq);

  constructor(private readonly store: CaptureParts) {
    this.index = store.index;
  }

  /** The domain's hooks (until they are given, compaction reads captures as stored). */
  hook(hooks: CaptureHooks): void {
    this.current = hooks.current;
  }

  /** Reads uploads and writes large parts into files of their own (before the capture has its id). */
  prepare(input: {
    html: string | null;
    text: string | null;
    raw?: Buffer;
    sealed: Buffer | null;
    body?: string | null;
    attachments: IncomingPart[];
  }): Promise<PreparedContent> {
    return prepareContent(this.store.packs, input);
  }

  /** The next capture's sequence number (never handed out again, stored or not). */
  nextSeq(): number {
    const seq = ++this.store.meta.data.counters.message;
    // Written lazily: start-up also takes the counter from the highest id any segment names.
    this.store.meta.touchLazily();
    return seq;
  }

  /**
   * Adds a capture with its parts: queued for the next write (volatile: dropped if it fails) and
   * indexed. `build` makes the record once the parts have their places.
   */
  add(seq: number, prepared: PreparedContent, build: (stored: StoredContent) => MessageRecord): MessageRecord {
    const record = build(storeContent(this.store.packs, seq, prepared));
    this.store.log.put(record, { volatile: true });
    this.index.add(record);
    return record;
  }

  /** Takes a capture that was never stored out of memory again, and the files its parts were given. */
  discard(seq: number, prepared: PreparedContent): void {
    if (seq > 0) this.forget(seq);
    for (const ref of preparedFiles(prepared)) this.store.packs.release(ref);
  }

  /** Queues a changed record for the next write. */
  put(record: MessageRecord): void {
    this.store.log.put(record);
  }

  /** The record as stored (one object per capture while it is cached), or undefined once deleted. */
  async read(seq: number): Promise<MessageRecord | undefined> {
    if (!this.index.has(seq)) return undefined;
    let record = this.cache.get(seq);
    if (!record) {
      record = await this.store.log.read(seq);
      if (!record) return undefined;
      // Stored before namespaces: derived as the index did when it was loaded.
      if (record.namespace === undefined) record.namespace = recordNamespace(record);
      // Another read may have cached it meanwhile: one object per capture.
      record = this.cache.get(seq) ?? record;
      this.remember(record);
    }
    return record;
  }

  /** The record when it is held decoded (the object the rest of the process holds). */
  cached(seq: number): MessageRecord | undefined {
    return this.cache.get(seq);
  }

  /** A stored part's bytes. */
  part(record: MessageRecord, ref: ContentRef): Promise<Buffer> {
    return this.store.packs.read(ref, record.seq);
  }

  /**
   * What deleting captures needs of them: where their parts are. Nearly every capture's is in the
   * index (its pack bytes: MessageIndex.packsForDeletion), so retention's prune reads nothing;
   * the others' records are read from their segment (one read for a batch of neighbours) without
   * going through the cache, and kept no longer than that: retention deletes a batch of 256 at
   * a time, and whole records held across the deletion's write outlived the young generation, so
   * every capture pruned became old-generation garbage (bench/README.md). `each` sees every
   * record held or read first (the domain settles an outcome that is due, as any read would; a
   * capture the index answers for has none pending).
   */
  async forDeletion(seqs: readonly number[], each: (record: MessageRecord) => void): Promise<Doomed[]> {
    // In the order asked (the deletion's event lists them so); null: the record is needed.
    const found: (Doomed | MessageRecord | null)[] = [];
    const unread: number[] = [];
    for (const seq of seqs) {
      if (!this.index.has(seq)) continue;
      const cached = this.cache.get(seq);
      const packs = cached ? null : this.index.packsForDeletion(seq);
      found.push(packs ? { seq, refs: [], packs } : (cached ?? null));
      if (!cached && !packs) unread.push(seq);
    }
    const read = await this.store.log.readMany(unread);
    const doomed: Doomed[] = [];
    let next = 0;
    for (const item of found) {
      if (item !== null && 'packs' in item) {
        if (this.index.has(item.seq)) doomed.push(item);
        continue;
      }
      const record = item ?? read[next++];
      if (!record || !this.index.has(record.seq)) continue;
      each(record);
      doomed.push({ seq: record.seq, refs: contentRefs(record), packs: [] });
    }
    return doomed;
  }

  /**
   * Deletes captures: their tombstones first (if they cannot be written, the captures stay as
   * they were: a refused deletion never half happens), then, once no capture refers to them,
   * their bytes (dead packs go with the next write, mostly dead ones are compacted in the
   * background). `removed` sees each capture taken out; resolves with those that were.
   */
  async remove(doomed: readonly Doomed[], removed: (seq: number) => void): Promise<Doomed[]> {
    if (doomed.length === 0) return [];
    try {
      await this.store.update(
        () => {
          for (const { seq } of doomed) {
            this.store.log.delete(seq, { volatile: true });
            this.deleting.add(seq);
          }
        },
        { freesSpace: true },
      );
    } finally {
      for (const { seq } of doomed) this.deleting.delete(seq);
    }
    const gone: Doomed[] = [];
    let released = false;
    for (const capture of doomed) {
      if (!this.index.remove(capture.seq)) continue;
      gone.push(capture);
      this.cache.delete(capture.seq);
      removed(capture.seq);
      for (const ref of capture.refs) {
        this.store.packs.release(ref);
        released = true;
      }
      for (const [pack, bytes] of capture.packs) {
        this.store.packs.releaseBytes(pack, bytes);
        released = true;
      }
    }
    // Packs nothing lives in any more go with the next write (the deletion itself is on disk).
    if (released) await this.store.write().catch(() => undefined);
    this.scheduleMaintenance();
    return gone;
  }

  /**
   * Deletes every capture; resolves with how many there were. The counters are made safe on
   * disk first (the segment files that named the highest ids are about to go): if even that
   * cannot be written, nothing is cleared. `dropping` runs just before the captures go.
   */
  async clear(dropping: () => void): Promise<number> {
    await this.store.update(() => this.store.meta.touch(), { freesSpace: true });
    const count = this.index.size;
    dropping();
    this.index.clear();
    this.cache.clear();
    await this.store.update(() => {
      this.store.log.clear();
      this.store.packs.releaseAll();
    });
    return count;
  }

  /** Takes a capture that was never stored (or is gone) out of memory. */
  forget(seq: number): void {
    this.index.remove(seq);
    this.cache.delete(seq);
  }

  /**
   * Rewrites mostly dead packs and segments, without holding up sends (runs after deletions). A
   * pack that deletions are still emptying from its oldest capture (retention, under a steady
   * load) is left to go whole once empty; looked at again a few seconds later, it is compacted
   * if it stopped emptying (a cap lowered, the load over).
   */
  async compact(): Promise<void> {
    const live = this.store.packs.liveBytes();
    const before = this.packsLive;
    this.packsLive = live;
    let waiting = false;
    for (const no of this.store.packs.compactionCandidates()) {
      const emptying = (live.get(no) ?? 0) < (before.get(no) ?? 0) && this.emptiedFromOldest(no);
      if (emptying) waiting = true;
      else await this.compactPack(no);
    }
    if (waiting) this.scheduleMaintenance(EMPTYING_RECHECK_MS);
    const segments = [this.store.log, ...this.store.compactable].flatMap((log) => log.compactionCandidates().map((segment) => ({ log, segment })));
    // A compacted segment loses its tombstones, which may be the last mention of the highest
    // ids handed out: the counters are saved first (they are written lazily).
    if (segments.length > 0 && this.store.meta.lazyPending) await this.store.update(() => this.store.meta.force());
    for (const { log, segment } of segments) await this.store.exclusive(() => log.compact(segment));
  }

  /** Stops background work: compaction is not started again. */
  close(): void {
    if (this.maintenance) clearTimeout(this.maintenance);
    this.maintenance = null;
  }

  /**
   * Whether the captures still in pack `no` are the oldest of the inbox, so that deletions from
   * the oldest end, as retention makes them, empty it. Compacting such a pack while they go on
   * copied its remaining parts forward, and their records, only for retention to delete them
   * soon after (9 % of the bytes of the captures pruned at the default cap). At most one pack
   * at a time is such (the one holding the oldest capture).
   */
  private emptiedFromOldest(no: number): boolean {
    const inPack = this.index.oldest(Number.MAX_SAFE_INTEGER, (slot) => this.index.usesPack(slot, no));
    const oldest = this.index.oldest(inPack.length);
    return inPack.length > 0 && inPack.every((seq, i) => seq === oldest[i]);
  }

  /**
   * Copies the live entries of pack `no` forward (to the pack being written), points their
   * captures at the copies, and lets the pack go once nothing refers to it.
   */
  private async compactPack(no: number): Promise<void> {
    this.store.packs.seal(no);
    const seqs = this.index.oldest(Number.MAX_SAFE_INTEGER, (slot) => this.index.usesPack(slot, no));
    for (let at = 0; at < seqs.length; at += 64) {
      for (const seq of seqs.slice(at, at + 64)) {
        const record = await this.current(seq);
        if (!record) continue;
        const moved: [ContentRef, ContentRef][] = [];
        const move = async (ref: ContentRef | undefined, part: number): Promise<ContentRef | undefined> => {
          if (!ref || !('p' in ref) || ref.p !== no) return ref;
          const data = await this.store.packs.read(ref, seq).catch(() => null);
          if (data === null) return ref;
          const copy = this.store.packs.add(seq, part, data, false);
          moved.push([ref, copy]);
          return copy;
        };
        const { html, text, sealed, raw, eml, body } = record.content;
        const content = { ...record.content };
        if (html) content.html = await move(html, PART.html);
        if (text) content.text = await move(text, PART.text);
        if (sealed) content.sealed = await move(sealed, PART.sealed);
        if (raw) content.raw = await move(raw, PART.raw);
        if (eml) content.eml = await move(eml, PART.raw);
        if (body) content.body = await move(body, PART.body);
        const attachments = await Promise.all(
          record.attachments.map(async (a, i) => (a.content ? { ...a, content: (await move(a.content, PART.attachment + i))! } : a)),
        );
        if (moved.length === 0) continue;
        // The same object the rest of the process holds: later changes keep the new places.
        const current = (await this.current(seq)) ?? record;
        // Deleted meanwhile, or being deleted (checked with no await before the put): its record
        // must not be written after its tombstone (the last line wins: it would come back at the
        // next start, its copies counted nowhere and deleted), and the copies are dead bytes.
        if (!this.index.has(seq) || this.deleting.has(seq)) {
          for (const [, copy] of moved) this.store.packs.release(copy);
          continue;
        }
        current.content = content;
        current.attachments = attachments;
        this.index.setContent(current);
        this.store.log.put(current, {
          onCommit: () => {
            for (const [old] of moved) this.store.packs.release(old);
          },
        });
      }
      await this.store.write();
    }
    // The old pack is released as the moves are committed: the next write deletes it.
    await this.store.write();
  }

  private scheduleMaintenance(delayMs = 1000): void {
    if (this.maintenance) return;
    this.maintenance = setTimeout(() => {
      this.maintenance = null;
      void this.compact().catch(() => undefined);
    }, delayMs);
    this.maintenance.unref();
  }

  private remember(record: MessageRecord): void {
    this.cache.set(record.seq, record, this.store.log.storedBytes(record.seq) || UNSTORED_RECORD_BYTES);
  }
}
