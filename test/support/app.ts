import { afterAll, beforeAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../../server/app.ts';
import { createSandboxMetrics } from '../../server/metrics.ts';
import { SandboxClock } from '../../server/domain/flows/clock.ts';
import { createSandbox, type Sandbox } from '../../server/domain/sandbox.ts';
import { loadSandboxConfig, parseSandboxConfig, type SandboxConfig } from '../../server/domain/directory/sandbox-config.ts';
import { SAMPLE_CONFIG } from '../../server/config.ts';
import { Readiness } from '../../server/readiness.ts';
import { openStore, type Store, type StoreOptions } from '../../server/storage/store.ts';
import { domainFrames, helloFrame } from '../../server/realtime/frames.ts';
import { attachRealtime, type Realtime } from '../../server/realtime/realtime.ts';
import { ParserPool } from '../../server/smtp/parser-pool.ts';
import { createSmtpServer, type SmtpHooks, type SmtpTls } from '../../server/smtp/smtp-server.ts';
import { openAccess, upgradeCheck, type Access } from '../../server/http/access.ts';

export interface TestServer {
  url: string;
  /** ws://…/api/events on the HTTP port. */
  wsUrl: string;
  /** The SMTP capture's port on 127.0.0.1. */
  smtpPort: number;
  realtime: Realtime;
  dataDir: string;
  store: Store;
  sandbox: Sandbox;
  /** Closes the server and the store, keeping the data directory. */
  close(): Promise<void>;
  /** Closes and deletes the data directory. */
  destroy(): Promise<void>;
}

export interface TestServerOptions {
  dataDir?: string;
  /** Store settings (pack size, an injected file system, ...). */
  store?: Omit<StoreOptions, 'dataDir'>;
  /** Changes applied to the sample configuration before it is validated. */
  config?: (sample: SandboxConfig) => unknown;
  maxBodySize?: number;
  /** The real-time source under the sandbox clock (defaults to Date.now). */
  now?: () => number;
  /** Where the domain reports failures of scheduled work (defaults to console.error). */
  log?: (message: string, error?: unknown) => void;
  smtp?: { authRequired?: boolean; maxSize?: number; hooks?: SmtpHooks; tls?: SmtpTls };
  /** The browser guard's policy and the login, for the HTTP routes and the live push (the defaults without it). */
  access?: Access;
  realtime?: { heartbeatMs?: number; maxBufferedBytes?: number; onClients?: (count: number) => void };
  /** spamd for the message check (--spamassassin). */
  spamassassin?: { host: string; port: number };
}

/**
 * The real app on a temporary data directory: HTTP (with the WebSocket push at /api/events)
 * and SMTP capture, each on a free port of 127.0.0.1. Besides `url`, the result has `wsUrl`,
 * `smtpPort` (send with test/support/smtp.ts) and `realtime` (its `clients` count); options
 * `smtp` (authRequired, maxSize, hooks, tls), `realtime` (heartbeatMs, maxBufferedBytes) and
 * `access` (allowed hosts and origins, login) tune them.
 */
export async function startApp(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'pigeonhole-test-')));
  const sample = loadSandboxConfig(SAMPLE_CONFIG);
  const config = options.config ? parseSandboxConfig(options.config(structuredClone(sample)), 'test config') : sample;
  const store = await openStore({ dataDir, ...options.store });
  const logger = { error: (message: string, error?: unknown) => console.error(message, error) };
  const parser = new ParserPool();
  const sandbox = createSandbox({ store, config, clock: new SandboxClock(options.now), log: options.log, parseRaw: parser });
  const { metrics } = createSandboxMetrics({ sandbox, store, processMetrics: false });
  const readiness = new Readiness();
  readiness.add('storage', () => store.health.state);
  const app = createApp({
    sandbox,
    metrics,
    readiness,
    maxBodySize: options.maxBodySize ?? 25 * 1024 * 1024,
    uploadDir: path.join(dataDir, 'tmp'),
    logger,
    access: options.access,
    spamassassin: options.spamassassin ?? null,
  });
  const server: Server = createServer(app.callback());
  const realtime = attachRealtime(server, sandbox.events, {
    hello: helloFrame(sandbox, () => smtp.port),
    frames: domainFrames(sandbox),
    admit: upgradeCheck(options.access ?? openAccess()),
    ...options.realtime,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const smtp = createSmtpServer({
    sandbox,
    maxSize: options.smtp?.maxSize ?? 25 * 1024 * 1024,
    authRequired: options.smtp?.authRequired ?? false,
    tls: options.smtp?.tls,
    hooks: options.smtp?.hooks,
    logger,
    closeTimeoutMs: 200,
  });
  const smtpPort = await smtp.listen(0, '127.0.0.1');
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await realtime.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    metrics.close();
    await Promise.all([new Promise<void>((resolve) => server.close(() => resolve())), smtp.close()]);
    await sandbox.close();
    await parser.close();
    await store.close();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}/api/events`,
    smtpPort,
    realtime,
    dataDir,
    store,
    sandbox,
    close,
    async destroy() {
      await close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** fetch with an API key and a JSON body. */
export function api(base: string, key: string | null) {
  const headers = (extra: Record<string, string> = {}) => ({ ...(key === null ? {} : { Authorization: `Api-Key ${key}` }), ...extra });
  return {
    get: (p: string, extra?: Record<string, string>) => fetch(base + p, { headers: headers(extra), redirect: 'manual' }),
    post: (p: string, body: unknown, extra?: Record<string, string>) =>
      fetch(base + p, { method: 'POST', headers: headers({ 'Content-Type': 'application/json', ...extra }), body: JSON.stringify(body) }),
    form: (p: string, body: Record<string, string | string[]>, extra?: Record<string, string>) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(body)) for (const item of Array.isArray(v) ? v : [v]) params.append(k, item);
      return fetch(base + p, { method: 'POST', headers: headers(extra), body: params });
    },
    multipart: (p: string, body: FormData, extra?: Record<string, string>) => fetch(base + p, { method: 'POST', headers: headers(extra), body }),
    request: (method: string, p: string, init: RequestInit = {}) =>
      fetch(base + p, { ...init, method, headers: headers(init.headers as Record<string, string>), redirect: 'manual' }),
  };
}

/** Status, headers and parsed JSON body (or null for an empty body). */
export async function read(response: Response): Promise<{ status: number; body: unknown; headers: Headers; text: string }> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: text === '' ? null : JSON.parse(text) };
}

/**
 * A fresh app for one test file: started before its tests, destroyed after. `app.v1` calls
 * /v1 with the given key.
 */
export function useApp(options: TestServerOptions = {}, key = 'test-key') {
  const app = {} as { server: TestServer; v1: ReturnType<typeof api>; url: string };
  beforeAll(async () => {
    app.server = await startApp(options);
    app.url = app.server.url;
    app.v1 = api(app.server.url, key);
  });
  afterAll(() => app.server.destroy());
  return app;
}
