import { mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Low } from 'lowdb';
import { DataFile } from 'lowdb/node';

/**
 * A lowdb database on one JSON file, written compactly. Every file the store keeps goes
 * through here: lowdb (via steno) writes to a temporary file and renames it into place, so
 * a file on disk is always either the old or the new whole version, never a torn one.
 */
export function openJsonFile<T>(file: string, initial: T): Low<T> {
  const adapter = new DataFile<T>(file, { parse: JSON.parse, stringify: (value) => JSON.stringify(value) });
  return new Low<T>(adapter, initial);
}

export async function ensureDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
}

/** Lists the segment files of a collection folder in numeric order. */
export async function listSegments(dir: string): Promise<number[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  return names
    .map((name) => /^(\d+)\.json$/.exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export function segmentPath(dir: string, index: number): string {
  return path.join(dir, `${String(index).padStart(6, '0')}.json`);
}

export async function removeFile(file: string): Promise<void> {
  await rm(file, { force: true });
}
