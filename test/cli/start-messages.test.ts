import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { formatAge, plural, retentionLine, startFailure } from '../../server/start-messages.ts';
import { spawnServer } from '../support/server-process.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-start-'));
  dirs.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Runs the real entry point to its exit; resolves with the exit code and everything it printed. */
async function runToExit(args: string[], asUser?: number): Promise<{ code: number | null; output: string }> {
  const node = [process.execPath, '--import', 'tsx', 'server/main.ts', ...args];
  // As root, drop to an ordinary user so the folder's permissions apply, as they do in a container run as uid 1000.
  const command = asUser === undefined ? node : ['setpriv', `--reuid=${asUser}`, `--regid=${asUser}`, '--clear-groups', ...node];
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

describe('the start-up banner', () => {
  it('counts captures with the right plural and thousands separators', () => {
    expect(plural(0, 'capture')).toBe('0 captures');
    expect(plural(1, 'capture')).toBe('1 capture');
    expect(plural(10_000, 'capture')).toBe('10,000 captures');
  });

  it('says what retention keeps, in words', () => {
    expect(formatAge(604_800_000)).toBe('1 week');
    expect(formatAge(129_600_000)).toBe('1 day 12 hours');
    expect(formatAge(90_000)).toBe('1 minute 30 seconds');
    expect(retentionLine(10_000, 0)).toBe('the newest 10,000 captures, any age');
    expect(retentionLine(1, 7_200_000)).toBe('the newest 1 capture, none older than 2 hours');
    expect(retentionLine(0, 604_800_000)).toBe('every capture, none older than 1 week');
    expect(retentionLine(0, 0)).toBe('every capture, any age (no pruning)');
  });

  it('prints the retention settings and the capture count of the real process', async () => {
    const server = await spawnServer({ dataDir: await tempDir(), args: ['--max-messages', '2500', '--max-age', '1d12h'] });
    try {
      await expect
        .poll(() => server.output())
        .toMatch(/ {2}data directory: .+ \(0 captures\)\n {2}retention: {6}the newest 2,500 captures, none older than 1 day 12 hours\n/);
    } finally {
      await server.stop();
    }
  });
});

describe('a start failure the user can fix', () => {
  it('names a data directory this process may not write, and the fix, without a stack trace', async () => {
    const dataDir = await tempDir();
    const root = process.getuid?.() === 0;
    // Root's folder, readable by all, as a host folder bind-mounted into a container run as uid
    // 1000 is; not root: take the write permission away instead.
    await chmod(dataDir, root ? 0o755 : 0o555);
    const { code, output } = await runToExit(['--data-dir', dataDir, '--http-port', '0', '--smtp-port', '0'], root ? 1000 : undefined);
    const uid = root ? 1000 : process.getuid?.();
    expect(code).toBe(1);
    expect(output).toContain(
      `pigeonhole: the data directory ${dataDir} is not writable by this process (uid ${uid}): permission denied (open ${dataDir}/.probe).`,
    );
    expect(output).toMatch(/chown -R \d+:\d+ /);
    expect(output).not.toMatch(/\n\s+at /);
  });

  it('names a port in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, output } = await runToExit(['--data-dir', await tempDir(), '--http-port', String(port), '--smtp-port', '0']);
      expect(code).toBe(1);
      expect(output).toContain(`pigeonhole: port ${port} is already in use`);
      expect(output).toContain('--http-port / --smtp-port');
      expect(output).not.toMatch(/\n\s+at /);
    } finally {
      blocker.close();
    }
  });

  it('suggests the container fixes inside a container, a folder outside', () => {
    const error = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', syscall: 'open', path: '/data/meta.json' });
    const inContainer = startFailure(error, { dataDir: '/data', uid: 1000, gid: 1000, inContainer: true });
    expect(inContainer).toBe(
      'pigeonhole: the data directory /data is not writable by this process (uid 1000): permission denied (open /data/meta.json).\n' +
        '  Give it to that user: chown -R 1000:1000 the host folder mounted as /data,\n' +
        '  or run the container as the folder\'s owner: docker run --user "$(id -u):$(id -g)" ...',
    );
    const outside = startFailure(error, { dataDir: '/data', uid: 501, gid: 20, inContainer: false });
    expect(outside).toContain('(chown -R 501:20 /data), or pick another folder: --data-dir PATH.');
    const readOnly = startFailure({ ...error, code: 'EROFS' }, { dataDir: '/data', inContainer: true });
    expect(readOnly).toContain('read-only file system');
    expect(readOnly).toContain('Mount a writable volume');
  });

  it('leaves everything else to the stack trace, because it is a bug', () => {
    const elsewhere = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/etc/shadow' });
    expect(startFailure(elsewhere, { dataDir: '/data' })).toBeNull();
    expect(startFailure(new TypeError('x is undefined'), { dataDir: '/data' })).toBeNull();
    expect(startFailure(elsewhere, { dataDir: undefined })).toBeNull();
  });
});
