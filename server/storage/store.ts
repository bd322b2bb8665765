import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { Collection } from './segments/collection.ts';
import { DataDirNotWritable, StorageError, storageError } from './errors.ts';
import { Flusher } from './disk/flusher.ts';
import { nodeFs, type Fs } from './disk/fs.ts';
import { StorageHealth } from './disk/health.ts';
import { JsonFile } from './disk/json-file.ts';
import { MessageIndex } from './indexes/message-index.ts';
import { migrateFromV1, isV1 } from './migrate/migrate-v1.ts';
import { PackStore } from './packs/pack-store.ts';
import { Quarantine, type DamageReport } from './disk/quarantine.ts';
import { RecipientStore, type RecipientStoreOptions } from './indexes/recipient-store.ts';
import {
  contentRefs,
  type BlocksData,
  type MessageRecord,
  type MetaData,
  type RequestLogRecord,
  type RequestSummary,
  type SubscriptionRecord,
  type WorkbenchData,
} from './records.ts';
import { SegmentLog, type CheckpointUse } from './segments/segment-log.ts';
import { requestLogSegmentSize, SEGMENT_SIZE, segmentSizeOf } from './segments/segment-size.ts';
import { unsavedNote } from './disk/unsaved.ts';
import { deniesWrites, holdsStore, notWritable } from './disk/writable.ts';

export interface StoreOptions {
  dataDir: string;
  /** fdatasync every group commit, so a 200 means the data is on stable storage (--fsync). */
  fsync?: boolean;
  /** The file operations (tests inject failures through it). */
  fs?: Fs;
  /**
   * Records per segment file (messages, recipients, subscriptions; the request log at most 1,024)
   * of a new store; a store records its size in meta.json and keeps it (segment-size.ts).
   */
  segmentSize?: number;
  /** A pack is sealed at this many bytes. */
  packSize?: number;
  /** Parts at least this large are stored as a file of their own. */
  largePartSize?: number;
  /** Bytes kept in reserve so deletions can free space on a full disk. */
  reserveSize?: number;
  /** How often the store checks its folders and, while unhealthy, tries to write again. */
  probeIntervalMs?: number;
  /** Where start-up damage and recovery are reported. */
  log?: (line: string) => void;
  /** How often the background checkpoint runs, and how long a segment must be unchanged for it. */
  checkpointIntervalMs?: number;
  checkpointQuietMs?: number;
  /** The recipients' read cache and key hash (tests make them small and poor). */
  recipients?: RecipientStoreOptions;
}

/** The captures: a compact index in memory, the records in segment files, the bytes in packs. */
interface MessageStore {
  readonly index: MessageIndex;
  readonly log: SegmentLog<MessageRecord>;
}

/** The request log: a summary per entry in memory (oldest first), the entries in segment files. */
interface RequestStore {
  readonly log: SegmentLog<RequestLogRecord>;
  readonly summaries: RequestSummary[];
}

/** How a write is made: see Store.flush. */
interface CommitOptions {
  /** Part of a deletion, which may use the reserve on a full disk. */
  freesSpace?: boolean;
  /** The write waits for the rest of this turn of the event loop, and what it brings shares it. */
  gather?: boolean;
}

/** A unit of work's options: how it is written, and how memory is put back if it cannot be. */
interface UpdateOptions extends CommitOptions {
  /**
   * Puts memory back as it was before the change, when the write fails (the change is then
   * never reported saved: the update rejects with the StorageError after it has run).
   */
  undo?: () => void;
}

