import { type PackCheckpoint, sameFile } from '../disk/checkpoint.ts';
import type { Fs } from '../disk/fs.ts';
import type { Quarantine } from '../disk/quarantine.ts';
import { checkEntry, ENTRY_HEADER, isEntryHeader, type Pack } from './pack-file.ts';

/** A scanned entry that failed its checks: its bytes and where it was. */
interface BadEntry {
  offset: number;
  length: number;
}

/**
 * Opens a pack at start-up and scans it: every entry's header and checksum. A damaged entry is
 * returned (reads of it fail clearly) and its bytes set aside; a torn tail (a crash mid-append)
 * is cut off. A pack unchanged since its checkpoint (`saved`) is not scanned again:
 * `restored`, with the damaged entries the checkpoint names.
 */
export async function scanPack(
  options: { fs: Fs; quarantine: Quarantine },
  pack: Pack,
  last: boolean,
  saved: PackCheckpoint | undefined,
): Promise<{ restored: boolean; damaged: number[] }> {
  const { fs, quarantine } = options;
  try {
    pack.handle = await fs.open(pack.file, 'r+');
    pack.writable = true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EROFS' && code !== 'EACCES' && code !== 'EPERM') throw error;
    pack.handle = await fs.open(pack.file, 'r');
  }
  const stat = await pack.handle.stat();
  const size = stat.size;
  pack.size = size;
  pack.sealed = !last;
  // Scanned before, unchanged since: what the scan found is in the checkpoint. (The last pack is
  // in it only as a clean stop left it: a write after that changed its size and time.)
  if (saved && sameFile(saved.file, stat)) return { restored: true, damaged: saved.damaged };
  const bad: BadEntry[] = [];
  let at = 0;
  let tornAt: number | null = null;
  const chunkSize = 1 << 20;
  let chunk: Buffer = Buffer.alloc(0);
  let chunkAt = 0;
  const bytesAt = async (offset: number, length: number): Promise<Buffer> => {
    if (offset >= chunkAt && offset + length <= chunkAt + chunk.length) return chunk.subarray(offset - chunkAt, offset - chunkAt + length);
    if (length > chunkSize) return fs.readAt(pack.handle!, offset, length);
    chunk = await fs.readAt(pack.handle!, offset, Math.min(chunkSize, size - offset));
    chunkAt = offset;
    return chunk.subarray(0, Math.min(length, chunk.length));
  };
  while (at < size) {
    const header = await bytesAt(at, ENTRY_HEADER);
    if (!isEntryHeader(header)) {
      tornAt = at;
      break;
    }
    const length = header.readUInt32LE(12);
    if (at + ENTRY_HEADER + length > size) {
      tornAt = at;
      break;
    }
    const entry = await bytesAt(at, ENTRY_HEADER + length);
    if (checkEntry(entry, null, length) !== null) bad.push({ offset: at, length: ENTRY_HEADER + length });
    at += ENTRY_HEADER + length;
  }
  if (bad.length > 0) {
    const bytes = Buffer.concat(await Promise.all(bad.map((b) => fs.readAt(pack.handle!, b.offset, b.length))));
    await quarantine.keep(
      pack.file,
      bytes,
      bad.length,
      `${bad.length} pack entr${bad.length === 1 ? 'y' : 'ies'} failed the checksum (their captures read as damaged)`,
    );
  }
  if (tornAt !== null) {
    // What a write cut short left: nothing in it was acknowledged, so it is only logged.
    if (pack.writable) {
      await pack.handle.truncate(tornAt);
      pack.size = tornAt;
    }
    await quarantine.keep(pack.file, null, 0, `a torn tail of ${size - tornAt} bytes (a write cut short) was cut off`);
  }
  return { restored: false, damaged: bad.map((b) => b.offset) };
}

/**
 * What the packs' checkpoint names of `pack`: its file as it is now and the entries its scan
 * found damaged (`damaged`: the store's `no:offset` keys); null while a write to it is under way.
 */
export async function checkpointEntry(pack: Pack, damaged: ReadonlySet<string>): Promise<PackCheckpoint | null> {
  if (!pack.handle || pack.size === 0 || pack.inflightBytes > 0 || pack.queuedBytes > 0) return null;
  const stat = await pack.handle.stat();
  if (stat.nlink === 0 || stat.size !== pack.size) return null;
  const prefix = `${pack.no}:`;
  const offsets = [...damaged].filter((key) => key.startsWith(prefix)).map((key) => Number(key.slice(prefix.length)));
  return { no: pack.no, file: { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino }, damaged: offsets };
}
