import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { SAMPLE_CONFIG } from '../../server/config.ts';
import { spawnServer, type ServerProcess } from '../../test/support/server-process.ts';
import { Client } from './client.ts';

export interface Memory {
  /** Resident set size now, in bytes (VmRSS). */
  rss: number;
  /** Peak resident set size of the process so far, in bytes (VmHWM). */
  peak: number;
}

export interface Started {
  server: ServerProcess;
  client: Client;
  /** From spawn until the server printed its "listening on" line. */
  listeningMs: number;
  /** From spawn until GET /api/messages?limit=1 first answered 200. */
  firstReadMs: number;
  /** The `total` that first read reported. */
  stored: number;
  memory: Memory;
}

/**
 * Spawns the real server on `dataDir` and times its start-up: to the listening line, then to
 * the first successful read of the sandbox API. `sockets` sizes the client's keep-alive pool.
 */
export async function startServer(dataDir: string, sockets: number, signal: AbortSignal): Promise<Started> {
  const t0 = performance.now();
  // --smtp-port 0 so the run never depends on (or collides with) a fixed port; --max-messages 0
  // so retention does not prune the 100,000 captures the benchmark is about.
  const server = await spawnServer({ dataDir, configFile: SAMPLE_CONFIG, args: ['--smtp-port', '0', '--max-messages', '0'], compiled: true });
  const listeningMs = performance.now() - t0;
  const client = new Client(server.url, sockets);
  try {
    const stored = await firstRead(client, signal);
    const firstReadMs = performance.now() - t0;
    return { server, client, listeningMs, firstReadMs, stored, memory: await memoryOf(server) };
  } catch (error) {
    client.close();
    await server.stop();
    throw error;
  }
}

async function firstRead(client: Client, signal: AbortSignal): Promise<number> {
  for (;;) {
    const stored = await storedCount(client).catch(() => null);
    if (stored !== null) return stored;
    signal.throwIfAborted();
    await sleep(5);
  }
}

/** Asks the server how many captures it holds (GET /api/messages?limit=1). */
export async function storedCount(client: Client): Promise<number> {
  const reply = await client.get('/api/messages?limit=1');
  if (reply.status !== 200) throw new Error(`GET /api/messages: HTTP ${reply.status}`);
  return (JSON.parse(reply.body) as { total: number }).total;
}

/** Current and peak resident memory of the server process, from /proc (Linux). */
export async function memoryOf(server: ServerProcess): Promise<Memory> {
  const status = await readFile(`/proc/${server.child.pid}/status`, 'utf8');
  const kb = (field: string) => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    if (!match) throw new Error(`no ${field} in /proc/${server.child.pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

// /proc reports CPU time in USER_HZ ticks, which Linux fixes at 100 per second for user space.
const TICKS_PER_SECOND = 100;

/** CPU time (user + system, all threads) the server process has used so far, in milliseconds. */
export async function cpuTimeMs(server: ServerProcess): Promise<number> {
  const stat = await readFile(`/proc/${server.child.pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

export interface DiskUsage {
  /** Sum of file sizes. */
  bytes: number;
  /** Space the files and folders take on disk (allocated blocks). */
  allocated: number;
  files: number;
  folders: number;
}

/**
 * Walks a directory tree and adds up what it holds. The server keeps running while it walks (the
 * request log drops its oldest segment files as new entries come), so what vanishes on the way
 * is skipped.
 */
export async function diskUsage(dir: string): Promise<DiskUsage> {
  const usage: DiskUsage = { bytes: 0, allocated: 0, files: 0, folders: 0 };
  const gone = (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return null;
  };
  const walk = async (folder: string): Promise<void> => {
    const own = await stat(folder).catch(gone);
    if (!own) return;
    usage.folders++;
    usage.allocated += own.blocks * 512;
    const entries = (await readdir(folder, { withFileTypes: true }).catch(gone)) ?? [];
    await Promise.all(
      entries.map(async (entry) => {
        const full = path.join(folder, entry.name);
        if (entry.isDirectory()) return walk(full);
        const info = await stat(full).catch(gone);
        if (!info) return;
        usage.files++;
        usage.bytes += info.size;
        usage.allocated += info.blocks * 512;
      }),
    );
  };
  await walk(dir);
  return usage;
}