export interface Store {
  readonly dataDir: string;
  readonly messages: MessageStore;
  readonly recipients: RecipientStore;
  readonly subscriptions: Collection<SubscriptionRecord>;
  /** The /v1 request log: bounded (oldest entries removed), with its own group commit. */
  readonly requests: RequestStore;
  readonly packs: PackStore;
  readonly meta: MetaData;
  readonly blocks: BlocksData;
  /**
   * The designers' workbench (account template versions, sample data): `replace` it whole inside
   * `update` (its undo puts the old value back); it is written with that unit of work's commit.
   */
  readonly workbench: { readonly data: Readonly<WorkbenchData>; replace(next: WorkbenchData): void };
  readonly health: StorageHealth;
  /** What start-up found damaged and set aside in `<data>/damaged/`. */
  readonly damage: readonly DamageReport[];
  /** meta.json changed in a way that must be written with the next flush (the clock). */
  touchMeta(): void;
  /**
   * Id counters or daily counts changed: written within a second (start-up derives both from
   * the records too, so a crash before that loses nothing).
   */
  touchCounters(): void;
  touchBlocks(): void;
  /**
   * Resolves once every change made before the call is on disk; a StorageError otherwise.
   * `freesSpace`: part of a deletion, which may use the reserve on a full disk. `gather`: the
   * write waits for the rest of this turn of the event loop, and what it brings shares it.
   */
  flush(options?: CommitOptions): Promise<void>;
  /**
   * One unit of work, as lowdb's `db.update(fn)`: applies `change` (synchronous, in memory: it
   * queues what it changes) and resolves with its result once the change is on disk, in the
   * group commit it shares with whatever else is queued. A write that fails rejects with the
   * StorageError (after `undo`, when given), so a change is reported saved only once it is.
   */
  update<T>(change: () => T, options?: UpdateOptions): Promise<T>;
  /** Resolves once every change made before the call is on disk (a command whose change was queued step by step). */
  commit(options?: CommitOptions): Promise<void>;
  /**
   * The request log has its own group commit: it is not accepted data, and a /v1 response
   * must never wait for a log segment to be written.
   */
  flushRequests(): Promise<void>;
  /** Runs `task` with no write under way (compaction). */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /**
   * Writes the checkpoint of every segment that changed since its last one (and of the packs)
   * now, as a clean stop does; resolves with how many files it wrote.
   */
  checkpoint(): Promise<number>;
  /** Bytes the data directory takes on disk (allocated blocks) and how many files it holds. */
  diskUsage(): Promise<{ bytes: number; files: number }>;
  close(): Promise<void>;
}

const DEFAULTS = {
  segmentSize: SEGMENT_SIZE,
  packSize: 8 * 1024 * 1024,
  largePartSize: 1024 * 1024,
  reserveSize: 256 * 1024,
  probeIntervalMs: 500,
  checkpointIntervalMs: 10_000,
  checkpointQuietMs: 5_000,
};

