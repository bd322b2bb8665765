import { execFile } from 'node:child_process';
import { copyFile, lstat, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const BUFFER = 32 * 1024 * 1024;

declare module 'vitest' {
  export interface ProvidedContext {
    /** The package as `npm ci && npm pack` makes it in a fresh clone of this checkout. */
    tarball: string;
  }
}

/**
 * Global setup of the `package` project: packs the package once the way docs/running.md tells
 * a user to (a few minutes' work shared by every test that installs it), and deletes it after.
 * A fresh clone: `git clone` of this checkout into a new folder, with this checkout's
 * uncommitted changes laid over it (so a change is tested before its commit; in CI there are
 * none), then `npm ci` and `npm pack`, whose `prepack` builds dist/. Nothing ignored by git
 * (dist/, node_modules) comes along: what the package needs must be made by the pack itself.
 */
export default async function pack(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-pack-'));
  const clone = path.join(dir, 'clone');
  const out = path.join(dir, 'out');
  await run('git', ['clone', '--quiet', '--no-hardlinks', ROOT, clone], { maxBuffer: BUFFER });
  await layUncommittedChanges(clone);
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: clone, maxBuffer: BUFFER });
  await mkdir(out);
  await run('npm', ['pack', '--silent', '--pack-destination', out], { cwd: clone, maxBuffer: BUFFER });
  const [file] = await readdir(out);
  if (!file?.endsWith('.tgz')) throw new Error(`npm pack made no tarball in ${out}`);
  project.provide('tarball', path.join(out, file));
  return () => rm(dir, { recursive: true, force: true });
}

/** Copies this checkout's changed and new files (those git does not ignore) into the clone, and removes the deleted ones. */
async function layUncommittedChanges(clone: string): Promise<void> {
  const list = async (...args: string[]) =>
    (await run('git', ['ls-files', '-z', ...args], { cwd: ROOT, maxBuffer: BUFFER })).stdout.split('\0').filter((file) => file !== '');
  const deleted = new Set(await list('--deleted'));
  for (const file of deleted) await rm(path.join(clone, file), { force: true });
  for (const file of await list('--modified', '--others', '--exclude-standard')) {
    // The shared install is a symbolic link at node_modules (not matched by `node_modules/`): not the project's.
    if (deleted.has(file) || file === 'node_modules' || file.startsWith('node_modules/')) continue;
    if (!(await lstat(path.join(ROOT, file))).isFile()) continue;
    await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
    await copyFile(path.join(ROOT, file), path.join(clone, file));
  }
}
