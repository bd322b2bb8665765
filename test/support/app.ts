import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../../server/config.ts';
import type { RelayTarget } from '../../server/config/option-values.ts';
import type { Sandbox } from '../../server/domain/sandbox.ts';
import { parseSandboxConfig, type SandboxConfig } from '../../server/domain/directory/sandbox-config.ts';
import { createPigeonhole } from '../../server/pigeonhole.ts';
import type { Store, StoreOptions } from '../../server/storage/store.ts';
import type { Realtime } from '../../server/realtime/realtime.ts';
import type { SmtpHooks, SmtpTls } from '../../server/smtp/smtp-server.ts';
import type { Access } from '../../server/http/access.ts';

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
  smtp?: { authRequired?: boolean; maxSize?: number; maxRecipients?: number; maxConnections?: number; hooks?: SmtpHooks; tls?: SmtpTls };
  /** The browser guard's policy and the login, for the HTTP routes and the live push (the defaults without it). */
  access?: Access;
  realtime?: { heartbeatMs?: number; maxBufferedBytes?: number; onClients?: (count: number) => void };
  /** spamd for the message check (--spamassassin). */
  spamassassin?: { host: string; port: number };
  /** The address to listen on (--host, default 127.0.0.1); the app is still reached on 127.0.0.1. */
  host?: string;
  /** --link-check-private and --link-check-allow. */
  linkCheck?: { private?: boolean; allow?: string[] };
  /** --templates: the folder of template files watched. */
  templates?: string;
  /** Where each release is logged (default console.log). */
  note?: (line: string) => void;
  /** --relay and --relay-allow: where releases go, and to whom. */
  relay?: { target: RelayTarget; allow?: string[] };
  /** More command-line flags, read as the server reads them (`['--max-attachments', '3']`). */
  flags?: string[];
  /** Where the HTTP and SMTP servers report (default console.error). */
  logger?: { error(message: string, error?: unknown): void };
}

/**
 * The real Pigeonhole (server/pigeonhole.ts, as server/main.ts starts it) on a temporary data
 * directory: HTTP (with the WebSocket push at /api/events) and SMTP capture, each on a free port
 * of 127.0.0.1, no retention. Besides `url`, the result has `wsUrl`,
 * `smtpPort` (send with test/support/smtp.ts) and `realtime` (its `clients` count); options
 * `smtp` (authRequired, maxSize, maxRecipients, maxConnections, hooks, tls), `realtime` (heartbeatMs, maxBufferedBytes) and
 * `access` (allowed hosts and origins, login) tune them.
 */
export async function startApp(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'pigeonhole-test-')));
  // The configuration the server would read with these flags and no environment; no retention.
  const base = loadConfig(
    ['--data-dir', dataDir, '--host', options.host ?? '127.0.0.1', '--http-port', '0', '--smtp-port', '0', '--max-messages', '0', ...(options.flags ?? [])],
    {},
  );
  const config: Config = {
    ...base,
    sandbox: options.config ? parseSandboxConfig(options.config(structuredClone(base.sandbox) as SandboxConfig), 'test config') : base.sandbox,
    maxBodySize: options.maxBodySize ?? base.maxBodySize,
    smtpMaxSize: options.smtp?.maxSize ?? base.smtpMaxSize,
    smtpAuthRequired: options.smtp?.authRequired ?? false,
    smtpMaxRecipients: options.smtp?.maxRecipients ?? base.smtpMaxRecipients,
    smtpMaxConnections: options.smtp?.maxConnections ?? base.smtpMaxConnections,
    spamassassin: options.spamassassin ?? null,
    linkCheckPrivate: options.linkCheck?.private ?? false,
    linkCheckAllow: options.linkCheck?.allow ?? [],
    templates: options.templates ?? null,
    relay: options.relay?.target ?? null,
    relayAllow: options.relay?.allow ?? [],
  };
  const pigeonhole = await createPigeonhole(config, {
    store: options.store,
    now: options.now,
    log: options.log,
    note: options.note,
    logger: options.logger,
    access: options.access,
    smtpTls: options.smtp?.tls,
    smtpHooks: options.smtp?.hooks,
    smtpCloseTimeoutMs: 200,
    realtime: options.realtime,
    processMetrics: false,
  });
  const { httpPort, smtpPort } = await pigeonhole.listen();
  const close = () => pigeonhole.close({ drainMs: 0 });
  return {
    url: `http://127.0.0.1:${httpPort}`,
    wsUrl: `ws://127.0.0.1:${httpPort}/api/events`,
    smtpPort,
    realtime: pigeonhole.realtime,
    dataDir,
    store: pigeonhole.store,
    sandbox: pigeonhole.sandbox,
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