/**
 * Opens (creating if needed, migrating an older layout) the data directory and loads it. One
 * this process may not write (a read-only mount, another owner's folder) opens read-only when
 * it holds a store: what it holds is served, /readyz is not ready and every write is refused
 * until it is writable again (the probe notices). An empty one is refused (DataDirNotWritable).
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  const dataDir = path.resolve(options.dataDir);
  const fsync = options.fsync ?? false;
  const settings = { ...DEFAULTS, ...definedOnly(options) };
  const log = options.log ?? ((line: string) => console.error(line));
  const given = options.fs ?? nodeFs;
  const unwritable = await notWritable(given, dataDir);
  const readOnly = unwritable && deniesWrites(unwritable) ? unwritable : null;
  if (readOnly && !(await holdsStore(given, dataDir))) throw new DataDirNotWritable(dataDir, readOnly, 'empty');
  // Opening read-only, a folder the store lacks reads as empty (the probe makes it once it can).
  let opening = readOnly !== null;
  const fs: Fs = {
    ...given,
    mkdir: (dir) =>
      given.mkdir(dir).catch((error: unknown) => {
        if (!opening) throw error;
      }),
  };
  const quarantine = new Quarantine(dataDir, fs, log);
  const dirs = {
    packs: path.join(dataDir, 'packs'),
    messages: path.join(dataDir, 'messages'),
    recipients: path.join(dataDir, 'recipients'),
    subscriptions: path.join(dataDir, 'subscriptions'),
    requests: path.join(dataDir, 'requests'),
    tmp: path.join(dataDir, 'tmp'),
  };
  const common = { fs, fsync, quarantine };
  const v1 = await isV1(dataDir, fs);
  if (v1 && readOnly) throw new DataDirNotWritable(dataDir, readOnly, 'older layout');
  if (v1)
    await migrateFromV1({
      dataDir,
      dirs,
      fs,
      log,
      segmentSize: settings.segmentSize,
      packSize: settings.packSize,
      largePartSize: settings.largePartSize,
      quarantine,
    });

  const meta = await JsonFile.open<MetaData>(path.join(dataDir, 'meta.json'), freshMeta(), common);
  meta.data = { ...freshMeta(), ...meta.data, version: 2 };
  const blocks = await JsonFile.open<BlocksData>(path.join(dataDir, 'blocks.json'), { blocks: [] }, common);
  const workbench = await JsonFile.open<WorkbenchData>(path.join(dataDir, 'workbench.json'), { templates: {}, samples: {} }, common);
  // A document written by hand or cut short of a part reads as that part empty.
  workbench.data = { templates: workbench.data.templates ?? {}, samples: workbench.data.samples ?? {} };
  const segmentSize = await segmentSizeOf({ recorded: meta.data.segmentSize, requested: settings.segmentSize, folders: dirs, fs });
  if (!readOnly && meta.data.segmentSize !== segmentSize) {
    meta.data.segmentSize = segmentSize;
    meta.touch();
  }
  const packs = await PackStore.open({ dir: dirs.packs, ...common, packSize: settings.packSize, largePartSize: settings.largePartSize });
  const index = new MessageIndex();
  const segmentOptions = (dir: string, size = segmentSize) => ({ dir, segmentSize: size, ...common });
  const opened = Date.now();
  let cutShort = 0;
  const rows = {
    save: (lo: number, hi: number, live: readonly number[]) => index.serializeRange(lo, hi, live),
    restore: (data: Buffer) => {
      const restored = index.restoreRange(data, (pack) => packs.sizeOf(pack));
      for (const [pack, bytes] of restored.packs) packs.retainBytes(pack, bytes);
      cutShort += restored.cutShort;
    },
  };
  const messageLog = await SegmentLog.open<MessageRecord>({ ...segmentOptions(dirs.messages), checkpoint: rows }, (record) => {
    const refs = contentRefs(record);
    // Packs are written before the records that point into them, so this only happens when a
    // power loss (without --fsync) kept a record but not its bytes: the capture stays, and its
    // parts read as damaged.
    if (refs.some((ref) => packs.cutShort(ref))) cutShort++;
    for (const ref of refs) packs.retain(ref);
    index.add(record);
  });
  if (cutShort > 0)
    log(
      `pigeonhole: ${cutShort} capture${cutShort === 1 ? '' : 's'} point${cutShort === 1 ? 's' : ''} at bytes missing from the end of a pack (a write cut short by a power loss); their parts read as damaged`,
    );
  const recipients = await RecipientStore.open(segmentOptions(dirs.recipients), options.recipients);
  logCheckpointUse(log, [messageLog.checkpointUse, recipients.storage.checkpointUse], packs.checkpointUse, Date.now() - opened);
  const subscriptions = await Collection.open<SubscriptionRecord>(segmentOptions(dirs.subscriptions));
  const requestSummaries: RequestSummary[] = [];
  const requestLog = await SegmentLog.open<RequestLogRecord>(segmentOptions(dirs.requests, requestLogSegmentSize(segmentSize)), (record) =>
    requestSummaries.push(requestSummary(record)),
  );
  const requests: RequestStore = { log: requestLog, summaries: requestSummaries };
  // Uploads left by a request that never finished (a crash mid-upload) are not data. (On a
  // read-only file system they stay, and the server still starts to show what it holds.)
  await fs.rm(dirs.tmp).catch(() => undefined);
  await fs.mkdir(dirs.tmp).catch(() => undefined);

  // Ids never repeat: the counters never go below what any segment line names (a crash may
  // have come before meta.json was written).
  const counters = meta.data.counters;
  counters.message = Math.max(counters.message, messageLog.maxSeq);
  counters.recipient = Math.max(counters.recipient, recipients.maxSeq());
  counters.subscription = Math.max(counters.subscription, subscriptions.maxSeq());
  counters.request = Math.max(counters.request ?? 0, requestLog.maxSeq);

  opening = false;
  const health = new StorageHealth(log);
  if (readOnly) {
    const why = readOnly.code === 'EROFS' ? 'read-only file system' : 'permission denied';
    health.failed(
      storageError(readOnly, dataDir),
      `pigeonhole: the data directory ${dataDir} cannot be written: ${why} (${readOnly.syscall} ${readOnly.path}). Serving what it holds read-only: /readyz is not ready and every write is refused (HTTP 507, SMTP 452) until it is writable again, which Pigeonhole picks up by itself`,
    );
  } else if (unwritable) {
    // A full disk (or an I/O error) is no reason not to start: not ready until the probe can write.
    health.failed(storageError(unwritable, dataDir));
  }
  const reserve = new Reserve(path.join(dataDir, 'reserve'), settings.reserveSize, fs);
  await reserve.ensure();

  let lazyTimer: NodeJS.Timeout | null = null;
  const hooks = {
    async failed(error: StorageError, batch: { deletes: boolean }): Promise<boolean> {
      // A deletion on a full disk may use the reserve: deleting is how a user frees space.
      if (error.problem === 'full' && batch.deletes && (await reserve.release())) return true;
      // A folder removed under the server: made again (and written back), then the write again.
      if (error.problem === 'missing' && !closed && (await watched.changed().catch(() => false))) {
        await restoreFolders();
        return true;
      }
      health.failed(error);
      return false;
    },
    succeeded(): void {
      if (health.problem) health.recovered();
      if (reserve.missing) void reserve.ensure().catch(() => undefined);
      if (meta.lazyPending && lazyTimer === null) {
        lazyTimer = setTimeout(() => {
          lazyTimer = null;
          meta.force();
          void flusher.flush().catch(() => undefined);
        }, 1000);
        lazyTimer.unref();
      }
    },
  };
  const flusher = new Flusher([packs, messageLog, recipients.storage, subscriptions.storage, meta, blocks, workbench], hooks);
  const logFlusher = new Flusher([requestLog], {
    failed: async (error) => {
      health.failed(error);
      return false;
    },
    succeeded: () => undefined,
  });

  const watched = new FolderWatch(fs, [dataDir, ...Object.values(dirs)]);
  await watched.remember();
  let closed = false;
  let ticks = 0;
  /** The probe under way, which a close waits for (it may be writing a probe file or the reserve). */
  let probing: Promise<void> | null = null;
  /**
   * Every half second: the folders are still the ones opened (someone may have removed the
   * data directory to clear the sandbox: it is written back, nothing acknowledged is lost);
   * and while a write failed, try again, so the store heals itself once space is freed or the
   * file system is writable again.
   */
  const probe = (): Promise<void> => {
    if (closed || probing) return probing ?? Promise.resolve();
    probing = probeOnce().finally(() => {
      probing = null;
    });
    return probing;
  };
  const probeOnce = async () => {
    try {
      ticks++;
      const lost = (await watched.changed()) || (ticks % 10 === 0 && ((await packs.lostFiles()) || (await messageLog.lostFiles())));
      if (lost) await restore();
      if (health.problem) {
        await probeWrite(fs, dataDir);
        await watched.makeMissing();
        await reserve.ensure();
        await flusher.flush();
        await logFlusher.flush();
        health.recovered();
      }
    } catch (error) {
      if (!health.problem) health.failed(storageError(error, dataDir));
    }
  };
  const timer = setInterval(() => void probe(), settings.probeIntervalMs);
  timer.unref();

  /**
   * Checkpoints (storage/checkpoint.ts): of the segments that changed and have been quiet a
   * while, and of the packs, in the background; of everything at a clean stop. Never while the
   * disk refuses writes; a checkpoint that cannot be written only makes the next start slower.
   */
  let checkpointing: Promise<number> | null = null;
  const saveCheckpoints = (quietMs: number, limit: number): Promise<number> => {
    checkpointing ??= (async () => {
      let written = 0;
      try {
        if (health.problem) return 0;
        for (const segmentLog of [messageLog, recipients.storage]) {
          for (const segment of segmentLog.staleCheckpoints(quietMs).slice(0, limit)) {
            if (await segmentLog.saveCheckpoint(segment, (task) => flusher.exclusive(task))) written++;
          }
        }
        if (await packs.saveCheckpoint()) written++;
      } catch {
        // The disk refused it: the files stay the record, read at the next start.
      } finally {
        checkpointing = null;
      }
      return written;
    })();
    return checkpointing;
  };
  const checkpointTimer = setInterval(() => void saveCheckpoints(settings.checkpointQuietMs, 8), settings.checkpointIntervalMs);
  checkpointTimer.unref();

  /** Makes the folders again and writes back every file from the copy still open, and the rest from memory. */
  async function restoreFolders(): Promise<void> {
    for (const dir of [dataDir, ...Object.values(dirs)]) await fs.mkdir(dir);
    let files = await packs.restore();
    for (const segmentLog of [messageLog, recipients.storage, subscriptions.storage, requestLog]) files += await segmentLog.restore();
    meta.touch();
    blocks.touch();
    workbench.touch();
    reserve.missing = true;
    void reserve.ensure();
    await watched.remember();
    log(
      `pigeonhole: the data directory ${dataDir} (or a folder in it) was removed while the server ran; recreated it and wrote back ${files} file${files === 1 ? '' : 's'} from the files still open, and the rest from memory`,
    );
  }
  const restore = () => flusher.exclusive(restoreFolders).then(() => flusher.flush());

  return {
    dataDir,
    messages: { index, log: messageLog },
    recipients,
    subscriptions,
    requests,
    packs,
    get meta() {
      return meta.data;
    },
    get blocks() {
      return blocks.data;
    },
    workbench: {
      get data() {
        return workbench.data;
      },
      replace(next) {
        workbench.data = next;
        workbench.touch();
      },
    },
    health,
    damage: quarantine.reports,
    touchMeta: () => meta.touch(),
    touchCounters: () => meta.touchLazily(),
    touchBlocks: () => blocks.touch(),
    flush: (options) => flusher.flush(options),
    update: (change, options) => update(flusher, change, options),
    commit: (options) => flusher.flush(options),
    flushRequests: () => logFlusher.flush(),
    exclusive: (task) => flusher.exclusive(task),
    checkpoint: async () => {
      await checkpointing;
      return saveCheckpoints(0, Number.POSITIVE_INFINITY);
    },
    diskUsage: () => diskUsage(fs, dataDir),
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      clearInterval(checkpointTimer);
      if (lazyTimer) clearTimeout(lazyTimer);
      await probing;
      meta.force();
      health.silence();
      try {
        const results = await Promise.allSettled([flusher.flush(), logFlusher.flush()]);
        const failed = results.find((result) => result.status === 'rejected');
        if (failed) {
          // What was acknowledged is on disk already; say what was not, and stop cleanly.
          if (!(failed.reason instanceof StorageError)) throw failed.reason;
          log(
            unsavedNote(failed.reason, {
              meta: meta.unsavedFields(),
              blocks: blocks.unsavedFields(),
              messages: await messageLog.unsaved(),
              recipients: await recipients.storage.unsaved(),
              subscriptions: await subscriptions.storage.unsaved(),
              requests: await requestLog.unsaved(),
              packBytes: packs.unsavedBytes,
            }),
          );
        } else {
          await checkpointing;
          await saveCheckpoints(0, Number.POSITIVE_INFINITY);
        }
      } finally {
        await Promise.all([packs.close(), messageLog.close(), recipients.storage.close(), subscriptions.storage.close(), requestLog.close()]);
      }
    },
  };
}

