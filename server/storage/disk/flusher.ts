import { setImmediate } from 'node:timers';
import { storageError, type StorageError } from '../errors.ts';

/** One participant's share of a group commit. */
export interface Batch {
  /** The folder or file it writes, named in errors. */
  readonly path: string;
  /** Whether it deletes (frees space): such a batch may use the reserve on a full disk. */
  readonly deletes?: boolean;
  /**
   * Whether files will be unlinked once it is written (a tombstone is a deletion, but a file
   * that still holds lines names the ids it held, so only an unlink needs the counters saved).
   */
  readonly unlinks?: boolean;
  /** Writes everything; returns the files written. */
  write(): Promise<unknown>;
  /**
   * Deletes files nothing lives in any more; runs once every write of the cycle is committed.
   * A file it could not delete is tried again with the next cycle.
   */
  unlink?(): Promise<void>;
  /** Undoes what write() put on disk (a later part of the batch failed). */
  revert(): Promise<void>;
  /** The batch is on disk: what was written is where reads find it now. */
  commit(): void;
  /** The batch failed: state to be written again goes back in the queue; new records are dropped. */
  abort(): void;
}

export interface Participant {
  /** Takes what is queued into a batch (null: nothing to write). `unlinking`: an earlier part unlinks files. */
  begin(context: { unlinking: boolean }): Batch | null;
}

export interface FlusherHooks {
  /**
   * A batch failed. Resolves true when the cause was dealt with and the batch should be tried
   * once more (the reserve file was given up to let a deletion through on a full disk).
   */
  failed(error: StorageError, batch: { deletes: boolean }): Promise<boolean>;
  succeeded(): void;
}

/**
 * Group commit. Changes are made in memory and queued with their participant; `flush()`
 * resolves once a write that started after the call has put everything queued on disk, in one
 * write per file (packs first, then the segments that point into them, then the small files),
 * then deletions. Requests that arrive while a write runs (or, with `gather`, in the same turn
 * of the event loop) share the next one. A failed batch
 * is undone (files truncated back) and rejected for every caller with a StorageError.
 */
export class Flusher {
  private queued: Promise<void> | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  /** The queued cycle frees space (a deletion): on a full disk it may use the reserve. */
  private freeing = false;

  constructor(
    private readonly participants: Participant[],
    private readonly hooks: FlusherHooks,
  ) {}

  /**
   * `freesSpace`: this write is part of a deletion (on a full disk, it may use the reserve).
   * `gather`: the write starts once the event loop has taken in the rest of this turn's
   * arrivals, so that they share it (every capture: see Messages.ingest).
   */
  flush(options: { freesSpace?: boolean; gather?: boolean } = {}): Promise<void> {
    if (options.freesSpace) this.freeing = true;
    if (this.queued) return this.queued;
    const run = this.serial(async () => {
      // node:timers' own, not the global: a test suite that runs Pigeonhole in its process
      // (startPigeonhole) and fakes the global timers must not hold every capture's write.
      if (options.gather) await new Promise((resolve) => setImmediate(resolve));
      if (this.queued === run) this.queued = null;
      const freeing = this.freeing;
      this.freeing = false;
      await this.cycle(freeing);
    });
    this.queued = run;
    return run;
  }

  /** Runs `task` with no write under way and none starting until it is done (compaction). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    return this.serial(task);
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task, task);
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async cycle(freeing = false): Promise<void> {
    const batches: Batch[] = [];
    let deleting = freeing;
    let unlinking = false;
    for (const participant of this.participants) {
      const batch = participant.begin({ unlinking });
      if (!batch) continue;
      batches.push(batch);
      if (batch.deletes) deleting = true;
      if (batch.unlinks) unlinking = true;
    }
    if (batches.length === 0) return;
    for (let attempt = 0; ; attempt++) {
      const written: Batch[] = [];
      let current: Batch | undefined;
      try {
        // In order: the packs before the records that point into them, so a record on disk
        // never names bytes that are not (a crash can come between any two writes). Small
        // writes are synchronous (fs.ts), so the order costs no waiting.
        for (const batch of batches) {
          current = batch;
          await batch.write();
          written.push(batch);
        }
        break;
      } catch (cause) {
        const error = storageError(cause, current?.path ?? '');
        for (const batch of written.reverse()) await batch.revert().catch(() => undefined);
        if (attempt === 0 && (await this.hooks.failed(error, { deletes: deleting }))) continue;
        for (const batch of batches) batch.abort();
        throw error;
      }
    }
    for (const batch of batches) batch.commit();
    for (const batch of batches) {
      try {
        await batch.unlink?.();
      } catch (cause) {
        // What was written stays written; a deletion the caller waits for is not done.
        const error = storageError(cause, batch.path);
        await this.hooks.failed(error, { deletes: false });
        throw error;
      }
    }
    this.hooks.succeeded();
  }
}
