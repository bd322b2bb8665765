import path from 'node:path';
import { Collection } from './segments/collection.ts';
import { DataDirNotWritable } from './errors.ts';
import { nodeFs, type Fs } from './disk/fs.ts';
import { JsonFile } from './disk/json-file.ts';
import { MessageIndex } from './indexes/message-index.ts';
import { migrateFromV1, isV1 } from './migrate/migrate-v1.ts';
import { PackStore } from './packs/pack-store.ts';
import { Quarantine } from './disk/quarantine.ts';
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
import { requestLogRows, requestSummary } from './repositories.ts';
import { SegmentLog, type CheckpointUse } from './segments/segment-log.ts';
import { readStartImage } from './start-image.ts';
import { requestLogSegmentSize, SEGMENT_SIZE, segmentSizeOf } from './segments/segment-size.ts';
import { deniesWrites, holdsStore, notWritable } from './disk/writable.ts';

/**
 * The open step of openStore (open-store.ts): the data directory checked (read-only? an older
 * layout, migrated?), then every file read into memory. The restore and reserve steps
 * (store-upkeep.ts, reserve.ts) keep it written once it is open.
 */

const DEFAULTS = {
  segmentSize: SEGMENT_SIZE,
  packSize: 8 * 1024 * 1024,
  largePartSize: 1024 * 1024,
  reserveSize: 256 * 1024,
  probeIntervalMs: 500,
  checkpointIntervalMs: 10_000,
  checkpointQuietMs: 5_000,
  startImage: true,
};

type StoreSettings = typeof DEFAULTS;

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
  /** Whether a clean stop writes a start-up image and the next start uses it (start-image.ts; default true). */
  startImage?: boolean;
}

/** Everything the data directory holds, loaded, and how it may be written. */
export interface OpenedFiles {
  dataDir: string;
  settings: StoreSettings;
  log: (line: string) => void;
  fs: Fs;
  /** Why this process may not write the data directory (opened read-only), or null. */
  readOnly: NodeJS.ErrnoException | null;
  /** Why a probe write failed at start (a full disk, an I/O error), or null. */
  unwritable: NodeJS.ErrnoException | null;
  quarantine: Quarantine;
  /** The data directory's folders. */
  dirs: Record<'packs' | 'messages' | 'recipients' | 'subscriptions' | 'requests' | 'tmp', string>;
  meta: JsonFile<MetaData>;
  blocks: JsonFile<BlocksData>;
  workbench: JsonFile<WorkbenchData>;
  packs: PackStore;
  index: MessageIndex;
  messageLog: SegmentLog<MessageRecord>;
  recipients: RecipientStore;
  subscriptions: Collection<SubscriptionRecord>;
  requestLog: SegmentLog<RequestLogRecord>;
  requestSummaries: RequestSummary[];
  /** Start-up is over: a folder the store lacks must be made from now on (see `fs`). */
  opened(): void;
}

export async function openFiles(options: StoreOptions): Promise<OpenedFiles> {
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
  if (v1) await migrateFromV1({ dataDir, dirs, fs, log, ...pick(settings, 'segmentSize', 'packSize', 'largePartSize'), quarantine });

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
  const started = Date.now();
  let cutShort = 0;
  const rows = {
    save: (lo: number, hi: number, live: readonly number[], pause?: () => Promise<void>) => index.serializeRange(lo, hi, live, pause),
    expect: (count: number) => index.expect(count),
    restore: (data: Buffer) => {
      const restored = index.restoreRange(data, (pack) => packs.sizeOf(pack));
      for (const [pack, bytes] of restored.packs) packs.retainBytes(pack, bytes);
      cutShort += restored.cutShort;
    },
  };
  const image = !settings.startImage ? null : await readStartImage(fs, dataDir, segmentSize, packs);
  let messageLog: SegmentLog<MessageRecord> | undefined;
  let recipients: RecipientStore | undefined;
  try {
    messageLog = await SegmentLog.open<MessageRecord>(
      { ...segmentOptions(dirs.messages), checkpoint: rows },
      (record) => {
        const refs = contentRefs(record);
        // Packs are written before the records that point into them, so this only happens when a
        // power loss (without --fsync) kept a record but not its bytes: the capture stays, and its
        // parts read as damaged.
        if (refs.some((ref) => packs.cutShort(ref))) cutShort++;
        for (const ref of refs) packs.retain(ref);
        index.add(record);
      },
      image?.messageLog,
    );
    if (messageLog.fromImage) {
      index.adopt(image!.captures);
      for (const [no, bytes] of image!.packs) packs.retainBytes(no, bytes);
    }
    recipients = await RecipientStore.open(
      segmentOptions(dirs.recipients),
      options.recipients,
      image ? { log: image.recipientLog, rows: image.recipients } : undefined,
    );
  } catch (error) {
    if (!image) throw error;
    // An image this build cannot take in (another version's): everything opened again without it.
    log(`pigeonhole: the start-up image could not be used (${(error as Error).message}); reading the checkpoints instead`);
    await Promise.allSettled([packs.close(), messageLog?.close(), recipients?.storage.close()]);
    const again = await openFiles({ ...options, startImage: false });
    again.settings.startImage = settings.startImage; // this stop writes one this build can read
    return again;
  }
  if (cutShort > 0)
    log(
      `pigeonhole: ${cutShort} capture${cutShort === 1 ? '' : 's'} point${cutShort === 1 ? 's' : ''} at bytes missing from the end of a pack (a write cut short by a power loss); their parts read as damaged`,
    );
  logCheckpointUse(log, [messageLog.checkpointUse, recipients.storage.checkpointUse], packs.checkpointUse, Date.now() - started);
  const subscriptions = await Collection.open<SubscriptionRecord>(segmentOptions(dirs.subscriptions));
  const requestSummaries: RequestSummary[] = [];
  const requestLog = await SegmentLog.open<RequestLogRecord>(
    { ...segmentOptions(dirs.requests, requestLogSegmentSize(segmentSize)), checkpoint: requestLogRows(requestSummaries) },
    (record) => requestSummaries.push(requestSummary(record)),
  );
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

  return {
    dataDir,
    settings,
    log,
    fs,
    readOnly,
    unwritable,
    quarantine,
    dirs,
    meta,
    blocks,
    workbench,
    packs,
    index,
    messageLog,
    recipients,
    subscriptions,
    requestLog,
    requestSummaries,
    opened: () => {
      opening = false;
    },
  };
}

function freshMeta(): MetaData {
  return { version: 2, counters: { message: 0, recipient: 0, subscription: 0, request: 0 }, daily: { day: '', bySender: {} } };
}

function definedOnly(options: StoreOptions): Partial<StoreSettings> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULTS) as (keyof StoreSettings)[]) if (options[key] !== undefined) out[key] = options[key];
  return out as Partial<StoreSettings>;
}

function pick<T, K extends keyof T>(from: T, ...keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = from[key];
  return out;
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
