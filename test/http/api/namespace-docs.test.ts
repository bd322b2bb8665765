import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { PigeonholeClient } from '../../../client/pigeonhole-client.ts';
import { test as it } from '../../support/fixtures.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

/** The first code block in `language` of docs/testing.md from `heading` on. */
async function example(heading: string, language: string): Promise<string> {
  const text = await readFile(`${ROOT}docs/testing.md`, 'utf8');
  const at = text.indexOf(heading);
  if (at < 0) throw new Error(`docs/testing.md has no "${heading}"`);
  const match = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(text.slice(at));
  if (!match) throw new Error(`no ${language} example after "${heading}"`);
  return match[1]!;
}

describe('docs/testing.md: namespaces and expect', () => {
  it('the curl example prints what the page says', async ({ app }) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PIGEONHOLE_URL: app.url };
    delete env.PIGEONHOLE_AUTH;
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', await example('## Exact counts: expect', 'sh')], { env });
    expect(stdout).toBe('1\n409\n1\n');
  });

  it('the TypeScript example uses only methods the client has', async () => {
    const client = new PigeonholeClient() as unknown as Record<string, unknown>;
    const calls = [...(await example('## Namespaces: one inbox per test', 'ts')).matchAll(/pigeonhole\.(\w+)\(/g)].map((m) => m[1]!);
    expect(calls).toEqual(['reset', 'expect', 'expectNone']);
    for (const name of calls) expect(typeof client[name], name).toBe('function');
  });
});