/** Store.update: the change, then the group commit that writes it (or `undo` and the error). */
async function update<T>(flusher: Flusher, change: () => T, { undo, ...options }: UpdateOptions = {}): Promise<T> {
  const result = change();
  try {
    await flusher.flush(options);
  } catch (error) {
    undo?.();
    throw error;
  }
  return result;
}

/** The fields of a request log entry its filters read, kept in memory. */
export function requestSummary(record: RequestLogRecord): RequestSummary {
  const { seq, method, path, sender, team, status, fault } = record;
  return { seq, method, path, sender, team, status, fault };
}

/** Every stored part of a capture. */
function freshMeta(): MetaData {
  return { version: 2, counters: { message: 0, recipient: 0, subscription: 0, request: 0 }, daily: { day: '', bySender: {} } };
}

function definedOnly(options: StoreOptions): Partial<typeof DEFAULTS> {
  const out: Partial<typeof DEFAULTS> = {};
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) if (options[key] !== undefined) out[key] = options[key];
  return out;
}

/**
 * A file of `size` bytes kept so that, on a full disk, a deletion can still write what it
 * needs (a tombstone, meta.json): it is given up then, and made again once there is room.
 */
class Reserve {
  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly fs: Fs,
  ) {}

  /** Whether the reserve was given up (or could not be made) and should be made again. */
  missing = true;
  private making: Promise<void> | null = null;

  ensure(): Promise<void> {
    this.making ??= this.make().finally(() => (this.making = null));
    return this.making;
  }

  private async make(): Promise<void> {
    if (this.size === 0) {
      this.missing = false;
      return;
    }
    const present = await this.fs.stat(this.file).catch(() => null);
    if (present && present.size === this.size) {
      this.missing = false;
      return;
    }
    try {
      await this.fs.writeFile(this.file, Buffer.alloc(this.size));
      this.missing = false;
    } catch {
      await this.fs.unlink(this.file).catch(() => undefined);
    }
  }

  /** Gives the space up; false when there was none to give. */
  async release(): Promise<boolean> {
    const present = await this.fs.stat(this.file).catch(() => null);
    if (!present) return false;
    await this.fs.unlink(this.file);
    this.missing = true;
    return true;
  }
}

