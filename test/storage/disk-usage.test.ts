import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DiskUsage } from '../../server/storage/disk-usage.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-du-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const blocks = async (...files: string[]) => {
  let total = 0;
  for (const f of files) total += (await stat(f)).blocks * 512;
  return total;
};
/** Folder per thousand captures, as the blob store lays them out. */
const folderOf = (root: string) => (seq: number) => path.join(root, 'blobs', String(Math.floor(seq / 1000)).padStart(5, '0'));

describe('DiskUsage', () => {
  it('walks a blob folder again only when one of its captures changed', async () => {
    const root = path.join(dir, 'cache');
    const folderA = folderOf(root)(1);
    const folderB = folderOf(root)(1001);
    await mkdir(folderA, { recursive: true });
    await writeFile(path.join(root, 'meta.json'), '{}');
    await writeFile(path.join(folderA, '1.message.eml'), Buffer.alloc(10_000));
    const usage = new DiskUsage({ dataDir: root, blobFolderOf: folderOf(root), maxAgeMs: 0 });
    const first = await usage.bytes();
    expect(first).toBe(await blocks(root, path.join(root, 'meta.json'), path.join(root, 'blobs'), folderA, path.join(folderA, '1.message.eml')));

    // A file appears in folder A without A being reported changed: the cached figure stands.
    await writeFile(path.join(folderA, '2.message.eml'), Buffer.alloc(50_000));
    expect(await usage.bytes()).toBe(first);

    // A capture in folder B is reported: B is walked, A still comes from the cache.
    await mkdir(folderB, { recursive: true });
    await writeFile(path.join(folderB, '1001.message.eml'), Buffer.alloc(20_000));
    usage.changed([1001]);
    const second = await usage.bytes();
    expect(second).toBe(first + (await blocks(folderB, path.join(folderB, '1001.message.eml'))));

    // Reporting capture 2 (folder A) brings its file in; 'all' walks everything again.
    usage.changed([2]);
    const third = await usage.bytes();
    expect(third).toBe(second + (await blocks(path.join(folderA, '2.message.eml'))));
    // Folder B deleted (its captures pruned) and everything reported: B is gone from the total.
    await rm(folderB, { recursive: true });
    usage.changed('all');
    expect(await usage.bytes()).toBe(first + (await blocks(path.join(folderA, '2.message.eml'))));
  });

  it('answers from the cache within maxAgeMs, and concurrent askers share one walk', async () => {
    const root = path.join(dir, 'age');
    await mkdir(root, { recursive: true });
    const usage = new DiskUsage({ dataDir: root, blobFolderOf: folderOf(root), maxAgeMs: 60_000 });
    const [a, b] = await Promise.all([usage.bytes(), usage.bytes()]);
    expect(a).toBe(b);
    await writeFile(path.join(root, 'late.json'), Buffer.alloc(30_000));
    expect(await usage.bytes()).toBe(a);
    // A reported change drops the cached figure at once.
    usage.changed([5]);
    expect(await usage.bytes()).toBe(a + (await blocks(path.join(root, 'late.json'))));
  });

  it('is 0 for a data directory that does not exist yet', async () => {
    const usage = new DiskUsage({ dataDir: path.join(dir, 'missing'), blobFolderOf: folderOf(dir) });
    expect(await usage.bytes()).toBe(0);
  });
});
