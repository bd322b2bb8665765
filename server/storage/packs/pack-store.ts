import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { decodePacksCheckpoint, encodePacksCheckpoint, type PackCheckpoint, writeCheckpoint } from '../disk/checkpoint.ts';
import type { Batch, Participant } from '../disk/flusher.ts';
import type { Fs } from '../disk/fs.ts';
import { anyLost, writeBack } from '../disk/lost-files.ts';
import type { Quarantine } from '../disk/quarantine.ts';
import { DamagedContent } from '../errors.ts';
import { PackBatch, type PackHost } from './pack-batch.ts';
import { checkEntry, ENTRY_HEADER, entryHeader, Pack, packFileName, packNumbers } from './pack-file.ts';
import { checkpointEntry, scanPack } from './pack-scan.ts';

/**
 * Where a part of a capture (its HTML, text, sealed record body, raw message or an attachment)
 * is stored: an entry in a pack file, or a file of its own for a very large part.
 */
export type ContentRef = { p: number; o: number; n: number } | { f: string; n: number };

/**
 * Pack files hold the bytes of captures (docs/storage.md): entries appended to a file that
 * only grows until it reaches `packSize`, then is sealed and a new one started. Each entry is a
 * 20-byte header (magic, the capture's sequence number, the part, the length, a CRC-32 of the
 * header and the data) and the data. A group commit appends every entry of its batch in one
 * write. Parts of `largePartSize` and more keep a file of their own (an upload is renamed in,
 * not copied). Deleting captures leaves dead bytes; a sealed pack with nothing live is deleted,
 * and one mostly dead is compacted (its live entries copied forward).
 */
/** The packs' checkpoint: which sealed packs were scanned, and what they held damaged. */
const CHECKPOINT = 'packs.idx';

export const PART = { html: 1, text: 2, sealed: 3, raw: 4, body: 5, attachment: 16 } as const;

export interface PackStoreOptions {
  dir: string;
  fs: Fs;
  fsync: boolean;
  quarantine: Quarantine;
  /** A pack is sealed once it holds this many bytes. */
  packSize: number;
  /** Parts at least this large get a file of their own. */
  largePartSize: number;
}

export class PackStore implements Participant, PackHost {
  private readonly packs = new Map<number, Pack>();
  private active!: Pack;
  /** Large parts renamed in for captures whose write is pending; deleted if it fails. */
  private queuedFiles: { name: string; volatile: boolean }[] = [];
  private doomedFiles: string[] = [];
  /** Entries found damaged at start-up: reads of them answer DamagedContent. */
  private readonly damaged = new Set<string>();
  /** Sealed packs as the checkpoint read at start-up describes them (storage/checkpoint.ts). */
  private checkpoint = new Map<number, PackCheckpoint>();
  /** Packs sealed, dropped or written back in this process, and how many of those the checkpoint on disk includes. */
  private changes = 0;
  private checkpointed = -1;
  /** The size at which the last checkpoint named the pack being appended to (-1: not named). */
  private activeNamed = -1;
  /** Packs start-up took from the checkpoint, and packs it scanned. */
  readonly checkpointUse = { restored: 0, scanned: 0 };

  private constructor(private readonly options: PackStoreOptions) {}

  static async open(options: PackStoreOptions): Promise<PackStore> {
    const store = new PackStore(options);
    await options.fs.mkdir(options.dir);
    const names = await options.fs.readdir(options.dir);
    await options.fs.unlink(path.join(options.dir, `${CHECKPOINT}.tmp`)).catch(() => undefined);
    const saved = await options.fs.readFile(path.join(options.dir, CHECKPOINT)).catch(() => null);
    try {
      if (saved) store.checkpoint = new Map(decodePacksCheckpoint(saved).map((pack) => [pack.no, pack]));
    } catch {
      // Damaged: every pack is scanned, as without one.
    }
    const numbers = packNumbers(names);
    for (const no of numbers) await store.load(no, no === numbers.at(-1));
    // Current when every sealed pack came from it (the last one, appended to, only after a clean stop).
    store.checkpointed = store.checkpointUse.restored >= numbers.length - 1 ? 0 : -1;
    store.checkpoint.clear();
    const last = numbers.at(-1);
    store.active = last !== undefined ? store.packs.get(last)! : store.newPack(1);
    if (store.active.size >= options.packSize) store.rotate();
    return store;
  }

  get dir(): string {
    return this.options.dir;
  }