/** Remembers the folders' identities, to notice one removed (and maybe made again) under us. */
class FolderWatch {
  private known = new Map<string, string>();

  constructor(
    private readonly fs: Fs,
    private readonly dirs: string[],
  ) {}

  async remember(): Promise<void> {
    this.known.clear();
    for (const dir of this.dirs) {
      const s = await this.fs.stat(dir);
      if (s) this.known.set(dir, `${s.dev}:${s.ino}`);
    }
  }

  /** Whether a folder known was removed or replaced (one never made, on a read-only start, is not). */
  async changed(): Promise<boolean> {
    for (const dir of this.dirs) {
      const s = await this.fs.stat(dir);
      const known = this.known.get(dir);
      if (!s && known === undefined) continue;
      if (!s || known !== `${s.dev}:${s.ino}`) return true;
    }
    return false;
  }

  /** Makes the folders a read-only start could not (once it can write). */
  async makeMissing(): Promise<void> {
    for (const dir of this.dirs) {
      if (this.known.has(dir)) continue;
      await this.fs.mkdir(dir);
      const s = await this.fs.stat(dir);
      if (s) this.known.set(dir, `${s.dev}:${s.ino}`);
    }
  }
}

/** A small write and delete: whether the data directory takes writes again. */
async function probeWrite(fs: Fs, dataDir: string): Promise<void> {
  const file = path.join(dataDir, '.probe');
  try {
    await fs.writeFile(file, Buffer.alloc(64 * 1024));
  } finally {
    await fs.unlink(file).catch(() => undefined);
  }
}

