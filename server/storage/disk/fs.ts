import { readSync, writevSync } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * The file operations the store uses, in one seam. The server uses Node's; tests that cannot
 * mount a small file system (not root) wrap it to fail writes the way a full or read-only disk
 * does, and the store cannot tell the difference.
 */
export interface Fs {
  open(file: string, flags: string): Promise<FileHandle>;
  readFile(file: string): Promise<Buffer>;
  writeFile(file: string, data: Uint8Array | string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(file: string): Promise<void>;
  mkdir(dir: string): Promise<void>;
  readdir(dir: string): Promise<string[]>;
  /** A file's size and link count, or null when it does not exist. */
  stat(file: string): Promise<{ size: number; ino: number; dev: number; mtimeMs: number; isDirectory: boolean } | null>;
  rm(target: string): Promise<void>;
  /** Writes all of `buffers` at `position` of an open file. */
  writeAt(handle: FileHandle, buffers: Buffer[], position: number): Promise<void>;
  /** Reads `length` bytes at `position` of an open file (fewer where it ends). */
  readAt(handle: FileHandle, position: number, length: number): Promise<Buffer>;
  /**
   * The same, synchronously: for a small record a caller must have without waiting (a
   * recipient looked up inside a send).
   */
  readAtSync(handle: FileHandle, position: number, length: number): Buffer;
}

/**
 * Writes and reads up to this size are made synchronously. Here an asynchronous file call
 * costs about 50 µs of CPU (the hand-over to the thread pool and back), a synchronous write of a
 * group commit's few KB into the page cache 3-4 µs: the event loop is held for less time than
 * the hand-over takes. Larger ones (an attachment of megabytes) go to the thread pool.
 */
const SYNC_LIMIT = 256 * 1024;

export const nodeFs: Fs = {
  open: (file, flags) => fsp.open(file, flags),
  readFile: (file) => fsp.readFile(file),
  writeFile: (file, data) => fsp.writeFile(file, data),
  rename: (from, to) => fsp.rename(from, to),
  unlink: (file) => fsp.unlink(file),
  mkdir: async (dir) => {
    await fsp.mkdir(dir, { recursive: true });
  },
  readdir: async (dir) => {
    try {
      return await fsp.readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  },
  stat: async (file) => {
    try {
      const s = await fsp.stat(file);
      return { size: s.size, ino: s.ino, dev: s.dev, mtimeMs: s.mtimeMs, isDirectory: s.isDirectory() };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  },
  rm: (target) => fsp.rm(target, { recursive: true, force: true }),
  writeAt: async (handle, buffers, position) => {
    let total = 0;
    for (const buffer of buffers) total += buffer.length;
    if (total > SYNC_LIMIT) {
      await writeAllAt(handle, buffers, position);
      return;
    }
    let written = 0;
    let pending = buffers;
    while (written < total) {
      const n = writevSync(handle.fd, pending, position + written);
      if (n === 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
      written += n;
      if (written < total) pending = remaining(pending, n);
    }
  },
  readAt: async (handle, position, length) => {
    if (length > SYNC_LIMIT) return readAt(handle, position, length);
    return readAtSync(handle, position, length);
  },
  readAtSync: (handle, position, length) => readAtSync(handle, position, length),
};

function readAtSync(handle: FileHandle, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const n = readSync(handle.fd, buffer, read, length - read, position + read);
    if (n === 0) break;
    read += n;
  }
  return read === length ? buffer : buffer.subarray(0, read);
}

/** Writes all of `buffers` at `position` (a short write is continued, never left half done). */
async function writeAllAt(handle: FileHandle, buffers: Buffer[], position: number): Promise<number> {
  let total = 0;
  for (const buffer of buffers) total += buffer.length;
  let written = 0;
  let pending = buffers;
  while (written < total) {
    const { bytesWritten } = await handle.writev(pending, position + written);
    if (bytesWritten === 0) throw Object.assign(new Error('write made no progress'), { code: 'EIO' });
    written += bytesWritten;
    if (written < total) pending = remaining(pending, bytesWritten);
  }
  return total;
}

function remaining(buffers: Buffer[], skip: number): Buffer[] {
  const out: Buffer[] = [];
  for (const buffer of buffers) {
    if (skip >= buffer.length) {
      skip -= buffer.length;
      continue;
    }
    out.push(skip > 0 ? buffer.subarray(skip) : buffer);
    skip = 0;
  }
  return out;
}

/** Reads exactly `length` bytes at `position`, or fewer when the file ends first. */
async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return read === length ? buffer : buffer.subarray(0, read);
}

/** fsync on a folder makes a rename in it durable. */
export async function syncDir(fs: Fs, dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
