import path from 'node:path';
import { CaptureStore } from './capture-store.ts';
import { StorageError, storageError } from './errors.ts';
import { Flusher } from './disk/flusher.ts';
import { StorageHealth } from './disk/health.ts';
import type { MessageIndex } from './indexes/message-index.ts';
import { openFiles, type StoreOptions } from './open-files.ts';
import type { PackStore } from './packs/pack-store.ts';
import type { MessageRecord } from './records.ts';
import { blocksRepository, clockOffset, dailyCounts, idCounters, RequestLogRepository, workbenchStore } from './repositories.ts';
import { Reserve } from './reserve.ts';
import type { SegmentLog } from './segments/segment-log.ts';
import type { Store, UpdateOptions } from './store.ts';
import { diskUsage, Upkeep } from './store-upkeep.ts';
import { unsavedNote } from './disk/unsaved.ts';
import { saveStartImage } from './start-image.ts';

export type { StoreOptions } from './open-files.ts';

/**
 * What openStore returns: the Store and storage's own parts, for storage's tests and benchmarks.
 * The composition root hands the layers above a `Store`, which has none of them.
 */
export interface OpenStore extends Store {
  readonly packs: PackStore;
  readonly messages: { readonly index: MessageIndex; readonly log: SegmentLog<MessageRecord> };
  /** Resolves once every change queued before the call is on disk (the request log's too). */
  flush(): Promise<void>;
}

/**
 * Opens (creating if needed, migrating an older layout) the data directory and loads it: the
 * open step (open-files.ts), the reserve step (reserve.ts), then the restore step that keeps it
 * written (store-upkeep.ts). One this process may not write (a read-only mount, another owner's
 * folder) opens read-only when it holds a store: what it holds is served, /readyz is not ready
 * and every write is refused until it is writable again (the probe notices). An empty one is
 * refused (DataDirNotWritable).
 */
export async function openStore(options: StoreOptions): Promise<OpenStore> {
  const files = await openFiles(options);
  const { dataDir, fs, log, readOnly, unwritable, meta, blocks, workbench, packs, index, messageLog, recipients, subscriptions, requestLog } = files;
  files.opened();
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
  const reserve = new Reserve(path.join(dataDir, 'reserve'), files.settings.reserveSize, fs);
  await reserve.ensure();

  const upkeep = new Upkeep(files, health, reserve);
  const flusher = new Flusher([packs, messageLog, recipients.storage, subscriptions.storage, meta, blocks, workbench], upkeep.hooks);
  const logFlusher = new Flusher([requestLog], {
    failed: async (error) => {
      health.failed(error);
      return false;
    },
    succeeded: () => undefined,
  });
  await upkeep.start(flusher, logFlusher);

  const unitOfWork = <T>(change: () => T, options?: UpdateOptions) => update(flusher, change, options);
  const captures = new CaptureStore({
    index,
    log: messageLog,
    packs,
    meta,
    update: unitOfWork,
    write: () => flusher.flush(),
    exclusive: (task) => flusher.exclusive(task),
    compactable: [recipients.storage, subscriptions.storage, requestLog],
  });
  const requests = new RequestLogRepository(requestLog, files.requestSummaries, meta, logFlusher);
  let closed = false;

  return {
    dataDir,
    captures,
    recipients,
    subscriptions,
    blocked: blocksRepository(blocks),
    daily: dailyCounts(meta),
    clockOffset: clockOffset(meta),
    ids: idCounters(meta),
    requests,
    workbench: workbenchStore(workbench),
    health,
    damage: files.quarantine.reports,
    packs,
    messages: { index, log: messageLog },
    update: unitOfWork,
    flush: async () => {
      await Promise.all([flusher.flush(), logFlusher.flush()]);
    },
    exclusive: (task) => flusher.exclusive(task),
    checkpoint: () => upkeep.checkpointNow(),
    checkpointRuns: () => upkeep.checkpointRuns,
    diskUsage: () => diskUsage(fs, dataDir),
    async close() {
      if (closed) return;
      closed = true;
      captures.close();
      requests.close();
      await upkeep.stop();
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
          await upkeep.checkpointNow();
          if (!readOnly && files.settings.startImage !== false)
            await saveStartImage({ dataDir, fs, segmentSize: meta.data.segmentSize ?? 0, packs, index, messageLog, recipients });
        }
      } finally {
        await Promise.all([packs.close(), messageLog.close(), recipients.storage.close(), subscriptions.storage.close(), requestLog.close()]);
      }
    },
  };
}

/** Store.update: the change, then the group commit that writes it (or `undo` and the error). */
async function update<T>(flusher: Flusher, change: () => T, { undo, ...options }: UpdateOptions = {}): Promise<T> {
  try {
    const result = change();
    await flusher.flush(options);
    return result;
  } catch (error) {
    undo?.();
    throw error;
  }
}
