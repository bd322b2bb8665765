import path from 'node:path';
import { Collection } from '../segments/collection.ts';
import { Flusher } from '../disk/flusher.ts';
import type { Fs } from '../disk/fs.ts';
import { JsonFile } from '../disk/json-file.ts';
import { PackStore, PART, type ContentRef } from '../packs/pack-store.ts';
import type { Quarantine } from '../disk/quarantine.ts';
import type { AttachmentRecord, MessageContent, MessageRecord, MetaData } from '../records.ts';
import { SegmentLog } from '../segments/segment-log.ts';
import { requestLogSegmentSize } from '../segments/segment-size.ts';

/** The folders of a data directory. */
export interface DataDirs {
  packs: string;
  messages: string;
  recipients: string;
  subscriptions: string;
  requests: string;
}

const V1_SEGMENT = /^\d{6}\.json$/;
const COLLECTIONS = ['messages', 'recipients', 'subscriptions', 'requests'] as const;

/** Whether the data directory was written by Pigeonhole 0.1 (bodies as files under blobs/). */
export async function isV1(dataDir: string, fs: Fs): Promise<boolean> {
  const meta = await fs.readFile(path.join(dataDir, 'meta.json')).catch(() => null);
  if (meta !== null) {
    try {
      const version = (JSON.parse(meta.toString('utf8')) as { version?: number }).version;
      if (version === 2) {
        await removeLeftovers(dataDir, fs);
        return false;
      }
      return true;
    } catch {
      // A meta.json that does not parse is set aside when it is opened; look at the folders.
    }
  }
  if ((await fs.stat(path.join(dataDir, 'blobs')))?.isDirectory) return true;
  return (await fs.readdir(path.join(dataDir, 'messages'))).some((name) => V1_SEGMENT.test(name));
}

/**
 * Moves a 0.1 data directory to the pack store: every record into segment logs, every body,
 * attachment and .eml into packs (an .eml keeps its exact bytes), then meta.json says version
 * 2 and the old files go. Interrupted, it starts over on the next start: until meta.json says
 * 2, the old files are the data.
 */
export async function migrateFromV1(options: {
  dataDir: string;
  dirs: DataDirs;
  fs: Fs;
  log: (line: string) => void;
  quarantine: Quarantine;
  segmentSize: number;
  packSize: number;
  largePartSize: number;
}): Promise<void> {
  const { dataDir, dirs, fs, log, quarantine } = options;
  log(`pigeonhole: ${dataDir} was written by an older version: moving it to the pack store (once)`);
  // What an interrupted migration left is not data yet.
  await fs.rm(dirs.packs);
  for (const name of COLLECTIONS) {
    for (const file of await fs.readdir(dirs[name])) if (/^seg-\d+\.json(\.tmp)?$/.test(file)) await fs.unlink(path.join(dirs[name], file));
  }
  const common = { fs, fsync: false, quarantine };
  const packs = await PackStore.open({ dir: dirs.packs, ...common, packSize: options.packSize, largePartSize: options.largePartSize });
  const messages = await SegmentLog.open<MessageRecord>({ dir: dirs.messages, segmentSize: options.segmentSize, ...common }, () => undefined);
  const others = await Promise.all(
    (['recipients', 'subscriptions', 'requests'] as const).map((name) =>
      Collection.open<{ seq: number }>({
        dir: dirs[name],
        segmentSize: name === 'requests' ? requestLogSegmentSize(options.segmentSize) : options.segmentSize,
        ...common,
      }),
    ),
  );
  const flusher = new Flusher([packs, messages, ...others.map((c) => c.storage)], { failed: async () => false, succeeded: () => undefined });
  const blobs = path.join(dataDir, 'blobs');
  let moved = 0;
  for (const name of COLLECTIONS) {
    for (const file of (await fs.readdir(dirs[name])).filter((f) => V1_SEGMENT.test(f)).sort()) {
      const full = path.join(dirs[name], file);
      const bytes = await fs.readFile(full);
      let records: Record<string, unknown>[];
      try {
        records = (JSON.parse(bytes.toString('utf8')) as { records: Record<string, unknown>[] }).records;
      } catch {
        await quarantine.keep(full, bytes, 1, 'a segment of the older layout does not parse');
        continue;
      }
      for (const record of records) {
        if (name === 'messages') {
          messages.put(await convertMessage(record, blobs, fs, packs));
        } else {
          const collection = others[['recipients', 'subscriptions', 'requests'].indexOf(name)]!;
          collection.insert(record as { seq: number });
        }
        moved++;
      }
      await flusher.flush();
    }
  }
  await flusher.flush();
  await Promise.all([packs.close(), messages.close(), ...others.map((c) => c.storage.close())]);
  const meta = await JsonFile.open<MetaData>(
    path.join(dataDir, 'meta.json'),
    { version: 2, counters: { message: 0, recipient: 0, subscription: 0 }, daily: { day: '', bySender: {} } },
    common,
  );
  meta.data = { ...meta.data, version: 2, segmentSize: options.segmentSize };
  meta.touch();
  await new Flusher([meta], { failed: async () => false, succeeded: () => undefined }).flush();
  await removeLeftovers(dataDir, fs);
  log(`pigeonhole: moved ${moved} records to the pack store`);
}

/** The older layout's files, once meta.json says version 2. */
async function removeLeftovers(dataDir: string, fs: Fs): Promise<void> {
  await fs.rm(path.join(dataDir, 'blobs'));
  for (const name of COLLECTIONS) {
    const dir = path.join(dataDir, name);
    for (const file of await fs.readdir(dir)) if (V1_SEGMENT.test(file)) await fs.unlink(path.join(dir, file));
  }
}

/** A 0.1 capture record, with its files read into packs. */
async function convertMessage(old: Record<string, unknown>, blobs: string, fs: Fs, packs: PackStore): Promise<MessageRecord> {
  const seq = old.seq as number;
  const folder = path.join(blobs, String(Math.floor(seq / 1000)).padStart(5, '0'));
  const part = async (name: string, code: number): Promise<ContentRef | undefined> => {
    const data = await fs.readFile(path.join(folder, `${seq}.${name}`)).catch(() => null);
    if (data === null) return undefined;
    return packs.isLarge(data.length) ? packs.addFile(data) : packs.add(seq, code, data);
  };
  const content: MessageContent = {};
  if (old.hasHtml) content.html = await part('body.html', PART.html);
  if (old.hasText) content.text = await part('body.txt', PART.text);
  if (old.encrypted) content.sealed = await part('record.enc', PART.sealed);
  // The .eml the older version built (or the SMTP client sent, under its trace fields) keeps its exact bytes.
  content.eml = await part('message.eml', PART.raw);
  for (const key of Object.keys(content) as (keyof MessageContent)[]) if (content[key] === undefined) delete content[key];
  const attachments: AttachmentRecord[] = [];
  for (const [index, a] of ((old.attachments as (Omit<AttachmentRecord, 'content'> & { blob: string })[] | undefined) ?? []).entries()) {
    const { blob, ...rest } = a;
    const ref = await part(blob, PART.attachment + index);
    attachments.push({ ...rest, content: ref ?? { f: `missing-${seq}-${index}`, n: a.size } });
  }
  const { hasHtml: _html, hasText: _text, ...record } = old;
  return { ...(record as unknown as MessageRecord), content, attachments };
}
