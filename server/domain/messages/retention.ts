import { StorageError } from '../errors.ts';
import type { Clock } from '../time/clock.ts';
import type { Events } from '../events.ts';
import type { Messages } from './messages.ts';

export interface RetentionOptions {
  messages: Messages;
  events: Events;
  clock: Clock;
  /** Captures kept at most; 0 keeps any number. */
  maxMessages: number;
  /** Captures older than this on the sandbox clock are pruned; 0 keeps any age. */
  maxAgeMs: number;
  /** Captures deleted per step; between steps other work (requests) runs. */
  batchSize?: number;
  /** After a capture takes the inbox over its cap, how long to wait for the burst to end. */
  burstDelayMs?: number;
  /** How often the age limit is checked (and the count, whatever happened). */
  intervalMs?: number;
  /**
   * After captures were pruned: removes the recipients untouched since the oldest capture
   * kept (Sandbox.pruneRecipients), so they stay bounded too.
   */
  pruneRecipients?: () => Promise<number>;
}

export interface Retention {
  /** Prunes now, in batches, and resolves with how many captures were deleted. */
  prune(): Promise<number>;
  /** Stops the timers and waits for a prune under way to finish its batch. */
  close(): Promise<void>;
}

/**
 * Keeps the inbox bounded (docs/storage.md): at most `maxMessages` captures and none older
 * than `maxAgeMs`, oldest deleted first, through `Messages.remove` (records and files). Pruning
 * runs at start-up, shortly after a burst of captures takes the inbox over its cap, and on a
 * timer for the age limit. It deletes `batchSize` captures per step and yields between steps,
 * so a request never waits behind more than one small batch.
 */
export function startRetention(options: RetentionOptions): Retention {
  const { messages, events, clock, maxMessages, maxAgeMs } = options;
  const batchSize = options.batchSize ?? 256;
  const burstDelayMs = options.burstDelayMs ?? 250;
  const enabled = maxMessages > 0 || maxAgeMs > 0;
  let closed = false;
  let running: Promise<number> | null = null;
  let burstTimer: NodeJS.Timeout | null = null;

  /** The oldest captures over the limits, at most one batch. */
  const nextBatch = (): number[] => {
    const excess = maxMessages > 0 ? messages.count() - maxMessages : 0;
    const seqs = new Set(excess > 0 ? messages.oldest(Math.min(excess, batchSize)) : []);
    if (maxAgeMs > 0 && seqs.size < batchSize) {
      // Creation times follow seq order only while the clock moves forward, so every capture is
      // looked at (a comparison each in the index: cheap next to one deletion).
      const cutoff = new Date(clock.now().getTime() - maxAgeMs);
      for (const seq of messages.oldest(batchSize, cutoff)) {
        if (seqs.size >= batchSize) break;
        seqs.add(seq);
      }
    }
    return [...seqs];
  };

  /** Whether the pass under way deletes everything over the limits (else: see `run`). */
  let thorough = false;

  /**
   * Deletes batch after batch. A pass started by a burst stops at the first batch after its
   * first that is not full: under a sustained load, the few captures that arrived during the
   * last batch wait for the next pass (one burst delay later) rather than being deleted a
   * handful at a time, each handful paying a deletion's whole fixed cost (a group commit that
   * writes meta.json, a second one for the packs, an event). At the default cap, with eight SMTP
   * connections, a pass that ran on deleted about 15 captures per batch (bench/README.md).
   */
  const run = async (): Promise<number> => {
    let deleted = 0;
    while (!closed) {
      const batch = nextBatch();
      if (batch.length === 0) break;
      if (!thorough && deleted > 0 && batch.length < batchSize) {
        afterBurst();
        break;
      }
      deleted += (await messages.remove(batch)).length;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    if (deleted > 0 && !closed) await options.pruneRecipients?.();
    return deleted;
  };

  const pass = (thoroughly: boolean): Promise<number> => {
    if (!enabled || closed) return Promise.resolve(0);
    if (thoroughly) thorough = true;
    running ??= run().finally(() => {
      running = null;
      thorough = false;
    });
    return running;
  };
  const prune = (): Promise<number> => pass(true);

  /** Prunes what is over the cap once the burst delay has passed (after the pass under way, if any). */
  const afterBurst = () => {
    if (burstTimer !== null) return;
    burstTimer = setTimeout(() => {
      burstTimer = null;
      // A pass under way may stop short of the cap: this one follows it rather than joining it.
      const under = running?.catch(() => undefined) ?? Promise.resolve();
      void under.then(() => pass(false)).catch(logFailure);
    }, burstDelayMs);
    burstTimer.unref();
  };

  const onCreated = () => {
    if (maxMessages === 0 || messages.count() <= maxMessages) return;
    afterBurst();
  };
  events.on('message.created', onCreated);
  // Moving the sandbox clock ages every capture at once: apply --max-age now, not within a minute.
  const onClock = () => void prune().catch(logFailure);
  if (maxAgeMs > 0) events.on('clock.changed', onClock);

  const interval = enabled ? setInterval(() => void prune().catch(logFailure), options.intervalMs ?? 60_000) : null;
  interval?.unref();
  void prune().catch(logFailure);

  return {
    prune,
    async close() {
      closed = true;
      events.off('message.created', onCreated);
      events.off('clock.changed', onClock);
      if (burstTimer) clearTimeout(burstTimer);
      if (interval) clearInterval(interval);
      await running?.catch(() => undefined);
    },
  };
}

function logFailure(error: unknown): void {
  // A store that cannot write (read-only, full) logs that once itself; pruning tries again later.
  if (error instanceof StorageError) return;
  console.error('pigeonhole: pruning old captures failed', error);
}
