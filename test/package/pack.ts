import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

declare module 'vitest' {
  export interface ProvidedContext {
    /** The package as `npm pack` makes it from this checkout, built just now. */
    tarball: string;
  }
}

/**
 * Global setup of the `package` project: builds and packs the package once (a minute's work
 * shared by every test that installs it, the way a user would), and deletes the tarball after.
 */
export default async function pack(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-pack-'));
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  await run('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const [file] = await readdir(dir);
  if (!file?.endsWith('.tgz')) throw new Error(`npm pack made no tarball in ${dir}`);
  project.provide('tarball', path.join(dir, file));
  return () => rm(dir, { recursive: true, force: true });
}
