import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from './client.ts';
import { spawnPigeonhole, type Memory, type Pigeonhole } from './server-process.ts';

export type { Memory } from './server-process.ts';

export interface Started {
  pigeonhole: Pigeonhole;
  client: Client;
  /** From spawn until the server printed its "listening on" line. */
  listeningMs: number;
  /** From spawn until GET /api/messages?limit=1 first answered 200. */
  firstReadMs: number;
  /** From spawn until a POST /v1/email/send/ (the probe send) first answered 200: when it serves sends. */
  firstV1Ms: number;
  /** Server CPU time (user + system) spent from spawn to that answer. */
  firstV1CpuMs: number;
  /** The `total` that first read reported. */
  stored: number;
  memory: Memory;
}

/**
 * Spawns the real server (compiled, as `npm start` runs it) on `dataDir` and times its
 * start-up: to the listening line, then, asked side by side from then on, to the first
 * successful read of the sandbox API and to the first /v1 send stored (capture `probe` of the
 * corpus: one more capture for the caller to count). `sockets` sizes the client's keep-alive
 * pool; `timeoutMs` bounds the wait for the listening line.
 */
export async function startServer(dataDir: string, sockets: number, signal: AbortSignal, probe: number, timeoutMs?: number): Promise<Started> {
  const t0 = performance.now();
  // --max-messages 0 so retention does not prune the captures the benchmark is about.
  const pigeonhole = await spawnPigeonhole(dataDir, ['--max-messages', '0'], timeoutMs);
  const listeningMs = performance.now() - t0;
  const client = new Client(pigeonhole.url, sockets);
  try {
    let firstV1CpuMs = 0;
    const [[stored, firstReadMs], firstV1Ms] = await Promise.all([
      firstRead(client, signal).then((count) => [count, performance.now() - t0] as const),
      firstSend(client, probe, signal).then(async () => {
        const at = performance.now() - t0;
        firstV1CpuMs = await pigeonhole.server.cpuMs();
        return at;
      }),
    ]);
    return { pigeonhole, client, listeningMs, firstReadMs, firstV1Ms, firstV1CpuMs, stored, memory: await pigeonhole.server.memory() };
  } catch (error) {
    client.close();
    await pigeonhole.server.stop();
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

async function firstSend(client: Client, n: number, signal: AbortSignal): Promise<void> {
  for (;;) {
    const sent = await client.send(n).then(
      () => true,
      () => false,
    );
    if (sent) return;
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
