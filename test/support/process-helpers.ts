import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SAMPLE_CONFIG } from '../../server/config.ts';
import { read } from './app.ts';
import { spawnServer, type ServerProcess, type SpawnOptions } from './server-process.ts';

/**
 * Bookkeeping for tests that drive the real server process: every temp directory and every
 * process they start is tracked so `cleanup()` (in afterEach/afterAll) kills what is still
 * running and deletes what was created, whatever the test did before failing.
 */
export function processTracker() {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  return {
    async tempDir(prefix: string): Promise<string> {
      const dir = await mkdtemp(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async spawn(options: SpawnOptions): Promise<ServerProcess> {
      const server = await spawnServer(options);
      servers.push(server);
      return server;
    },
    /** Kills every process still running (before a file system they use is unmounted). */
    async stopAll(): Promise<void> {
      await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
    },
    async cleanup(): Promise<void> {
      await Promise.all(servers.splice(0).map((server) => server.stop('SIGKILL')));
      await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
    },
  };
}

/** The sample configuration as JSON, to be changed and written to a temp file. */
export async function sampleConfig(): Promise<SampleConfigJson> {
  return JSON.parse(await readFile(SAMPLE_CONFIG, 'utf8')) as SampleConfigJson;
}

export interface SampleConfigJson {
  teams: { id: string; senders: Record<string, unknown>[]; [key: string]: unknown }[];
  flows: unknown[];
  [key: string]: unknown;
}

export async function writeConfig(dir: string, config: unknown): Promise<string> {
  const file = path.join(dir, 'config.json');
  await writeFile(file, JSON.stringify(config, null, 2));
  return file;
}

/** Every file under `dir` whose name ends in .json, skipping names that start with "." (temp files). */
export async function jsonFilesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await jsonFilesUnder(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
  }
  return out;
}

export interface MessageSummary {
  id: string;
  recipient: string;
  subject: string;
  attachment_count: number;
}

/** Every capture the sandbox API lists (all pages), newest first, and the reported total. */
export async function allMessages(base: string): Promise<{ total: number; messages: MessageSummary[] }> {
  const messages: MessageSummary[] = [];
  let total = 0;
  for (let offset = 0; ; offset += 500) {
    const page = await read(await fetch(`${base}/api/messages?limit=500&offset=${offset}`));
    if (page.status !== 200) throw new Error(`GET /api/messages: ${page.status} ${page.text}`);
    const body = page.body as { total: number; messages: MessageSummary[] };
    total = body.total;
    messages.push(...body.messages);
    if (body.messages.length < 500) return { total, messages };
  }
}

/** Runs `task` over `items` with at most `width` running at once. */
export async function inParallel<T>(items: readonly T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

export const WIRE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
