import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpClient } from './http-client.ts';
import { captureBody } from './search-corpus.ts';
import { spawnPigeonhole } from './server-process.ts';

export interface FirstSend {
  /** Spawn to the first POST /v1/email/send/ answered 200 (the capture on disk). */
  ms: number;
  /** Server CPU time (user + system) until then. */
  cpuMs: number;
  /** Resident memory right after it. */
  rss: number;
  /** Captures the server holds then, the probe included (GET /api/messages?limit=1). */
  stored: number;
}

/**
 * Starts Pigeonhole on `dataDir` as `npm start` runs it, times it to its first /v1 send stored
 * (asked again every 5 ms from spawn; `probe` names the corpus capture sent), then stops it.
 */
export async function timeFirstSend(dataDir: string, extraArgs: string[], probe: number, signal: AbortSignal, timeoutMs?: number): Promise<FirstSend> {
  const t0 = performance.now();
  const pigeonhole = await spawnPigeonhole(dataDir, extraArgs, timeoutMs);
  const client = new HttpClient(pigeonhole.url, 1, { Authorization: 'Api-Key bulk-key' });
  try {
    for (;;) {
      const reply = await client.post('/v1/email/send/', captureBody(probe)).catch(() => null);
      if (reply?.status === 200) break;
      signal.throwIfAborted();
      await sleep(5);
    }
    const ms = performance.now() - t0;
    const cpuMs = await pigeonhole.server.cpuMs();
    const { rss } = await pigeonhole.server.memory();
    const listed = await client.get('/api/messages?limit=1');
    return { ms, cpuMs, rss, stored: (JSON.parse(listed.body) as { total: number }).total };
  } finally {
    client.close();
    await pigeonhole.server.stop();
  }
}
