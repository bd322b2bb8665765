import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { type StorageError, storageError } from './errors.ts';
import type { Flusher, FlusherHooks } from './disk/flusher.ts';
import type { Fs } from './disk/fs.ts';
import type { StorageHealth } from './disk/health.ts';
import type { OpenedFiles } from './open-files.ts';
import { nextTurn, pacedTurn } from './indexes/rows.ts';
import type { Reserve } from './reserve.ts';
import type { CheckpointRuns } from './store.ts';

/**
 * The restore step of openStore (open-store.ts), and the rest of what keeps an open store written:
 * every half second the folders are checked (someone may have removed the data directory to
 * clear the sandbox: it is written back, nothing acknowledged is lost) and, while a write
 * failed, a write is tried again, so the store heals itself once space is freed or the file
 * system is writable again; checkpoints are written in the background.
 */
export class Upkeep {
  private readonly watched: FolderWatch;
  private closed = false;
  private ticks = 0;
  /** The probe under way, which a close waits for (it may be writing a probe file or the reserve). */
  private probing: Promise<void> | null = null;
  private checkpointing: Promise<number> | null = null;
  /** The background checkpoint runs that tried a segment or wrote a file (the metrics read it). */
  readonly checkpointRuns: CheckpointRuns = { runs: 0, written: 0, lastStartedAt: 0, lastFinishedAt: 0 };
  private lazyTimer: NodeJS.Timeout | null = null;
  private timers: NodeJS.Timeout[] = [];
  private flusher!: Flusher;
  private logFlusher!: Flusher;

  constructor(
    private readonly files: OpenedFiles,
    private readonly health: StorageHealth,
    private readonly reserve: Reserve,
  ) {
    this.watched = new FolderWatch(files.fs, [files.dataDir, ...Object.values(files.dirs)]);
  }

  /** What the group commit does when a batch fails or succeeds. */
  readonly hooks: FlusherHooks = {
    failed: async (error: StorageError, batch: { deletes: boolean }): Promise<boolean> => {
      // A deletion on a full disk may use the reserve: deleting is how a user frees space.
      if (error.problem === 'full' && batch.deletes && (await this.reserve.release())) return true;
      // A folder removed under the server: made again (and written back), then the write again.
      if (error.problem === 'missing' && !this.closed && (await this.watched.changed().catch(() => false))) {
        await this.restoreFolders();
        return true;
      }
      this.health.failed(error);
      return false;
    },
    succeeded: (): void => {
      if (this.health.problem) this.health.recovered();
      if (this.reserve.missing) void this.reserve.ensure().catch(() => undefined);
      const { meta } = this.files;
      if (meta.lazyPending && this.lazyTimer === null) {
        this.lazyTimer = setTimeout(() => {
          this.lazyTimer = null;
          meta.force();
          void this.flusher.flush().catch(() => undefined);
        }, 1000);
        this.lazyTimer.unref();
      }
    },
  };

  /** Starts the probe and the background checkpoints over the store's two group commits. */
  async start(flusher: Flusher, logFlusher: Flusher): Promise<void> {
    this.flusher = flusher;
    this.logFlusher = logFlusher;
    await this.watched.remember();
    const { probeIntervalMs, checkpointIntervalMs, checkpointQuietMs } = this.files.settings;
    this.timers = [
      setInterval(() => void this.probe(), probeIntervalMs),
      // Paced while the store serves sends; a run still going when the store stops finishes unpaced (a stop waits for it).
      setInterval(() => void this.saveCheckpoints(checkpointQuietMs, 8, () => (this.closed ? nextTurn() : pacedTurn())), checkpointIntervalMs),
    ];
    for (const timer of this.timers) timer.unref();
  }

  /** Every segment's and the packs' checkpoint now, as a clean stop writes them; how many files. */
  async checkpointNow(): Promise<number> {
    await this.checkpointing;
    // With the pack being appended to as well (PackStore.saveCheckpoint): a clean stop's.
    return this.saveCheckpoints(0, Number.POSITIVE_INFINITY, nextTurn, true);
  }

