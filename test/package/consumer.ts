import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end; a non-zero exit is a result, not a rejection. */
export async function command(file: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeout?: number }): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(file, args, { ...options, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string; message: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message };
  }
}

/**
 * `npm install` in a project, as a user runs it; the registry is reachable in CI, but the
 * packages this repository installed are in npm's cache, so they are taken from there.
 */
export async function npmInstall(cwd: string, packages: string[] = []): Promise<void> {
  const result = await command('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...packages], { cwd });
  if (result.code !== 0) throw new Error(`npm install ${packages.join(' ')} failed in ${cwd}:\n${result.stderr}`);
}

/** A new, empty ESM project in a temporary directory, with the packed package installed. */
export async function freshProject(tarball: string, prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'fresh-project', private: true, type: 'module' }, null, 2)}\n`);
  await npmInstall(dir, [tarball]);
  return dir;
}

/** This repository's TypeScript compiler, run as `tsc -p .` in a project: what a user's type check reports. */
export async function typeCheck(cwd: string): Promise<CommandResult> {
  const packageJson = fileURLToPath(import.meta.resolve('typescript/package.json'));
  const { bin } = JSON.parse(await readFile(packageJson, 'utf8')) as { bin: { tsc: string } };
  return command('node', [path.join(path.dirname(packageJson), bin.tsc), '-p', '.'], { cwd, timeout: 120_000 });
}
