import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** docs/testing.md's "Start it from your test runner" against the code and the examples it describes. */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function section(): Promise<string> {
  const page = await readFile(path.join(ROOT, 'docs/testing.md'), 'utf8');
  const start = page.indexOf('## Start it from your test runner\n');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = page.indexOf('\n## ', start + 1);
  return page.slice(start, end < 0 ? undefined : end);
}

describe('docs/testing.md: Start it from your test runner', () => {
  it('documents every option of startPigeonhole in its table', async () => {
    const source = await readFile(path.join(ROOT, 'server/start-pigeonhole.ts'), 'utf8');
    const body = /export interface StartPigeonholeOptions \{([\s\S]*?)\n\}/.exec(source)![1]!;
    const options = [...body.matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]!);
    expect(options.length).toBeGreaterThan(5);
    const rows = (await section()).split('\n').filter((line) => line.startsWith('| `'));
    const documented = rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
    expect(documented.sort()).toEqual(options.sort());
  });

  it('links every recipe in examples/, and each link leads to one', async () => {
    const text = await section();
    const links = [...text.matchAll(/\]\(\.\.\/(examples\/[\w-]+)\)/g)].map((m) => m[1]!);
    for (const link of links) expect(existsSync(path.join(ROOT, link, 'package.json')), link).toBe(true);
    const examples = (await readdir(path.join(ROOT, 'examples'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => `examples/${e.name}`);
    expect([...new Set(links)].sort()).toEqual(examples.sort());
  });
});
