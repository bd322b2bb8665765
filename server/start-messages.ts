import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { DataDirNotWritable } from './storage/errors.ts';

/** What the banner and the start-failure message need to know about the running process. */
export interface StartContext {
  /** Unknown when the start failed before the configuration was read. */
  readonly dataDir: string | undefined;
  readonly uid?: number;
  readonly gid?: number;
  /** Inside a container (Docker or Podman): the fix is a `docker run` flag, not a local chown. */
  readonly inContainer?: boolean;
}

/** `1 capture`, `2 captures`, `10,000 captures`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
}

const AGE_UNITS: ReadonlyArray<readonly [number, string]> = [
  [604_800_000, 'week'],
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
  [1, 'millisecond'],
];

/** 604800000 → `1 week`, 129600000 → `1 day 12 hours`. */
export function formatAge(ms: number): string {
  const parts: string[] = [];
  let rest = ms;
  for (const [size, name] of AGE_UNITS) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(plural(n, name));
    rest -= n * size;
  }
  return parts.join(' ') || '0 milliseconds';
}

/** The banner's retention line: what is kept and what gets pruned (`--max-messages`, `--max-age`). */
export function retentionLine(maxMessages: number, maxAgeMs: number): string {
  const count = maxMessages > 0 ? `the newest ${plural(maxMessages, 'capture')}` : 'every capture';
  const age = maxAgeMs > 0 ? `none older than ${formatAge(maxAgeMs)}` : 'any age';
  if (maxMessages === 0 && maxAgeMs === 0) return 'every capture, any age (no pruning)';
  return `${count}, ${age}`;
}

/** True inside a Docker or Podman container. */
export function runningInContainer(): boolean {
  return existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}

const PERMISSION = new Set(['EACCES', 'EPERM', 'EROFS']);

/**
 * A short message for the start failures a user can fix (a data directory this process may not
 * write, a port in use or reserved), or null for anything else, which is printed with its
 * stack because it is a bug.
 */
export function startFailure(error: unknown, context: StartContext): string | null {
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (!e || typeof e !== 'object' || typeof e.code !== 'string') return null;
  if (e.code === 'EADDRINUSE')
    return `pigeonhole: port ${e.port ?? ''} is already in use (${e.message}).\n  Stop what is using it, or pick another port: --http-port / --smtp-port.`;
  if (e.syscall === 'listen' && PERMISSION.has(e.code)) {
    return `pigeonhole: may not listen on port ${e.port ?? ''}: permission denied.\n  Ports below 1024 need root or CAP_NET_BIND_SERVICE; pick a port of 1024 or more.`;
  }
  const dataDir = context.dataDir;
  if (!PERMISSION.has(e.code) || typeof e.path !== 'string' || dataDir === undefined || !inside(dataDir, e.path)) return null;

  const where = `(${e.syscall ?? 'open'} ${e.path})`;
  if (e.code === 'EROFS') {
    // One line: what, where, why it cannot start, the way out.
    const why =
      error instanceof DataDirNotWritable
        ? error.why === 'empty'
          ? ' and holds no captures to show'
          : ": it holds Pigeonhole 0.1's layout, which must be moved to the current one (a write) before it can be shown"
        : '';
    const fix = context.inContainer
      ? `Mount a writable volume or host folder at that path (docker run -v DIR:${dataDir}, without :ro)`
      : 'Remount it read-write, or pick a writable folder: --data-dir PATH';
    return `pigeonhole: the data directory ${dataDir} is on a read-only file system ${where}${why}. ${fix}.`;
  }
  const who = context.uid === undefined ? 'this process' : `this process (uid ${context.uid})`;
  const owner = context.uid === undefined ? '' : `${context.uid}:${context.gid ?? context.uid}`;
  const lines = [`pigeonhole: the data directory ${dataDir} is not writable by ${who}: permission denied ${where}.`];
  if (context.inContainer) {
    lines.push(`  Give it to that user: chown -R ${owner || 'UID:GID'} the host folder mounted as ${dataDir},`);
    lines.push('  or run the container as the folder\'s owner: docker run --user "$(id -u):$(id -g)" ...');
  } else {
    lines.push(`  Give it to that user (chown -R ${owner || 'UID:GID'} ${dataDir}), or pick another folder: --data-dir PATH.`);
  }
  return lines.join('\n');
}

function inside(dir: string, file: string): boolean {
  const relative = path.relative(dir, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Whether an address to listen on is reachable from this machine only (a loopback address or localhost). */
function loopbackOnly(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  return name === 'localhost' || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/**
 * The loud start-up warning when the API keys of the sample configuration (public: they are in
 * the README) are served on an address other machines can reach, or null. A warning, not a
 * refusal: the Docker image listens on 0.0.0.0 with the sample configuration by design, for a
 * developer's own machine (docs/security.md, *A shared instance*).
 */
export function sampleKeysWarning(host: string, keys: readonly string[], sampleKeys: readonly string[]): string | null {
  const exposed = keys.filter((key) => sampleKeys.includes(key));
  if (loopbackOnly(host) || exposed.length === 0) return null;
  return [
    `WARNING: Pigeonhole listens on ${host}, which other machines can reach, with the sample configuration's public API keys: ${exposed.join(', ')}.`,
    "  Anyone who can reach this port and knows them (they are in the README) reads and sends every team's mail through /v1, login or not.",
    '  Give your own keys with --config FILE (PIGEONHOLE_CONFIG), or listen on this machine only: --host 127.0.0.1.',
  ].join('\n');
}
