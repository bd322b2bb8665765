import type { FileHandle } from 'node:fs/promises';
import type { Fs } from './fs.ts';

/**
 * Files deleted under the running server (the data directory removed, docs/storage.md): the
 * store still holds them open, so what they held is written back under their names.
 */

/** Whether any of these open files has lost its name. */
export async function anyLost(handles: Iterable<FileHandle | null>): Promise<boolean> {
  for (const handle of handles) if (handle && (await handle.stat()).nlink === 0) return true;
  return false;
}

/**
 * Writes the first `size` bytes of the open `handle` back to `file` when the name no longer
 * leads to it; the new handle (open to read and write), or null when the file is still there.
 * The caller swaps it in before closing the old one: a synchronous read may come in between.
 */
export async function writeBack(fs: Fs, file: string, handle: FileHandle, size: number): Promise<FileHandle | null> {
  const present = await fs.stat(file);
  const current = await handle.stat();
  if (present && present.ino === current.ino && current.nlink > 0) return null;
  const content = await fs.readAt(handle, 0, size);
  const written = await fs.open(file, 'w+');
  await fs.writeAt(written, [content], 0);
  return written;
}
