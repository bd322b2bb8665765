import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { command } from '../package/consumer.ts';
import { test as it } from '../support/fixtures.ts';

/**
 * bin/pigeonhole.js with nothing to run names the fix that works where it is (issue 27, item 2):
 * inside node_modules, a package packed without its build (no "npm install" or "npm run build",
 * which cannot help there); in a clone, the missing dependencies.
 */

const BIN = fileURLToPath(new URL('../../bin/pigeonhole.js', import.meta.url));

/** The bin copied to `dir/bin/`, with a package.json beside it, and run there. */
async function runBinIn(dir: string) {
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await copyFile(BIN, path.join(dir, 'bin', 'pigeonhole.js'));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'pigeonhole', version: '0.1.0', type: 'module' }));
  return command(process.execPath, [path.join(dir, 'bin', 'pigeonhole.js'), '--version'], { cwd: dir });
}

it('in an installed package without dist/: a new tarball from npm pack, installed in the project', async ({ tempDir }) => {
  const installed = path.join(tempDir, 'node_modules', 'pigeonhole');
  expect(await runBinIn(installed)).toEqual({
    code: 1,
    stdout: '',
    stderr:
      `pigeonhole: the installed package in ${installed} has no build (dist/ is missing): it was packed without one, so reinstalling it changes nothing.\n` +
      `  Make a new tarball: "npm pack" in a clone of Pigeonhole (it builds before it packs), then "npm install <path>/pigeonhole-<version>.tgz" in ${tempDir} (with -g for a global install).\n`,
  });
});

it('in a clone without its dependencies: npm ci there', async ({ tempDir }) => {
  const clone = path.join(tempDir, 'pigeonhole');
  await mkdir(path.join(clone, 'server'), { recursive: true });
  await writeFile(path.join(clone, 'server', 'main.ts'), '');
  expect(await runBinIn(clone)).toEqual({
    code: 1,
    stdout: '',
    stderr: `pigeonhole: ${clone} holds the sources but not their dependencies (tsx runs them): run "npm ci" there, or "npm ci && npm run build" to run the compiled server.\n`,
  });
});
