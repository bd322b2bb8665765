import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's pictures of the tree (the Layout and the storage floor plan) against the
 * tree: every file they name is there, and every folder of server/, client/ and ui/src/ is named,
 * so the page a newcomer starts from cannot drift from the code.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The page's fenced blocks that draw the tree. */
async function pictures(): Promise<string> {
  const page = await readFile(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const blocks = [...page.matchAll(/```\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((block) => /^(server\/|package\.json)/m.test(block));
  expect(blocks.length).toBe(2);
  return blocks.join('\n');
}

/** Every file and folder below `dir` (relative to the root), dist and node_modules aside. */
async function walk(dir: string): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = [];
  const folders: string[] = [];
  for (const entry of await readdir(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      folders.push(rel);
      const below = await walk(rel);
      files.push(...below.files);
      folders.push(...below.folders);
    } else files.push(rel);
  }
  return { files, folders };
}

describe('docs/architecture.md draws the tree as it is', () => {
  it('names only files that exist', async () => {
    const text = await pictures();
    const named = new Set([...text.matchAll(/(?<![\w.-])([\w./-]+\.(?:ts|tsx|mjs|js|sh|json))\b/g)].map((m) => m[1]!));
    expect(named.size).toBeGreaterThan(60);
    const trees = await Promise.all(['server', 'client', 'ui', 'bin', 'scripts', 'test', 'bench'].map(walk));
    const files = [...trees.flatMap((tree) => tree.files), 'package.json', 'vitest.config.ts'];
    const missing = [...named].filter((name) => !name.includes('*') && !files.some((file) => file === name || file.endsWith(`/${name}`)));
    expect(missing).toEqual([]);
  });

  it('names only paths that exist wherever it gives one in full (server/..., client/..., ui/..., scripts/..., test/..., bench/...)', async () => {
    const page = await readFile(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const paths = new Set([...page.matchAll(/`((?:server|client|ui|scripts|test|bench)\/[\w./-]+)`/g)].map((m) => m[1]!.replace(/\/$/, '')));
    expect(paths.size).toBeGreaterThan(10);
    const missing = [...paths].filter((p) => !p.includes('*') && !existsSync(path.join(ROOT, p)));
    expect(missing).toEqual([]);
  });

  it('names every folder of server/, client/ and ui/src/ (components/ holds a folder per component, as it says)', async () => {
    const text = await pictures();
    expect(text).toContain('components/\n                     (a folder per component');
    const folders = (await Promise.all(['server', 'client', 'ui/src'].map(walk)))
      .flatMap((tree) => tree.folders)
      .filter((folder) => !folder.startsWith('ui/src/components/'));
    expect(folders.length).toBeGreaterThan(15);
    const unnamed = folders.filter((folder) => !text.includes(`${path.basename(folder)}/`));
    expect(unnamed).toEqual([]);
  });
});