async function diskUsage(fs: Fs, dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  const walk = async (target: string): Promise<void> => {
    const s = await lstat(target).catch(() => null);
    if (!s) return;
    bytes += s.blocks * 512;
    if (!s.isDirectory()) {
      files++;
      return;
    }
    for (const name of await fs.readdir(target)) await walk(path.join(target, name));
  };
  await walk(dir);
  return { bytes, files };
}

/**
 * One line when start-up read segment files in full rather than their checkpoints (why, and how
 * long start-up took), so a slow start explains itself. A data directory without captures says nothing.
 */
function logCheckpointUse(log: (line: string) => void, uses: CheckpointUse[], packs: { restored: number; scanned: number }, ms: number): void {
  const segments = { restored: 0, missing: 0, old: 0, damaged: 0 };
  for (const use of uses) {
    segments.restored += use.restored;
    segments.missing += use.missing;
    segments.old += use.old;
    segments.damaged += use.damaged;
  }
  const read = segments.missing + segments.old + segments.damaged;
  if (read === 0) return;
  const why = [
    segments.missing > 0 ? `${segments.missing} without one` : '',
    segments.old > 0 ? `${segments.old} changed after it` : '',
    segments.damaged > 0 ? `${segments.damaged} with a damaged one, ignored` : '',
  ].filter(Boolean);
  log(
    `pigeonhole: loaded captures and recipients in ${ms} ms: ${segments.restored} segment file${segments.restored === 1 ? '' : 's'} from their checkpoint, ${read} read in full (${why.join(', ')}); ${packs.restored} pack${packs.restored === 1 ? '' : 's'} from the checkpoint, ${packs.scanned} scanned`,
  );
}
