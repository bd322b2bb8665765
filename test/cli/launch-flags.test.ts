import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { execForm, parseDockerfile } from './dockerfile.ts';

const run = promisify(execFile);

/** Node's flags in `npm start` (package.json), the source the other launches must agree with. */
async function startFlags(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  const match = /\bnode((?: --[^\s]+)*) dist\/server\/main\.js$/.exec(scripts.start!);
  if (!match) throw new Error(`package.json start does not run node ... dist/server/main.js: ${scripts.start}`);
  return match[1]!.trim().split(/\s+/).filter(Boolean);
}

// Every way the server is launched gives Node the same flags (the young generation's bound,
// docs/running.md "Memory"), and the benchmarks measure it launched that way.
describe('launch flags', () => {
  it('npm start holds the young generation to 4 MB semispaces', async () => {
    expect(await startFlags()).toEqual(['--max-semi-space-size=4']);
  });

  it('the bin, the Docker image and the benchmarks launch with the same flags', async () => {
    const flags = await startFlags();
    const bin = (await readFile('bin/pigeonhole.js', 'utf8')).split('\n')[0];
    expect(bin).toBe(`#!/usr/bin/env -S node ${flags.join(' ')}`);
    const cmd = parseDockerfile(await readFile('Dockerfile', 'utf8'))
      .at(-1)!
      .instructions.filter((i) => i.keyword === 'CMD')
      .at(-1)!;
    expect(execForm(cmd.args)).toEqual(['node', ...flags, 'dist/server/main.js']);
    const bench = await readFile('bench/lib/server-process.ts', 'utf8');
    expect(bench).toContain(`const NODE_FLAGS = [${flags.map((flag) => `'${flag}'`).join(', ')}];`);
  });

  it('the bin runs through its shebang (env -S passes the flag to node)', async () => {
    const { stdout } = await run('bin/pigeonhole.js', ['--version'], { timeout: 30_000 });
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    expect(stdout).toContain(version);
  });
});