  get files(): number {
    return this.packs.size;
  }

  /**
   * Queues `data` as a part of capture `seq` for the next write and says where it will be.
   * Volatile (the default): the part of a new capture, which is rolled back if its write fails;
   * otherwise (compaction's copies) the bytes stay referenced and are written again.
   */
  add(seq: number, part: number, data: Buffer, volatile = true): ContentRef {
    const entry = ENTRY_HEADER + data.length;
    if (this.active.end > 0 && this.active.end + entry > this.options.packSize) this.rotate();
    const pack = this.active;
    const header = entryHeader(seq, part, data);
    const ref = { p: pack.no, o: pack.end, n: data.length };
    pack.unsaved.set(ref.o, data);
    pack.queued.push(header, data);
    pack.queuedBytes += entry;
    if (volatile) pack.queuedVolatile += entry;
    pack.live += entry;
    return ref;
  }

  /** Moves a large temporary file in as a part of its own; the name is random, not the seq. */
  async adopt(source: string, size: number): Promise<ContentRef> {
    const name = `${randomBytes(8).toString('hex')}.part`;
    const target = path.join(this.options.dir, name);
    await this.options.fs.rename(source, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EXDEV') throw error;
      await this.options.fs.writeFile(target, await this.options.fs.readFile(source));
      await this.options.fs.unlink(source);
    });
    this.queuedFiles.push({ name, volatile: true });
    return { f: name, n: size };
  }

  /** Writes a large part from memory into a file of its own. */
  async addFile(data: Buffer): Promise<ContentRef> {
    const name = `${randomBytes(8).toString('hex')}.part`;
    await this.options.fs.writeFile(path.join(this.options.dir, name), data);
    this.queuedFiles.push({ name, volatile: true });
    return { f: name, n: data.length };
  }

  /** Bytes queued and not written yet (a write failed, or none was made yet). */
  get unsavedBytes(): number {
    let bytes = 0;
    for (const pack of this.packs.values()) bytes += pack.queuedBytes;
    return bytes;
  }

  /** Whether a part of this size is kept as a file of its own. */
  isLarge(size: number): boolean {
    return size >= this.options.largePartSize;
  }

  /** Whether a part lies past the end of its pack: the write that held it was cut short. */
  cutShort(ref: ContentRef): boolean {
    if (!('p' in ref)) return false;
    const pack = this.packs.get(ref.p);
    return pack !== undefined && ref.o + ENTRY_HEADER + ref.n > pack.size;
  }

  /** Bytes on disk in pack `no`; unbounded for one that is not there (missing is not "cut short": reads say it is missing). */
  sizeOf(no: number): number {
    return this.packs.get(no)?.size ?? Number.POSITIVE_INFINITY;
  }

  /** Counts `bytes` of pack `no` as live (start-up, for captures restored from a checkpoint). */
  retainBytes(no: number, bytes: number): void {
    const pack = this.packs.get(no);
    if (pack) pack.live += bytes;
  }

  /**
   * Writes the packs' checkpoint (the sealed packs as scanned, and their damaged entries) when
   * packs were sealed or dropped since the last one; false when there was nothing to write.
   * `withActive` (checkpointNow: a clean stop) writes it anyway, with the pack being appended to
   * as it is now, so that the next start need not scan that one either while it is unchanged.
   */
  async saveCheckpoint(withActive = false): Promise<boolean> {
    const changes = this.changes;
    if (changes === this.checkpointed && (!withActive || this.activeNamed === this.active.size)) return false;
    const named = [...this.packs.values()].filter((pack) => (pack.sealed && pack !== this.active) || (withActive && pack === this.active));
    const entries = (await Promise.all(named.map((pack) => checkpointEntry(pack, this.damaged)))).filter((entry) => entry !== null);
    await writeCheckpoint(this.options.fs, path.join(this.options.dir, CHECKPOINT), encodePacksCheckpoint(entries));
    this.checkpointed = changes;
    this.activeNamed = entries.find((entry) => entry.no === this.active.no)?.file.size ?? -1;
    return true;
  }

  /** Counts a stored part as live (at start-up, for every capture's parts). */
  retain(ref: ContentRef): void {
    if ('p' in ref) {
      const pack = this.packs.get(ref.p);
      if (pack) pack.live += ENTRY_HEADER + ref.n;
    }
  }

  /** A part is no longer referenced: its bytes are dead (its own file goes with the next write). */
  release(ref: ContentRef): void {
    if ('f' in ref) this.doomedFiles.push(ref.f);
    else this.releaseBytes(ref.p, ENTRY_HEADER + ref.n);
  }

  /** `bytes` of pack `no` are dead, entry headers included (a capture's PackUse: its refs' release at once). */
  releaseBytes(no: number, bytes: number): void {
    const pack = this.packs.get(no);
    if (pack) pack.live = Math.max(0, pack.live - bytes);
  }

  /** The part's bytes, checked against their header; DamagedContent when they cannot be trusted. */
  async read(ref: ContentRef, seq: number): Promise<Buffer> {
    if ('f' in ref) {
      const file = path.join(this.options.dir, ref.f);
      const data = await this.options.fs.readFile(file).catch(() => null);
      if (data === null) throw new DamagedContent(file, 'the file holding this part is missing');
      if (data.length !== ref.n) throw new DamagedContent(file, `the file holding this part has ${data.length} bytes, ${ref.n} were stored`);
      return data;
    }
    const pack = this.packs.get(ref.p);
    const file = pack?.file ?? this.fileOf(ref.p);
    if (this.damaged.has(`${ref.p}:${ref.o}`)) throw new DamagedContent(file, `the entry at offset ${ref.o} failed its checksum`);
    if (!pack) throw new DamagedContent(file, 'the pack holding this part is missing');
    if (ref.o + ENTRY_HEADER + ref.n > pack.end) throw new DamagedContent(file, `the entry at offset ${ref.o} lies past the end of the pack`);
    const unsaved = pack.unsaved.get(ref.o);
    if (unsaved) return unsaved;
    if (!pack.handle) throw new DamagedContent(file, 'the pack holding this part is missing');
    const bytes = await this.options.fs.readAt(pack.handle, ref.o, ENTRY_HEADER + ref.n);
    const problem = checkEntry(bytes, seq, ref.n);
    if (problem) throw new DamagedContent(file, `the entry at offset ${ref.o} ${problem}`);
    return bytes.subarray(ENTRY_HEADER);
  }

  /** Packs worth compacting: at least 64 KB, less than half of it live. */
  compactionCandidates(): number[] {
    const out: number[] = [];
    for (const pack of this.packs.values()) {
      if (pack.live > 0 && pack.size >= 64 * 1024 && pack.live * 2 < pack.size && pack.queuedBytes === 0 && pack.inflightBytes === 0) out.push(pack.no);
    }
    return out;
  }

  /** Bytes still referenced in each pack, by pack number. */
  liveBytes(): Map<number, number> {
    return new Map([...this.packs.values()].map((pack) => [pack.no, pack.live]));
  }

  /** Stops appending to pack `no` (before it is compacted): new parts go to a new pack. */
  seal(no: number): void {
    if (this.active.no === no) this.rotate();
  }

  /** Sealed packs with nothing live, and the active one if nothing in it is live. */
  private deadPacks(): Pack[] {
    return [...this.packs.values()].filter((pack) => pack.live === 0 && pack.queuedBytes === 0 && pack.inflightBytes === 0 && pack.size > 0);
  }

  begin(): Batch | null {
    // Queued bytes of a pack nothing refers to any more (its captures were deleted or rolled back
    // while a write was failing): writing them would only use space. Dropped, the pack is dead
    // and goes below, which is how clearing the inbox frees space on a full disk.
    for (const pack of this.packs.values()) {
      if (pack.live > 0 || pack.queuedBytes === 0 || pack.inflightBytes > 0) continue;
      pack.queued = [];
      pack.queuedBytes = 0;
      pack.queuedVolatile = 0;
      this.forgetUnsaved(pack);
    }
    const writes = [...this.packs.values()]
      .filter((pack) => pack.queuedBytes > 0)
      .map((pack) => ({ pack, buffers: pack.queued, bytes: pack.queuedBytes, liveBytes: pack.queuedVolatile, position: pack.size + pack.inflightBytes }));
    for (const write of writes) {
      write.pack.inflightBytes += write.bytes;
      write.pack.queued = [];
      write.pack.queuedBytes = 0;
      write.pack.queuedVolatile = 0;
    }
    const files = this.queuedFiles;
    this.queuedFiles = [];
    const doomedFiles = this.doomedFiles;
    this.doomedFiles = [];
    const dead = this.deadPacks();
    if (writes.length === 0 && files.length === 0 && doomedFiles.length === 0 && dead.length === 0) return null;
    return new PackBatch(this, writes, files, doomedFiles, dead);
  }

  /** After the data directory was removed under the server: writes every pack back from its open file. */
  async restore(): Promise<number> {
    const { fs } = this.options;
    await fs.mkdir(this.options.dir);
    let restored = 0;
    for (const pack of this.packs.values()) {
      if (!pack.handle) continue;
      const handle = await writeBack(fs, pack.file, pack.handle, pack.size);
      if (!handle) continue;
      await pack.handle.close().catch(() => undefined);
      pack.handle = handle;
      pack.writable = true;
      this.changes++;
      restored++;
    }
    return restored;
  }

  async close(): Promise<void> {
    for (const pack of this.packs.values()) {
      await pack.handle?.close().catch(() => undefined);
      pack.handle = null;
    }
  }

  /** Forgets every pack (the whole inbox was cleared): their files go with the next write. */
  releaseAll(): void {
    for (const pack of this.packs.values()) pack.live = 0;
    // New captures go to a new pack, so every old one can go as a whole.
    if (this.active.end > 0) this.rotate();
  }

  /** What the group commit's batch writes with (pack-batch.ts). */
  get writeOptions(): { fs: Fs; fsync: boolean } {
    return this.options;
  }

  /**
   * The write of `pack` failed. Entries queued after it already have their offsets, so
   * the failed bytes go back to the front of the queue to be written again, as dead bytes: the
   * captures they belonged to were rolled back.
   */
  requeue(pack: Pack, buffers: Buffer[], bytes: number, liveBytes: number): void {
    pack.inflightBytes -= bytes;
    pack.live = Math.max(0, pack.live - liveBytes);
    // Every byte belonged to a capture that was rolled back, and no offset was handed out after
    // them: nothing needs them, so they are not kept (a sender retrying against a full disk
    // would otherwise pile its rejected messages up in memory, to be written once there is room).
    if (liveBytes === bytes && pack.queuedBytes === 0 && pack.inflightBytes === 0) {
      this.forgetUnsaved(pack);
      return;
    }
    pack.queued = [...buffers, ...pack.queued];
    pack.queuedBytes += bytes;
  }

  /** Drops the data kept for reads of entries past the pack's end (their bytes will never be written). */
  private forgetUnsaved(pack: Pack): void {
    for (const at of pack.unsaved.keys()) if (at >= pack.end) pack.unsaved.delete(at);
  }

  /** The write of `pack` is on disk. */
  saved(pack: Pack, position: number, buffers: Buffer[], bytes: number): void {
    pack.inflightBytes -= bytes;
    pack.size = Math.max(pack.size, position + bytes);
    let at = position;
    for (let i = 0; i + 1 < buffers.length; i += 2) {
      pack.unsaved.delete(at);
      at += buffers[i]!.length + buffers[i + 1]!.length;
    }
  }

  /** A dead, sealed pack whose file is deleted. */
  dropPack(pack: Pack): void {
    this.packs.delete(pack.no);
    this.changes++;
  }

  private rotate(): void {
    this.changes++;
    this.active.sealed = true;
    this.active = this.newPack(this.active.no + 1);
  }

  private newPack(no: number): Pack {
    const pack = new Pack(no, this.fileOf(no));
    this.packs.set(no, pack);
    return pack;
  }

  /**
   * Scans a pack at start-up (pack-scan.ts), or takes what its last scan found from the
   * checkpoint when the file is unchanged since.
   */
  private async load(no: number, last: boolean): Promise<void> {
    const pack = this.newPack(no);
    const { restored, damaged } = await scanPack(this.options, pack, last, this.checkpoint.get(no));
    for (const offset of damaged) this.damaged.add(`${no}:${offset}`);
    if (restored) this.checkpointUse.restored++;
    else this.checkpointUse.scanned++;
  }

  private fileOf(no: number): string {
    return path.join(this.options.dir, packFileName(no));
  }

  /** Whether any pack file has lost its name under the running server. */
  async lostFiles(): Promise<boolean> {
    return anyLost([...this.packs.values()].map((pack) => pack.handle));
  }

  /** Opens a pack's file for writing (created when it is not there yet). */
  reopen(pack: Pack): Promise<void> {
    return (async () => {
      if (pack.handle && pack.writable) return;
      const handle = await this.options.fs.open(pack.file, pack.handle ? 'r+' : 'w+');
      await pack.handle?.close().catch(() => undefined);
      pack.handle = handle;
      pack.writable = true;
    })();
  }
}
