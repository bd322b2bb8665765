import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useApp } from '../support/app.ts';

/** The README's Python and curl examples, run as written against a real server. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const app = useApp();

async function example(language: string): Promise<string> {
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## Using Pigeonhole in your tests'));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  if (!match) throw new Error(`no ${language} example in the README section`);
  return match[1]!;
}

const has = async (command: string) => run(command, ['--version']).then(() => true, () => false);

describe('README: Using Pigeonhole in your tests', () => {
  it('the Python example (standard library only) prints the code', async (context) => {
    if (!(await has('python3'))) return context.skip();
    const { stdout } = await run('python3', ['-c', await example('python')], { env: { ...process.env, PIGEONHOLE_URL: app.url } });
    expect(stdout).toBe('731904\n');
  });

  it('the curl example prints the code', async (context) => {
    if (!(await has('curl')) || !(await has('jq'))) return context.skip();
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', await example('sh')], { env: { ...process.env, PIGEONHOLE_URL: app.url } });
    expect(stdout).toBe('552817\n');
  });

  it('the TypeScript example uses only methods the client has', async () => {
    const code = await example('ts');
    const { PigeonholeClient } = await import('../../client/pigeonhole-client.ts');
    const client = new PigeonholeClient() as unknown as Record<string, Record<string, unknown>>;
    for (const [, path] of code.matchAll(/pigeonhole\.([\w.]+)\(/g)) {
      const [head, tail] = path!.split('.');
      expect(typeof (tail ? client[head!]![tail] : client[head!]), path).toBe('function');
    }
  });
});
