import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Batch } from '../disk/flusher.ts';
import { type Fs, syncDir } from '../disk/fs.ts';
import type { Pack } from './pack-file.ts';

/** What a group commit's batch needs of the pack store (pack-store.ts): where, how, and what to tell it. */
export interface PackHost {
  readonly dir: string;
  readonly writeOptions: { fs: Fs; fsync: boolean };
  /** Opens a pack's file for writing (created when it is not there yet). */
  reopen(pack: Pack): Promise<void>;
  /** Stops appending to pack `no`: new parts go to a new pack. */
  seal(no: number): void;
  /** A dead, sealed pack whose file is deleted. */
  dropPack(pack: Pack): void;
  /** A file of its own to delete with the next write. */
  release(ref: { f: string; n: number }): void;
  /** The write of `pack` is on disk. */
  saved(pack: Pack, position: number, buffers: Buffer[], bytes: number): void;
  /** The write of `pack` failed: its bytes go back to the front of the queue. */
  requeue(pack: Pack, buffers: Buffer[], bytes: number, liveBytes: number): void;
}

/** One group commit's share of the packs: appends, large parts' files to sync, files and packs to delete. */
export class PackBatch implements Batch {
  private written: { pack: Pack; position: number }[] = [];

  constructor(
    private readonly store: PackHost,
    private readonly writes: { pack: Pack; buffers: Buffer[]; bytes: number; liveBytes: number; position: number }[],
    private readonly files: { name: string; volatile: boolean }[],
    private readonly doomedFiles: string[],
    private readonly dead: Pack[],
  ) {}

  get deletes(): boolean {
    return this.dead.length > 0 || this.doomedFiles.length > 0;
  }

  get unlinks(): boolean {
    return this.deletes;
  }

  get path(): string {
    return this.store.dir;
  }

  async write(): Promise<FileHandle[]> {
    const { fsync } = this.store.writeOptions;
    const handles: FileHandle[] = [];
    this.written = [];
    if (fsync && this.files.length > 0) {
      for (const file of this.files) {
        const handle = await this.store.writeOptions.fs.open(path.join(this.store.dir, file.name), 'r');
        await handle.sync().finally(() => handle.close());
      }
    }
    for (const { pack, buffers, position } of this.writes) {
      const created = pack.handle === null;
      await this.store.reopen(pack);
      this.written.push({ pack, position });
      await this.store.writeOptions.fs.writeAt(pack.handle!, buffers, position);
      if (fsync) {
        await pack.handle!.datasync();
        if (created) await syncDir(this.store.writeOptions.fs, this.store.dir);
      }
      handles.push(pack.handle!);
    }
    if (fsync && this.files.length > 0) await syncDir(this.store.writeOptions.fs, this.store.dir);
    return handles;
  }

  async unlink(): Promise<void> {
    const { fs } = this.store.writeOptions;
    for (const pack of this.dead) {
      if (pack.live > 0 || pack.queuedBytes > 0 || pack.inflightBytes > 0) continue;
      // Out of service before the first await: the pack may be the one being appended to (dead
      // when every capture in it was deleted), and a send arriving while its file is deleted
      // would add its parts to it, to be dropped with it: answered 200, never written, its
      // capture reading as 'the pack holding this part is missing'. Sealed, it takes no new
      // part (only the active pack does), so it stays dead until it is dropped.
      this.store.seal(pack.no);
      await fs.unlink(pack.file).catch(ignoreMissing);
      await pack.handle?.close().catch(() => undefined);
      pack.handle = null;
      this.store.dropPack(pack);
    }
    for (const [at, name] of this.doomedFiles.entries()) {
      try {
        await fs.unlink(path.join(this.store.dir, name)).catch(ignoreMissing);
      } catch (error) {
        for (const rest of this.doomedFiles.slice(at)) this.store.release({ f: rest, n: 0 });
        throw error;
      }
    }
  }

  async revert(): Promise<void> {
    for (const { pack, position } of this.written.reverse()) await pack.handle?.truncate(position).catch(() => undefined);
  }

  commit(): void {
    for (const { pack, buffers, bytes, position } of this.writes) this.store.saved(pack, position, buffers, bytes);
  }

  abort(): void {
    for (const { pack, buffers, bytes, liveBytes } of this.writes) this.store.requeue(pack, buffers, bytes, liveBytes);
    const { fs } = this.store.writeOptions;
    for (const file of this.files) if (file.volatile) void fs.unlink(path.join(this.store.dir, file.name)).catch(() => undefined);
    // Files to delete are tried again with the next write.
    for (const name of this.doomedFiles) this.store.release({ f: name, n: 0 });
  }
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== 'ENOENT') throw error;
}
