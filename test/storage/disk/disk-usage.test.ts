import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { DiskUsage } from '../../../server/storage/disk/disk-usage.ts';
import { test as it } from '../../support/fixtures.ts';

const blocks = async (...files: string[]) => {
  let total = 0;
  for (const f of files) total += (await stat(f)).blocks * 512;
  return total;
};

describe('DiskUsage', () => {
  it('answers from the cache within maxAgeMs, measures again after a change, and concurrent askers share one walk', async () => {
    let walks = 0;
    let bytes = 1000;
    const usage = new DiskUsage(async () => {
      walks++;
      return { bytes, files: 3 };
    }, 60_000);
    const [a, b] = await Promise.all([usage.bytes(), usage.files()]);
    expect([a, b, walks]).toEqual([1000, 3, 1]);
    bytes = 5000;
    expect(await usage.bytes()).toBe(1000);
    usage.changed();
    expect(await usage.bytes()).toBe(5000);
    expect(walks).toBe(2);
  });

  it("the store's walk counts every file's allocated blocks, as du does", async ({ store }) => {
    const root = store.dataDir;
    await mkdir(path.join(root, 'extra'), { recursive: true });
    await writeFile(path.join(root, 'extra', 'big.bin'), Buffer.alloc(50_000, 1));
    const usage = await store.diskUsage();
    const { files } = usage;
    expect(files).toBe(1);
    const expected = await blocks(
      root,
      ...['packs', 'messages', 'recipients', 'subscriptions', 'requests', 'tmp', 'extra', 'extra/big.bin'].map((p) => path.join(root, p)),
    );
    expect(usage.bytes).toBe(expected);
  });
});
