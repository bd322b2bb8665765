import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from './app.ts';
import type { Config } from './config.ts';
import { linkTargetPolicy } from './domain/check/link-targets.ts';
import { SandboxClock } from './domain/time/clock.ts';
import { startRetention, type Retention } from './domain/messages/retention.ts';
import { createSandbox, type Sandbox } from './domain/sandbox.ts';
import { upgradeCheck, type Access } from './http/access.ts';
import { createLogin } from './http/basic-auth.ts';
import { browserPolicy } from './http/browser-guard.ts';
import type { Logger } from './http/errors.ts';
import { createSandboxMetrics, type Metrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import { domainFrames, helloFrame } from './realtime/frames.ts';
import { attachRealtime, type Realtime } from './realtime/realtime.ts';
import { ParserPool } from './smtp/parser-pool.ts';
import { createSmtpServer, type SmtpHooks, type SmtpTls } from './smtp/smtp-server.ts';
import { smtpRelay } from './smtp/relay.ts';
import { autoCertificate, certificateNames, type TlsCertificate } from './smtp/tls-certificate.ts';
import { openStore, type OpenStore, type StoreOptions } from './storage/open-store.ts';

/** What the entry point and the tests may set beside the configuration. */
export interface PigeonholeOptions {
  /** Store settings beyond the data directory and --fsync (pack size, an injected file system, ...). */
  store?: Omit<StoreOptions, 'dataDir' | 'fsync'>;
  /** The real-time source under the sandbox clock (default Date.now). */
  now?: () => number;
  /** Where the domain reports failures of work nobody waits for (default console.error). */
  log?: (message: string, error?: unknown) => void;
  /** Where the HTTP and SMTP servers report unexpected errors (default console.error). */
  logger?: Logger;
  /** Where what was done on request is logged, each release to a real inbox (default console.log). */
  note?: (line: string) => void;
  /** The browser guard and the login; default: built from the configuration. */
  access?: Access;
  /** SMTP TLS with its certificate given here rather than in the configuration. */
  smtpTls?: SmtpTls;
  /** Seams beside the metrics' own: each SMTP session, each refusal. */
  smtpHooks?: SmtpHooks;
  /** How long SMTP sessions in flight get at close (default 5 s). */
  smtpCloseTimeoutMs?: number;
  realtime?: { heartbeatMs?: number; maxBufferedBytes?: number; onClients?: (count: number) => void };
  /** Node's process metrics in /metrics (default true; one registry per process is enough in tests). */
  processMetrics?: boolean;
}

/** The SMTP certificate in use, for the start-up banner. */
type SmtpCertificate = Pick<SmtpTls, 'cert' | 'key'> & Partial<Pick<TlsCertificate, 'file' | 'created' | 'fingerprint'>>;

/** A whole Pigeonhole: built, not yet listening. */
export interface Pigeonhole {
  readonly config: Config;
  /** The store with storage's own parts (tests use them); the domain is given it as a `Store`. */
  readonly store: OpenStore;
  readonly sandbox: Sandbox;
  readonly metrics: Metrics;
  readonly readiness: Readiness;
  readonly realtime: Realtime;
  readonly access: Access;
  /** The SMTP certificate, or null without TLS. */
  readonly tls: SmtpCertificate | null;
  /** The ports listened on (a 0 in the configuration is the free port chosen), once listening. */
  readonly httpPort: number | null;
  readonly smtpPort: number | null;
  /** Starts the HTTP and SMTP listeners, then retention. */
  listen(): Promise<{ httpPort: number; smtpPort: number }>;
  /**
   * Stops: not ready from then on, live-push clients told the server is going away, no new
   * connections, requests and SMTP sessions in flight answered (HTTP connections still busy after
   * `drainMs` are cut), then retention, metrics, the domain, the parser and the store closed
   * (every message accepted is stored).
   */
  close(options?: { drainMs?: number }): Promise<void>;
}

/**
 * The composition root: builds the store, the domain, the parser pool, the metrics and the
 * readiness checks, the HTTP app and server, the live push, SMTP capture and retention from one
 * configuration. `server/main.ts` and the tests both start Pigeonhole through it.
 */
export async function createPigeonhole(config: Config, options: PigeonholeOptions = {}): Promise<Pigeonhole> {
  // A message alone (an SMTP limit's log line) is printed without a trailing "undefined".
  const logger = options.logger ?? { error: (message: string, error?: unknown) => console.error(message, ...(error === undefined ? [] : [error])) };
  const store = await openStore({ ...options.store, dataDir: config.dataDir, fsync: config.fsync });
  let storeOpen = true;
  const parser = new ParserPool();
  const sandbox = createSandbox({
    store,
    config: config.sandbox,
    clock: new SandboxClock(options.now),
    log: options.log,
    parseRaw: parser,
    templatesDir: config.templates,
    relay: config.relay ? { transport: smtpRelay(config.relay), allow: config.relayAllow } : null,
    note: options.note,
  });
  const { metrics, diskUsage } = createSandboxMetrics({ sandbox, store, processMetrics: options.processMetrics });
  const readiness = new Readiness();
  const access: Access = options.access ?? {
    policy: browserPolicy({ hosts: config.allowedHosts, origins: config.allowedOrigins, listenHost: config.host }),
    login: createLogin(config.auth ?? (config.authUsers.length > 0 ? { users: config.authUsers } : null)),
  };
  const app = createApp({
    sandbox,
    maxBodySize: config.maxBodySize,
    maxApiBodySize: config.maxApiBodySize,
    maxAttachments: config.maxAttachments,
    uploadDir: path.join(config.dataDir, 'tmp'),
    logger,
    readiness,
    metrics,
    access,
    spamassassin: config.spamassassin,
    linkTargets: linkTargetPolicy({ listenHost: config.host, allowPrivate: config.linkCheckPrivate, allow: config.linkCheckAllow }),
  });
  const server = createServer(app.callback());
  // An idle keep-alive connection is closed by the client first, never under a request it is
  // sending: Node's 5 s default races clients that keep sockets ~4 s (undici) or ignore the hint
  // (urllib3), and a client whose own event loop was busy past 5 s gets ECONNRESET on its next
  // request. Shutdown closes idle connections itself, so a longer timeout never delays a stop.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const realtime = attachRealtime(server, sandbox.events, {
    hello: helloFrame(sandbox, () => smtp.port),
    frames: domainFrames(sandbox),
    admit: upgradeCheck(access),
    ...options.realtime,
    onClients: (count) => {
      metrics.websocketClients(count);
      options.realtime?.onClients?.(count);
    },
  });
  const tls = options.smtpTls ?? (await smtpCertificate(config));
  const smtp = createSmtpServer({
    sandbox,
    maxSize: config.smtpMaxSize,
    authRequired: config.smtpAuthRequired,
    maxRecipients: config.smtpMaxRecipients,
    maxConnections: config.smtpMaxConnections,
    clientLimits: {
      perClient: config.smtpMaxClientSessions,
      reserved: config.smtpReservedSessions,
      lifetimeMs: config.smtpSessionLifetimeMs,
      junkCommands: config.smtpJunkCommandLimit,
    },
    tls: options.smtpTls ?? (tls && { cert: tls.cert, key: tls.key, implicit: config.smtpTlsImplicit, required: config.smtpRequireTls }),
    logger,
    hooks: {
      session: () => {
        metrics.smtpSession();
        options.smtpHooks?.session?.();
      },
      rejected: (reason) => {
        metrics.smtpRejection(reason);
        options.smtpHooks?.rejected?.(reason);
      },
    },
    closeTimeoutMs: options.smtpCloseTimeoutMs,
  });
  readiness.add('storage', () => (storeOpen ? store.health.state : 'closed'));
  readiness.add('http', () => server.listening);
  readiness.add('smtp', () => smtp.listening);

  let retention: Retention | null = null;
  let closing: Promise<void> | undefined;
  return {
    config,
    store,
    sandbox,
    metrics,
    readiness,
    realtime,
    access,
    tls,
    get httpPort() {
      return server.listening ? (server.address() as AddressInfo).port : null;
    },
    get smtpPort() {
      return smtp.port;
    },
    async listen() {
      await listen(server, config.httpPort, config.host);
      const smtpPort = await smtp.listen(config.smtpPort, config.host);
      retention = startRetention({
        messages: sandbox.messages,
        events: sandbox.events,
        clock: sandbox.clock,
        maxMessages: config.maxMessages,
        maxAgeMs: config.maxAgeMs,
        pruneRecipients: () => sandbox.pruneRecipients(),
      });
      // The first size walk of a large store takes a while: start it now, not on the first scrape.
      void diskUsage.bytes().catch(() => undefined);
      return { httpPort: (server.address() as AddressInfo).port, smtpPort };
    },
    close({ drainMs = 5000 } = {}) {
      closing ??= (async () => {
        readiness.stop();
        await realtime.close();
        await Promise.all([closeHttp(server, drainMs), smtp.close()]);
        await retention?.close();
        metrics.close();
        await sandbox.close();
        await parser.close();
        await store.close();
        storeOpen = false;
      })();
      return closing;
    },
  };
}

/** The SMTP certificate: the files given, the automatic one (made or kept in the data directory), or none. */
async function smtpCertificate(config: Config): Promise<SmtpCertificate | null> {
  if (config.smtpTlsCert === 'auto') return autoCertificate(config.dataDir, certificateNames(config.host, config.allowedHosts));
  return config.smtpTlsFiles;
}

/**
 * Stops accepting connections and resolves once every request in flight has been answered.
 * Keep-alive connections are closed as soon as they fall idle; any still busy after `drainMs`
 * are cut.
 */
function closeHttp(server: Server, drainMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const idle = setInterval(() => server.closeIdleConnections(), 25);
    const force = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearInterval(idle);
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
