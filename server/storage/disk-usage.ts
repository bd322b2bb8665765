import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

export interface DiskUsageOptions {
  dataDir: string;
  /** The folder under blobs/ that holds a capture's files. */
  blobFolderOf: (seq: number) => string;
  /** A figure younger than this is answered from the cache. */
  maxAgeMs?: number;
}

const STAT_BATCH = 64;

/**
 * How many bytes the data directory takes on disk (allocated blocks, as `du` counts them),
 * cheap enough to ask on every metrics scrape. The blob folders hold nearly every file (three
 * or more per capture), so each folder's total is cached and only folders whose captures
 * changed are walked again; the JSON segments and the rest (a few files per 128 records) are
 * walked each time. A figure is reused for `maxAgeMs`, and concurrent askers share one walk.
 */
export class DiskUsage {
  private readonly blobRoot: string;
  private readonly folderBytes = new Map<string, number>();
  private readonly stale = new Set<string>();
  private allStale = true;
  private cached: { bytes: number; at: number } | null = null;
  private running: Promise<number> | null = null;

  constructor(private readonly options: DiskUsageOptions) {
    this.blobRoot = path.join(options.dataDir, 'blobs');
  }

  /** The captures `seqs` were written or deleted; 'all' after clearing everything. */
  changed(seqs: readonly number[] | 'all'): void {
    if (seqs === 'all') this.allStale = true;
    else for (const seq of seqs) this.stale.add(this.options.blobFolderOf(seq));
    this.cached = null;
  }

  bytes(): Promise<number> {
    const maxAge = this.options.maxAgeMs ?? 5000;
    if (this.cached && Date.now() - this.cached.at < maxAge) return Promise.resolve(this.cached.bytes);
    this.running ??= this.measure().finally(() => (this.running = null));
    return this.running;
  }

  private async measure(): Promise<number> {
    const stale = this.allStale ? null : new Set(this.stale);
    this.allStale = false;
    this.stale.clear();
    let total = await blocksOf(this.options.dataDir);
    for (const entry of await entries(this.options.dataDir)) {
      const full = path.join(this.options.dataDir, entry.name);
      if (full !== this.blobRoot || !entry.isDirectory()) total += await walk(full);
      else total += await this.measureBlobs(stale);
    }
    this.cached = { bytes: total, at: Date.now() };
    return total;
  }

  private async measureBlobs(stale: Set<string> | null): Promise<number> {
    let total = await blocksOf(this.blobRoot);
    const present = new Set<string>();
    for (const entry of await entries(this.blobRoot)) {
      const folder = path.join(this.blobRoot, entry.name);
      present.add(folder);
      let bytes = this.folderBytes.get(folder);
      if (bytes === undefined || stale === null || stale.has(folder)) {
        bytes = await walk(folder);
        this.folderBytes.set(folder, bytes);
      }
      total += bytes;
    }
    for (const folder of this.folderBytes.keys()) if (!present.has(folder)) this.folderBytes.delete(folder);
    return total;
  }
}

async function entries(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function blocksOf(file: string): Promise<number> {
  try {
    return (await lstat(file)).blocks * 512;
  } catch (error) {
    // A file deleted between listing and stat (pruning, an upload moved in) takes no space.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** A file's or a folder tree's allocated bytes, stat-ing a bounded number of files at a time. */
async function walk(target: string): Promise<number> {
  let total = await blocksOf(target);
  const list = await entries(target).catch(() => []);
  for (let at = 0; at < list.length; at += STAT_BATCH) {
    const sizes = await Promise.all(
      list.slice(at, at + STAT_BATCH).map((entry) => {
        const full = path.join(target, entry.name);
        return entry.isDirectory() ? walk(full) : blocksOf(full);
      }),
    );
    for (const size of sizes) total += size;
  }
  return total;
}
