import path from 'node:path';
import type { Fs } from './disk/fs.ts';
import { ImageSection, openImage, writeImage } from './disk/image-file.ts';
import type { MessageIndex } from './indexes/message-index.ts';
import type { RecipientStore } from './indexes/recipient-store.ts';
import type { PackStore } from './packs/pack-store.ts';
import type { MessageRecord } from './records.ts';
import type { SegmentLog } from './segments/segment-log.ts';

/**
 * The start-up image (docs/storage.md, "The start-up image (after a clean stop)"): at a clean stop, once everything
 * is written and checkpointed, the captures' and the recipients' indexes and their segment logs'
 * tables are written whole to one file; the next start reads it straight into the arrays they
 * keep, instead of reading some 500 checkpoints and copying, interning and hashing a million
 * rows. It is used only when every segment file and pack is the one it names, and removed once
 * read: a crash after that start finds none, and starts from the checkpoints as before.
 */

export const IMAGE_FILE = 'index.img';

interface Parts {
  dataDir: string;
  fs: Fs;
  segmentSize: number;
  packs: PackStore;
  index: MessageIndex;
  messageLog: SegmentLog<MessageRecord>;
  recipients: RecipientStore;
}

/**
 * Writes the image (a clean stop, with nothing written since the last flush); false when there
 * was nothing consistent to save (a write under way) or it could not be written: the next start
 * then reads the checkpoints, as after a crash.
 */
export async function saveStartImage({ dataDir, fs, segmentSize, packs, index, messageLog, recipients }: Parts): Promise<boolean> {
  const file = path.join(dataDir, IMAGE_FILE);
  const before = [await messageLog.identities(), await recipients.storage.identities()];
  const [messageFiles, recipientFiles] = before;
  if (!messageFiles || !recipientFiles) return false;
  // One moment, synchronously: the tables, the indexes and the packs' live bytes together.
  const sections = {
    store: new ImageSection(),
    messageLog: new ImageSection(),
    captures: new ImageSection(),
    recipientLog: new ImageSection(),
    recipients: new ImageSection(),
  };
  if (!messageLog.image(messageFiles, sections.messageLog) || !recipients.storage.image(recipientFiles, sections.recipientLog)) return false;
  index.image(sections.captures);
  recipients.image(sections.recipients);
  sections.store.values = { segmentSize, packs: [...packs.liveBytes()].map(([no, live]) => [no, packs.sizeOf(no), live]) };
  try {
    await writeImage(fs, file, sections);
  } catch {
    return false;
  }
  // A change while it was written (none is expected at a stop) would make it describe the past.
  const after = [await messageLog.identities(), await recipients.storage.identities()];
  const same = after.every((files, i) => files !== null && [...files].every(([at, { changes }]) => before[i]!.get(at)?.changes === changes));
  if (!same) await fs.unlink(file).catch(() => undefined);
  return same;
}

/** What start-up takes from an image: each part's section, adopted only where the files match. */
export interface StartImage {
  /** Live bytes per pack, to count once the captures are taken from the image. */
  packs: [number, number][];
  messageLog: ImageSection;
  captures: ImageSection;
  recipientLog: ImageSection;
  recipients: ImageSection;
}

/**
 * The data directory's image, read whole, when its store section matches (segment size, every
 * pack by number and size); null when there is none or it cannot be used. The file is removed
 * either way (the next change would leave it describing the past): a copy is in memory now.
 */
export async function readStartImage(fs: Fs, dataDir: string, segmentSize: number, packs: PackStore): Promise<StartImage | null> {
  const file = path.join(dataDir, IMAGE_FILE);
  // What a stop killed while writing one leaves.
  await fs.unlink(`${file}.tmp`).catch(() => undefined);
  const image = await openImage(fs, file);
  if (!image) {
    await fs.unlink(file).catch(() => undefined);
    return null;
  }
  const store = image.header.sections.store?.values as { segmentSize: number; packs: [number, number, number][] } | undefined;
  const live = packs.liveBytes();
  const usable =
    store !== undefined &&
    store.segmentSize === segmentSize &&
    store.packs.length === live.size &&
    store.packs.every(([no, size]) => live.has(no) && packs.sizeOf(no) === size);
  const sections = usable ? await image.read() : null;
  if (!usable) await image.close();
  await fs.unlink(file).catch(() => undefined);
  if (!sections || !store) return null;
  const { messageLog, captures, recipientLog, recipients } = sections;
  if (!messageLog || !captures || !recipientLog || !recipients) return null;
  return { packs: store.packs.map(([no, , bytes]) => [no, bytes]), messageLog, captures, recipientLog, recipients };
}
