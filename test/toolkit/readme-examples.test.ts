import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogin } from '../../server/http/basic-auth.ts';
import { browserPolicy } from '../../server/http/browser-guard.ts';
import { useApp } from '../support/app.ts';

/** The README's Python and curl examples, run as written against a real server. */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
const app = useApp();
// The same examples against a sandbox with a login, given to them in PIGEONHOLE_AUTH.
const guarded = useApp({ access: { policy: browserPolicy(), login: createLogin({ user: 'ci', password: 'pass word:1' }) } });

async function example(language: string): Promise<string> {
  const readme = await readFile(`${ROOT}README.md`, 'utf8');
  const section = readme.slice(readme.indexOf('## Using Pigeonhole in your tests'));
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section);
  if (!match) throw new Error(`no ${language} example in the README section`);
  return match[1]!;
}

const has = async (command: string) => run(command, ['--version']).then(() => true, () => false);

/** The environment an example runs with: the sandbox's URL, and its login when it has one. */
const envFor = (url: string, auth?: string) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PIGEONHOLE_URL: url };
  delete env.PIGEONHOLE_AUTH;
  return auth === undefined ? env : { ...env, PIGEONHOLE_AUTH: auth };
};

describe('README: Using Pigeonhole in your tests', () => {
  it('the Python example (standard library only) prints the code, with and without a login', async (context) => {
    if (!(await has('python3'))) return context.skip();
    const code = await example('python');
    expect((await run('python3', ['-c', code], { env: envFor(app.url) })).stdout).toBe('731904\n');
    expect((await run('python3', ['-c', code], { env: envFor(guarded.url, 'ci:pass word:1') })).stdout).toBe('731904\n');
    await expect(run('python3', ['-c', code], { env: envFor(guarded.url) })).rejects.toThrow(/HTTP Error 401/);
  });

  it('the curl example prints the code, with and without a login', async (context) => {
    if (!(await has('curl')) || !(await has('jq'))) return context.skip();
    const code = await example('sh');
    expect((await run('bash', ['-euo', 'pipefail', '-c', code], { env: envFor(app.url) })).stdout).toBe('552817\n');
    expect((await run('bash', ['-euo', 'pipefail', '-c', code], { env: envFor(guarded.url, 'ci:pass word:1') })).stdout).toBe('552817\n');
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
