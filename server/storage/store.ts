import type { CaptureStore } from './capture-store.ts';
import type { Collection } from './segments/collection.ts';
import type { StorageHealth } from './disk/health.ts';
import type { DamageReport } from './disk/quarantine.ts';
import type { RecipientStore } from './indexes/recipient-store.ts';
import type { SubscriptionRecord } from './records.ts';
import type { BlocksRepository, ClockOffset, DailyCounts, IdCounters, RequestLogStore, WorkbenchStore } from './repositories.ts';

export type { RecipientStore } from './indexes/recipient-store.ts';
export type { BlocksRepository } from './repositories.ts';

/**
 * The store as the layers above storage see it: its public face (docs/architecture.md,
 * "Storage"). `openStore` (open-store.ts) makes one; the composition root hands it to the domain.
 */

/** A unit of work's options: how it is written, and how memory is put back if it cannot be. */
export interface UpdateOptions {
  /** Part of a deletion, which may use the reserve on a full disk. */
  freesSpace?: boolean;
  /** The write waits for the rest of this turn of the event loop, and what it brings shares it (captures). */
  gather?: boolean;
  /**
   * Puts memory back as it was before the change, when the change throws or its write fails
   * (the change is then never reported saved: the update rejects with the error).
   */
  undo?: () => void;
}

/**
 * The store as the layers above it see it (docs/architecture.md, "Storage"): repositories, each
 * change to which queues its own write, and one way to put changes on disk, `update`.
 */
/** Counts of the checkpoint runs, and when the last one began and ended (Unix ms; 0: none yet). */
export interface CheckpointRuns {
  runs: number;
  written: number;
  lastStartedAt: number;
  lastFinishedAt: number;
}

export interface Store {
  readonly dataDir: string;
  /** The captures: add, read, remove and clear, with their parts (capture-store.ts). */
  readonly captures: CaptureStore;
  readonly recipients: RecipientStore;
  readonly subscriptions: Collection<SubscriptionRecord>;
  /** The blocked recipients as stored (blocks.json). */
  readonly blocked: BlocksRepository;
  readonly daily: DailyCounts;
  readonly clockOffset: ClockOffset;
  readonly ids: IdCounters;
  /** The /v1 request log: bounded by the domain, with its own group commit. */
  readonly requests: RequestLogStore;
  readonly workbench: WorkbenchStore;
  readonly health: StorageHealth;
  /** What start-up found damaged and set aside in `<data>/damaged/`. */
  readonly damage: readonly DamageReport[];
  /**
   * One unit of work, as lowdb's `db.update(fn)`: applies `change` (synchronous, in memory: the
   * repositories queue what it changes) and resolves with its result once the change is on disk,
   * in the group commit it shares with whatever else is queued. A change that throws, or whose
   * write fails, runs `undo` (when given) and rejects with that error, so a change is reported
   * saved only once it is.
   */
  update<T>(change: () => T, options?: UpdateOptions): Promise<T>;
  /** Runs `task` with no write under way (compaction). */
  exclusive<T>(task: () => Promise<T>): Promise<T>;
  /**
   * Writes the checkpoint of every segment that changed since its last one (and of the packs)
   * now, as a clean stop does; resolves with how many files it wrote.
   */
  checkpoint(): Promise<number>;
  /** The checkpoint runs so far (background and on demand), for /metrics. */
  checkpointRuns(): Readonly<CheckpointRuns>;
  /** Bytes the data directory takes on disk (allocated blocks) and how many files it holds. */
  diskUsage(): Promise<{ bytes: number; files: number }>;
  /** Writes everything queued (a failure is logged with what stayed unsaved), then closes the files. */
  close(): Promise<void>;
}
