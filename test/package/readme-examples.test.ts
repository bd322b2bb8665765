import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { createLogin } from '../../server/http/basic-auth.ts';
import { browserPolicy } from '../../server/http/browser-guard.ts';
import { startApp } from '../support/app.ts';
import { test } from '../support/fixtures.ts';

/**
 * The examples of the README ("Catching mail in tests") and of docs/testing.md, run as written
 * against a real server.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);
// `app`, and `guarded`: the same examples against a sandbox with a login, given to them in PIGEONHOLE_AUTH.
const it = test.extend('guarded', { scope: 'file' }, async ({}, { onCleanup }) => {
  const guarded = await startApp({ access: { policy: browserPolicy(), login: createLogin({ user: 'ci', password: 'pass word:1' }) } });
  onCleanup(() => guarded.destroy());
  return guarded;
});

/** The first code block in `language` of a page, from `heading` on. */
async function example(page: string, heading: string, language: string): Promise<string> {
  const text = await readFile(`${ROOT}${page}`, 'utf8');
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`${page} has no "${heading}"`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at));
  if (!match) throw new Error(`no ${language} example in ${page} after "${heading}"`);
  return match[1]!;
}

/** Fails the test, saying what to install, when a command an example runs is missing (CI installs them). */
async function need(...commands: string[]): Promise<void> {
  for (const command of commands) {
    if (
      !(await run(command, ['--version']).then(
        () => true,
        () => false,
      ))
    )
      throw new Error(`${command} is needed for this test: apt-get install ${command}`);
  }
}

/** The environment an example runs with: the sandbox's URL, and its login when it has one. */
const envFor = (url: string, auth?: string) => {
  const env: NodeJS.ProcessEnv = { ...process.env, PIGEONHOLE_URL: url };
  delete env.PIGEONHOLE_AUTH;
  return auth === undefined ? env : { ...env, PIGEONHOLE_AUTH: auth };
};

/** Every `pigeonhole.x(` or `pigeonhole.x.y(` call of a TypeScript example is a method of the client. */
async function expectClientMethods(code: string): Promise<void> {
  const { PigeonholeClient } = await import('../../client/pigeonhole-client.ts');
  const client = new PigeonholeClient() as unknown as Record<string, Record<string, unknown>>;
  const calls = [...code.matchAll(/pigeonhole\.([\w.]+)\(/g)].map((m) => m[1]!);
  expect(calls.length).toBeGreaterThan(0);
  for (const path of calls) {
    const [head, tail] = path.split('.');
    expect(typeof (tail ? client[head!]![tail] : client[head!]), path).toBe('function');
  }
}

describe('README: Catching mail in tests', () => {
  const README = ['README.md', '## Catching mail in tests'] as const;

  it('the curl example prints the code', async ({ app }) => {
    await need('curl', 'jq');
    const code = await example(...README, 'sh');
    expect((await run('bash', ['-euo', 'pipefail', '-c', code], { env: envFor(app.url) })).stdout).toBe('552817\n');
  });

  it('the TypeScript example uses only methods the client has', async () => {
    await expectClientMethods(await example(...README, 'ts'));
  });
});

describe('README: In your test suite', () => {
  const README = ['README.md', '## In your test suite'] as const;

  it('the TypeScript example starts the sandbox from the root export and calls only methods its client has', async () => {
    const code = await example(...README, 'ts');
    expect(code).toContain("import { startPigeonhole } from 'pigeonhole';");
    const root = (await import('../../server/start-pigeonhole.ts')) as Record<string, unknown>;
    expect(typeof root.startPigeonhole).toBe('function');
    await expectClientMethods(code.replaceAll('sandbox.client.', 'pigeonhole.'));
    expect(code).toContain('sandbox.client.expectNone(');
  });
});

describe('docs/testing.md', () => {
  const PAGE = 'docs/testing.md';

  it('the Python example (standard library only) prints the code, with and without a login', async ({ app, guarded }) => {
    await need('python3');
    const code = await example(PAGE, '## Python', 'python');
    expect((await run('python3', ['-c', code], { env: envFor(app.url) })).stdout).toBe('731904\n');
    expect((await run('python3', ['-c', code], { env: envFor(guarded.url, 'ci:pass word:1') })).stdout).toBe('731904\n');
    await expect(run('python3', ['-c', code], { env: envFor(guarded.url) })).rejects.toThrow(/HTTP Error 401/);
  });

  it('the curl example prints the code, with and without a login', async ({ app, guarded }) => {
    await need('curl', 'jq');
    const code = await example(PAGE, '## curl', 'sh');
    expect((await run('bash', ['-euo', 'pipefail', '-c', code], { env: envFor(app.url) })).stdout).toBe('552817\n');
    expect((await run('bash', ['-euo', 'pipefail', '-c', code], { env: envFor(guarded.url, 'ci:pass word:1') })).stdout).toBe('552817\n');
  });

  it('the TypeScript example uses only methods the client has', async () => {
    await expectClientMethods(await example(PAGE, '## TypeScript', 'ts'));
  });
});