  /** Stops the timers and waits for the probe under way. */
  async stop(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearInterval(timer);
    if (this.lazyTimer) clearTimeout(this.lazyTimer);
    await this.probing;
  }

  private probe(): Promise<void> {
    if (this.closed || this.probing) return this.probing ?? Promise.resolve();
    this.probing = this.probeOnce().finally(() => {
      this.probing = null;
    });
    return this.probing;
  }

  private async probeOnce(): Promise<void> {
    const { fs, dataDir, packs, messageLog } = this.files;
    try {
      this.ticks++;
      const lost = (await this.watched.changed()) || (this.ticks % 10 === 0 && ((await packs.lostFiles()) || (await messageLog.lostFiles())));
      if (lost) await this.flusher.exclusive(() => this.restoreFolders()).then(() => this.flusher.flush());
      if (this.health.problem) {
        await probeWrite(fs, dataDir);
        await this.watched.makeMissing();
        await this.reserve.ensure();
        await this.flusher.flush();
        await this.logFlusher.flush();
        this.health.recovered();
      }
    } catch (error) {
      if (!this.health.problem) this.health.failed(storageError(error, dataDir));
    }
  }

  /**
   * Checkpoints (storage/checkpoint.ts): of the segments that changed and have been quiet a
   * while, and of the packs, in the background; of everything at a clean stop. Never while the
   * disk refuses writes; a checkpoint that cannot be written only makes the next start slower.
   */
  private saveCheckpoints(quietMs: number, limit: number, pause: () => Promise<void>, withActive = false): Promise<number> {
    const { messageLog, recipients, requestLog, packs } = this.files;
    this.checkpointing ??= (async () => {
      let written = 0;
      let tried = 0;
      const startedAt = Date.now();
      try {
        if (this.health.problem) return 0;
        for (const segmentLog of [messageLog, recipients.storage, requestLog]) {
          for (const segment of segmentLog.staleCheckpoints(quietMs).slice(0, limit)) {
            tried++;
            if (await segmentLog.saveCheckpoint(segment, (task) => this.flusher.exclusive(task), pause)) written++;
          }
        }
        if (await packs.saveCheckpoint(withActive)) written++;
      } catch {
        // The disk refused it: the files stay the record, read at the next start.
      } finally {
        this.checkpointing = null;
        if (tried > 0 || written > 0) {
          const runs = this.checkpointRuns;
          runs.runs++;
          runs.written += written;
          runs.lastStartedAt = startedAt;
          runs.lastFinishedAt = Date.now();
        }
      }
      return written;
    })();
    return this.checkpointing;
  }

  /** Makes the folders again and writes back every file from the copy still open, and the rest from memory. */
  private async restoreFolders(): Promise<void> {
    const { fs, dataDir, dirs, packs, messageLog, recipients, subscriptions, requestLog, meta, blocks, workbench, log } = this.files;
    for (const dir of [dataDir, ...Object.values(dirs)]) await fs.mkdir(dir);
    let files = await packs.restore();
    for (const segmentLog of [messageLog, recipients.storage, subscriptions.storage, requestLog]) files += await segmentLog.restore();
    meta.touch();
    blocks.touch();
    workbench.touch();
    this.reserve.missing = true;
    void this.reserve.ensure();
    await this.watched.remember();
    log(
      `pigeonhole: the data directory ${dataDir} (or a folder in it) was removed while the server ran; recreated it and wrote back ${files} file${files === 1 ? '' : 's'} from the files still open, and the rest from memory`,
    );
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

/** Bytes the data directory takes on disk (allocated blocks) and how many files it holds. */
export async function diskUsage(fs: Fs, dir: string): Promise<{ bytes: number; files: number }> {
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
