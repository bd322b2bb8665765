import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { optionList } from '../../server/config.ts';
import { processTracker } from '../support/process-helpers.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { freePort } from '../support/ports.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string }).version;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the repository with a clean PIGEONHOLE_* environment. */
function run(command: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIGEONHOLE_')));
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...clean, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}
const pigeonhole = (args: string[], env?: Record<string, string>) => run(process.execPath, ['bin/pigeonhole.js', ...args], env);

const tracker = processTracker();
let server: ServerProcess;
beforeAll(async () => {
  server = await tracker.spawn({ dataDir: await tracker.tempDir('pigeonhole-cli-') });
});
afterAll(() => tracker.cleanup());

describe('pigeonhole --help and --version', () => {
  it('--help lists every flag with its environment variable and default, and exits 0', async () => {
    const result = await pigeonhole(['--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Usage: pigeonhole \[options\]/);
    expect(result.stdout).toContain('pigeonhole healthcheck [options]');
    for (const option of optionList()) {
      expect(result.stdout).toContain(
        `  --${option.flag}${option.switch ? '' : ' <value>'}\n      ${option.help}\n      env ${option.env}, default ${option.default}\n`.trimEnd(),
      );
    }
    expect(optionList().map((o) => o.flag)).toEqual(
      expect.arrayContaining(['http-port', 'smtp-port', 'host', 'data-dir', 'config', 'max-body-size', 'max-messages', 'max-age']),
    );
    expect((await pigeonhole(['-h'])).stdout).toBe(result.stdout);
  });

  it('--version prints the version in package.json', async () => {
    expect(await pigeonhole(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect((await pigeonhole(['-v'])).stdout).toBe(`${VERSION}\n`);
  });

  it('runs through npx from a clone of the repository', async () => {
    const result = await run('npx', ['--no-install', 'pigeonhole', '--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
  });
});

describe('bad command lines exit 2 with a message', () => {
  it.each([
    [['--nope'], `pigeonhole: Unknown option '--nope'. Run "pigeonhole --help" for the options.\n`],
    [['--http-port'], `pigeonhole: --http-port needs a value. Run "pigeonhole --help" for the options.\n`],
    [['serve'], `pigeonhole: Unexpected argument 'serve'. Run "pigeonhole --help" for the commands and options.\n`],
    [['--max-age', 'soon'], 'pigeonhole: --max-age: "soon" is not a duration such as 7d, 12h or 1d12h (0 to keep captures of any age)\n'],
    [
      ['--max-messages=lots', '--http-port=99999'],
      'pigeonhole: --http-port: "99999" is not a port number (0-65535)\n--max-messages: "lots" is not a whole number (0 or more)\n',
    ],
    [['healthcheck', '--nope'], `pigeonhole: Unknown option '--nope'. Run "pigeonhole --help" for the options.\n`],
    [['healthcheck', '--http-port', '0'], "pigeonhole: healthcheck needs the server's HTTP port; 0 (a free port) cannot be checked\n"],
  ])('%j', async (args, message) => {
    expect(await pigeonhole(args)).toEqual({ code: 2, stdout: '', stderr: message });
  });

  it('names a bad environment variable', async () => {
    expect(await pigeonhole([], { PIGEONHOLE_MAX_MESSAGES: '-5' })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'pigeonhole: PIGEONHOLE_MAX_MESSAGES: "-5" is not a whole number (0 or more)\n',
    });
  });
});

describe('pigeonhole healthcheck', () => {
  it('exits 0 when the server on --http-port answers ready', async () => {
    expect(await pigeonhole(['healthcheck', '--http-port', String(server.port)])).toEqual({
      code: 0,
      stdout: `ready: http://127.0.0.1:${server.port}/readyz\n`,
      stderr: '',
    });
  });

  it('reads the port and host from the environment, and checks 0.0.0.0 on loopback', async () => {
    const result = await pigeonhole(['healthcheck'], { PIGEONHOLE_HTTP_PORT: String(server.port), PIGEONHOLE_HOST: '0.0.0.0' });
    expect(result).toEqual({ code: 0, stdout: `ready: http://127.0.0.1:${server.port}/readyz\n`, stderr: '' });
  });

  it('exits 1 when nothing listens there', async () => {
    const port = await freePort();
    expect(await pigeonhole(['healthcheck', '--http-port', String(port)])).toEqual({
      code: 1,
      stdout: '',
      stderr: `not ready: http://127.0.0.1:${port}/readyz: ECONNREFUSED\n`,
    });
  });

  describe('against a server that is up but not ready', () => {
    let fake: Server;
    let hanging: Server;
    beforeAll(async () => {
      fake = createServer((_req, res) => {
        res.writeHead(503, { 'Content-Type': 'application/json' });
        res.end('{"status":"stopping","detail":"Shutting down.","checks":{}}');
      });
      // Accepts the connection and never answers.
      hanging = createServer(() => undefined);
      await Promise.all([fake, hanging].map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
    });
    afterAll(async () => {
      for (const s of [fake, hanging]) s.closeAllConnections();
      await Promise.all([fake, hanging].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    });

    it('exits 1 on a 503, showing the answer', async () => {
      const { port } = fake.address() as AddressInfo;
      expect(await pigeonhole(['healthcheck', '--http-port', String(port)])).toEqual({
        code: 1,
        stdout: '',
        stderr: `not ready: http://127.0.0.1:${port}/readyz answered 503 {"status":"stopping","detail":"Shutting down.","checks":{}}\n`,
      });
    });

    it('exits 1 after its timeout when the server does not answer', async () => {
      const { port } = hanging.address() as AddressInfo;
      const started = performance.now();
      expect(await pigeonhole(['healthcheck', '--http-port', String(port)])).toEqual({
        code: 1,
        stdout: '',
        stderr: `not ready: http://127.0.0.1:${port}/readyz: no answer within 3000 ms\n`,
      });
      expect(performance.now() - started).toBeLessThan(15_000);
    });
  });
});
