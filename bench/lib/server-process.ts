import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository's root: where the servers are started from. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Output kept per process, to explain a failure (the tail). */
const OUTPUT_KEPT = 64 * 1024;
/** After a SIGTERM, how long a process gets before it is killed. */
const STOP_GRACE_MS = 10_000;

export interface Memory {
  /** Resident set size now, in bytes (VmRSS). */
  rss: number;
  /** Peak resident set size so far, in bytes (VmHWM). */
  peak: number;
}

/** Every process a benchmark started, so the harness can stop them on exit and show their output. */
const spawned = new Set<ChildServer>();

/** A server the benchmark started as its own Node process. */
export class ChildServer {
  private tail = '';

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.tail = (this.tail + chunk.toString('utf8')).slice(-OUTPUT_KEPT);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the process printed (the last 64 KB). */
  output(): string {
    return this.tail;
  }

  /** Current and peak resident memory, from /proc (Linux). */
  async memory(): Promise<Memory> {
    const status = await readFile(`/proc/${this.pid}/status`, 'utf8');
    const kb = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      if (!match) throw new Error(`no ${field} in /proc/${this.pid}/status`);
      return Number(match[1]) * 1024;
    };
    return { rss: kb('VmRSS'), peak: kb('VmHWM') };
  }

  /** CPU time (user + system, all threads) used so far, in milliseconds, from /proc (Linux). */
  async cpuMs(): Promise<number> {
    const stat = await readFile(`/proc/${this.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime and stime are fields 14 and 15,
    // in USER_HZ ticks, which Linux fixes at 100 per second for user space.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  /** Sends `signal`, then SIGKILL if it has not exited after the grace period; resolves with the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (!this.running) return this.child.exitCode;
    const exited = once(this.child, 'exit');
    this.child.kill(signal);
    const killer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      const [code] = (await exited) as [number | null];
      return code;
    } finally {
      clearTimeout(killer);
    }
  }
}

export interface SpawnOptions {
  /** Arguments to `node`. */
  args: string[];
  /** Resolves once the output so far matches this. */
  ready: RegExp;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Where it runs (the repository's root unless said). */
  cwd?: string;
}

/** Starts `node <args>` from the repository root and waits until its output matches `ready`. */
export async function spawnServer(
  name: string,
  { args, ready, env = benchEnv(), timeoutMs = 30_000, cwd = ROOT }: SpawnOptions,
): Promise<{ server: ChildServer; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = new ChildServer(name, child);
  spawned.add(server);
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const done = (error: Error | null, found?: RegExpExecArray) => {
      clearTimeout(timer);
      child.stdout!.off('data', check);
      child.stderr!.off('data', check);
      child.off('exit', onExit);
      child.off('error', onError);
      if (error) reject(error);
      else resolve(found!);
    };
    const check = () => {
      const found = ready.exec(server.output());
      if (found) done(null, found);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${name} exited (${signal ?? code}) before it was ready:\n${server.output()}`));
    const onError = (error: Error) => done(new Error(`${name} could not be started: ${error.message}`));
    const timer = setTimeout(() => done(new Error(`${name} was not ready after ${timeoutMs} ms:\n${server.output()}`)), timeoutMs);
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.once('exit', onExit);
    child.once('error', onError);
  });
  return { server, match };
}

export interface Pigeonhole {
  server: ChildServer;
  url: string;
  httpPort: number;
  smtpPort: number;
}

/** Node's flags on every launch of the server (package.json `start`, bin/pigeonhole.js, the Dockerfile; test/cli/launch-flags.test.ts). */
const NODE_FLAGS = ['--max-semi-space-size=4'];

/**
 * Starts Pigeonhole as `npm start` runs it (the compiled build in dist/, which the caller builds
 * first) on free ports, with the sample configuration and `extraArgs`. `timeoutMs`: how long it
 * may take to listen (a large data directory takes longer to open). `launch`: the checkout whose
 * build runs (bench:compare's other revisions) and Node flags added to npm start's (a profiler's).
 */
export async function spawnPigeonhole(
  dataDir: string,
  extraArgs: string[] = [],
  timeoutMs?: number,
  launch: { cwd?: string; nodeFlags?: string[] } = {},
): Promise<Pigeonhole> {
  const { server, match } = await spawnServer('pigeonhole', {
    cwd: launch.cwd,
    args: [...NODE_FLAGS, ...(launch.nodeFlags ?? []), 'dist/server/main.js', '--http-port', '0', '--smtp-port', '0', '--data-dir', dataDir, ...extraArgs],
    ready: /listening on http:\/\/[^:\s]+:(\d+)[\s\S]*SMTP capture: +smtp:\/\/[^:\s]+:(\d+)/,
    timeoutMs,
  });
  const httpPort = Number(match[1]);
  return { server, url: `http://127.0.0.1:${httpPort}`, httpPort, smtpPort: Number(match[2]) };
}

/**
 * The environment for the servers: this one without PIGEONHOLE_* settings, so a variable left
 * in the shell cannot change what is measured (retention, fsync, login...).
 */
function benchEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PIGEONHOLE_')));
}

/** A TCP port free on 127.0.0.1 right now (for servers that cannot listen on port 0 and say which port they got). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Stops every process still running (SIGTERM, then SIGKILL after the grace period). */
export async function stopAll(): Promise<void> {
  await Promise.all([...spawned].map((server) => server.stop().catch(() => undefined)));
}

/** Kills every process still running at once (the last resort on exit). */
export function killAll(): void {
  for (const server of spawned) if (server.running) server.child.kill('SIGKILL');
}

/** Every process started so far, running or not. */
export function spawnedServers(): ChildServer[] {
  return [...spawned];
}
