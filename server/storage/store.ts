import path from 'node:path';
import type { Low } from 'lowdb';
import { BlobStore } from './blobs.ts';
import { Collection } from './collection.ts';
import { Flusher } from './flusher.ts';
import type { BlocksData, MessageRecord, MetaData, RecipientRecord, RequestLogRecord, SubscriptionRecord } from './records.ts';
import { ensureDir, openJsonFile } from './segment-file.ts';

export interface StoreOptions {
  dataDir: string;
  /**
   * Records per segment file. Small enough that rewriting one is cheap and that its JSON text
   * (about 75 KB for 128 captures) stays a young-generation string V8 frees at once; larger
   * texts go to the large-object space, which grows the process until a full collection.
   */
  segmentSize?: number;
}

export interface Store {
  readonly dataDir: string;
  readonly messages: Collection<MessageRecord>;
  readonly recipients: Collection<RecipientRecord>;
  readonly subscriptions: Collection<SubscriptionRecord>;
  /** The /v1 request log: bounded (oldest entries removed), segmented like the rest. */
  readonly requests: Collection<RequestLogRecord>;
  readonly meta: MetaData;
  readonly blocks: BlocksData;
  readonly blobs: BlobStore;
  touchMeta(): void;
  touchBlocks(): void;
  /** Resolves once every change made before the call is on disk (the request log aside). */
  flush(): Promise<void>;
  /**
   * The request log has its own group commit: it is not accepted data, and a /v1 response
   * must never wait for a log segment to be written.
   */
  flushRequests(): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_SEGMENT_SIZE = 128;

/** Opens (creating if needed) the data directory and loads everything it holds. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const dataDir = path.resolve(options.dataDir);
  const segmentSize = options.segmentSize ?? DEFAULT_SEGMENT_SIZE;
  await ensureDir(dataDir);
  const flusher = new Flusher();
  const logFlusher = new Flusher();
  const [messages, recipients, subscriptions, requests, meta, blocks] = await Promise.all([
    Collection.open<MessageRecord>(path.join(dataDir, 'messages'), segmentSize, flusher),
    Collection.open<RecipientRecord>(path.join(dataDir, 'recipients'), segmentSize, flusher),
    Collection.open<SubscriptionRecord>(path.join(dataDir, 'subscriptions'), segmentSize, flusher),
    Collection.open<RequestLogRecord>(path.join(dataDir, 'requests'), segmentSize, logFlusher),
    readFile<MetaData>(path.join(dataDir, 'meta.json'), {
      version: 1,
      counters: { message: 0, recipient: 0, subscription: 0 },
      daily: { day: '', bySender: {} },
    }),
    readFile<BlocksData>(path.join(dataDir, 'blocks.json'), { blocks: [] }),
  ]);
  // A crash between writing a segment and writing meta.json must not let an id repeat:
  // the counters never go below what the segments hold.
  const counters = meta.data.counters;
  counters.message = Math.max(counters.message, messages.maxSeq());
  counters.recipient = Math.max(counters.recipient, recipients.maxSeq());
  counters.subscription = Math.max(counters.subscription, subscriptions.maxSeq());
  counters.request = Math.max(counters.request ?? 0, requests.maxSeq());

  let closed = false;
  return {
    dataDir,
    messages,
    recipients,
    subscriptions,
    requests,
    meta: meta.data,
    blocks: blocks.data,
    blobs: new BlobStore(path.join(dataDir, 'blobs')),
    touchMeta: () => flusher.markDirty(meta),
    touchBlocks: () => flusher.markDirty(blocks),
    flush: () => flusher.flush(),
    flushRequests: () => logFlusher.flush(),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([flusher.flush(), logFlusher.flush()]);
    },
  };
}

async function readFile<T>(file: string, initial: T): Promise<Low<T>> {
  const db = openJsonFile<T>(file, initial);
  await db.read();
  return db;
}
