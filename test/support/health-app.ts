import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../server/app.ts';
import { SAMPLE_CONFIG } from '../../server/config.ts';
import { SandboxClock } from '../../server/domain/time/clock.ts';
import { createSandbox, type Sandbox } from '../../server/domain/sandbox.ts';
import { createSandboxMetrics, type Metrics } from '../../server/metrics.ts';
import { Readiness } from '../../server/readiness.ts';
import { loadSandboxConfig } from '../../server/domain/directory/sandbox-config.ts';
import type { DiskUsage } from '../../server/storage/disk/disk-usage.ts';
import { openStore, type OpenStore } from '../../server/storage/open-store.ts';

export interface ObservedApp {
  url: string;
  server: Server;
  store: OpenStore;
  sandbox: Sandbox;
  readiness: Readiness;
  metrics: Metrics;
  diskUsage: DiskUsage;
  destroy(): Promise<void>;
}

/**
 * The real app wired as server/main.ts wires it (readiness checks for storage and the HTTP
 * listener, metrics fed by the domain events and a disk-usage cache), on a temp directory.
 */
export async function startObservedApp(options: { diskCacheMs?: number } = {}): Promise<ObservedApp> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-observed-'));
  const store = await openStore({ dataDir });
  let storeOpen = true;
  const sandbox = createSandbox({ store, config: loadSandboxConfig(SAMPLE_CONFIG), clock: new SandboxClock() });
  const { metrics, diskUsage } = createSandboxMetrics({ sandbox, store, diskCacheMs: options.diskCacheMs });
  const readiness = new Readiness();
  const app = createApp({
    sandbox,
    maxBodySize: 1024 * 1024,
    uploadDir: path.join(dataDir, 'tmp'),
    logger: { error: (m, e) => console.error(m, e) },
    readiness,
    metrics,
  });
  const server = createServer(app.callback());
  readiness.add('storage', () => storeOpen);
  readiness.add('http', () => server.listening);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    store,
    sandbox,
    readiness,
    metrics,
    diskUsage,
    async destroy() {
      server.closeAllConnections();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      metrics.close();
      await sandbox.close();
      await store.close();
      storeOpen = false;
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One sample of the exposition text: `name{labels} value`, labels in any order. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) found[pair[1]!] = pair[2]!;
    if (Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(match[3]);
  }
  return undefined;
}
