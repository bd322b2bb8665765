import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { command, freshProject, typeCheck } from './consumer.ts';

/**
 * The package as a user gets it: `npm ci && npm pack` in a fresh clone (test/package/pack.ts,
 * whose `prepack` builds it), then `npm install <tarball>` in a new, empty project, which imports
 * `pigeonhole` by its name and runs its command.
 */

let project: string;

beforeAll(async () => {
  project = await freshProject(inject('tarball'), 'pigeonhole-fresh-');
}, 180_000);

afterAll(async () => {
  if (project) await rm(project, { recursive: true, force: true });
});

describe('the packed package in a fresh project', () => {
  it('holds its build: the server, the typed client and the inbox UI', async () => {
    const listed = await command('tar', ['-tzf', inject('tarball')], { cwd: project });
    expect(listed.code).toBe(0);
    const files = listed.stdout.split('\n');
    for (const file of [
      'dist/server/main.js',
      'dist/server/start-pigeonhole.js',
      'dist/client/pigeonhole-client.js',
      'dist/ui/index.html',
      'bin/pigeonhole.js',
    ])
      expect(files).toContain(`package/${file}`);
  });

  it('starts with its command from node_modules/.bin, serves /readyz and stops on SIGTERM', async () => {
    const data = await mkdtemp(path.join(project, 'data-'));
    const child = spawn(path.join(project, 'node_modules', '.bin', 'pigeonhole'), ['--http-port', '0', '--smtp-port', '0', '--data-dir', data], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    try {
      await expect.poll(() => output, { timeout: 30_000 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const port = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)![1];
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
    }
  });

  it('starts two sandboxes in one process that see only their own mail, and stop() frees their ports and data', async () => {
    await cp(fileURLToPath(new URL('fixtures/two-sandboxes.mjs', import.meta.url)), path.join(project, 'two-sandboxes.mjs'));
    const result = await command('node', ['two-sandboxes.mjs'], { cwd: project, timeout: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Nothing but the script's own line: no banner, no log.
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toEqual({
      a: ['api ada@example.com API to A', 'smtp carol@example.com SMTP to A'],
      b: ['api bob@example.com API to B', 'smtp dan@example.com SMTP to B'],
      running: { ports: ['open', 'open', 'open', 'open'], dirs: [true, true] },
      stopped: { ports: ['refused', 'refused', 'refused', 'refused'], dirs: [false, false] },
      distinctPorts: 4,
      sameClient: true,
    });
  });

  it('is typed: the root export and pigeonhole/client type-check in a TypeScript project', async () => {
    await writeFile(path.join(project, 'typed.ts'), TYPED_CONSUMER);
    await writeFile(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, types: [] }, files: ['typed.ts'] }),
    );
    const result = await typeCheck(project);
    expect(result.stdout + result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});

/** Uses every exported type; the one deliberate mistake must be reported (`@ts-expect-error`). */
const TYPED_CONSUMER = `
import { type ExpectResult, type PigeonholeLogger, type RunningPigeonhole, type StartPigeonholeOptions, startPigeonhole, TooManyMessages } from 'pigeonhole';
import { type Capture, PigeonholeClient } from 'pigeonhole/client';

const logger: PigeonholeLogger = { error: (message) => void message };
const options: StartPigeonholeOptions = { config: { teams: [] }, flags: ['--max-messages', '10'], logger };
const sandbox: RunningPigeonhole = await startPigeonhole(options);
const client: PigeonholeClient = sandbox.client;
const mail: Capture = await client.waitForMessage({ recipient: 'ada@example.com', timeout: 1000 });
const port: number = sandbox.smtp.port;
// @ts-expect-error a subject is a string
const wrong: number = mail.subject;
// The root re-exports the client's classes and types.
const expected: ExpectResult | null = await client.expect({ count: 1 }).catch((error: unknown) => (error instanceof TooManyMessages ? null : Promise.reject(error)));
await sandbox.stop();
export { expected, port, wrong };
`;
