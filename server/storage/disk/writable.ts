import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Fs } from './fs.ts';

/** Codes that say this process may not write the data directory (a read-only mount, permissions). */
const NOT_WRITABLE = new Set(['EROFS', 'EACCES', 'EPERM']);

/** Whether an error code says this process may not write there (rather than, say, a full disk). */
export function deniesWrites(error: NodeJS.ErrnoException): boolean {
  return NOT_WRITABLE.has(error.code ?? '');
}

/**
 * Start-up's check that the data directory takes writes: makes it (if needed), then creates and
 * removes an empty file in it. Resolves null when it can be written, or the error that says why
 * not, with the operation and the path: EROFS, EACCES or EPERM (deniesWrites), or what else the
 * probe file met (a full disk). A folder that cannot be made for another reason is thrown.
 *
 * A recursive mkdir on a read-only mount fails with ENOENT rather than EROFS (Node walks up the
 * path and reports the first error it met), which would read as a missing folder: the nearest
 * folder that exists is asked (access W_OK) what the real reason is.
 */
export async function notWritable(fs: Fs, dataDir: string): Promise<NodeJS.ErrnoException | null> {
  try {
    await fs.mkdir(dataDir);
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (NOT_WRITABLE.has(e.code ?? '')) return e;
    if (e.code !== 'ENOENT') throw error;
    const code = await accessCode(await nearestExisting(fs, dataDir));
    if (code === null || !NOT_WRITABLE.has(code)) throw error;
    return Object.assign(new Error(`${code}: mkdir '${dataDir}'`), { code, syscall: 'mkdir', path: dataDir });
  }
  const probe = path.join(dataDir, '.probe');
  try {
    await fs.writeFile(probe, '');
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    if (typeof e.code !== 'string') throw error;
    return Object.assign(e, { syscall: e.syscall ?? 'open', path: e.path ?? probe });
  }
  await fs.unlink(probe).catch(() => undefined);
  return null;
}

/** Whether the folder holds a store: something a read-only start could show. */
export async function holdsStore(fs: Fs, dataDir: string): Promise<boolean> {
  for (const name of ['meta.json', 'messages', 'packs', 'recipients', 'blocks.json']) if (await fs.stat(path.join(dataDir, name))) return true;
  return false;
}

async function nearestExisting(fs: Fs, dir: string): Promise<string> {
  let at = path.resolve(dir);
  while ((await fs.stat(at).catch(() => null)) === null) {
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return at;
}

async function accessCode(dir: string): Promise<string | null> {
  try {
    await access(dir, constants.W_OK);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? null;
  }
}
