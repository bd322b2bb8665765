#!/usr/bin/env node
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from './app.ts';
import { upgradeCheck, type Access } from './http/access.ts';
import { createLogin } from './http/basic-auth.ts';
import { browserPolicy } from './http/browser-guard.ts';
import { runCli } from './cli.ts';
import type { Config } from './config.ts';
import { SandboxClock } from './domain/flows/clock.ts';
import { startRetention } from './domain/messages/retention.ts';
import { createSandbox } from './domain/sandbox.ts';
import { boundHeapGrowth } from './memory.ts';
import { createSandboxMetrics } from './metrics.ts';
import { Readiness } from './readiness.ts';
import { domainFrames, helloFrame } from './realtime/frames.ts';
import { attachRealtime } from './realtime/realtime.ts';
import { ParserPool } from './smtp/parser-pool.ts';
import { createSmtpServer, type SmtpTls } from './smtp/smtp-server.ts';
import { autoCertificate, certificateNames } from './smtp/tls-certificate.ts';
import { openStore } from './storage/store.ts';

/** How long requests in flight get to finish after SIGTERM before their connections are cut. */
const DRAIN_MS = 5000;
/** Past this the process exits 1 whatever is still running. */
const SHUTDOWN_LIMIT_MS = 10_000;

/**
 * The only entry point (`npm start`, `bin/pigeonhole`, the Docker image): reads argv and the
 * environment, wires the pieces, listens, and stops cleanly on SIGTERM/SIGINT.
 */
async function serve(config: Config): Promise<void> {
  boundHeapGrowth();
  const uploadDir = path.join(config.dataDir, 'tmp');
  const store = await openStore({ dataDir: config.dataDir, fsync: config.fsync });
  let storeOpen = true;
  const parser = new ParserPool();
  const sandbox = createSandbox({ store, config: config.sandbox, clock: new SandboxClock(), parseRaw: parser });
  const { metrics, diskUsage } = createSandboxMetrics({ sandbox, store });
  const readiness = new Readiness();
  const logger = { error: (message: string, error?: unknown) => console.error(message, error) };
  const access: Access = {
    policy: browserPolicy({ hosts: config.allowedHosts, origins: config.allowedOrigins, listenHost: config.host }),
    login: createLogin(config.auth ?? (config.authUsers.length > 0 ? { users: config.authUsers } : null)),
  };
  const app = createApp({ sandbox, maxBodySize: config.maxBodySize, uploadDir, logger, readiness, metrics, access, spamassassin: config.spamassassin });
  const server = createServer(app.callback());
  const realtime = attachRealtime(server, sandbox.events, {
    hello: helloFrame(sandbox, () => smtp.port),
    frames: domainFrames(sandbox),
    onClients: (count) => metrics.websocketClients(count),
    admit: upgradeCheck(access),
  });
  const tls = await smtpTls(config);
  const smtp = createSmtpServer({
    sandbox,
    maxSize: config.smtpMaxSize,
    authRequired: config.smtpAuthRequired,
    tls: tls && { cert: tls.cert, key: tls.key, implicit: config.smtpTlsImplicit, required: config.smtpRequireTls },
    logger,
    hooks: { session: () => metrics.smtpSession(), rejected: (reason) => metrics.smtpRejection(reason) },
  });
  readiness.add('storage', () => (storeOpen ? store.health.state : 'closed'));
  readiness.add('http', () => server.listening);
  readiness.add('smtp', () => smtp.listening);
  await listen(server, config.httpPort, config.host);
  const smtpPort = await smtp.listen(config.smtpPort, config.host);

  const retention = startRetention({
    messages: sandbox.messages,
    events: sandbox.events,
    clock: sandbox.clock,
    maxMessages: config.maxMessages,
    maxAgeMs: config.maxAgeMs,
    pruneRecipients: () => sandbox.pruneRecipients(),
  });
  // The first size walk of a large store takes a while: start it now, not on the first scrape.
  void diskUsage.bytes().catch(() => undefined);

  const { port } = server.address() as AddressInfo;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const hostname = shown.includes(':') ? `[${shown}]` : shown;
  const keys = config.sandbox.teams.flatMap((t) => t.senders.filter((s) => !s.revoked).map((s) => `${s.apiKey} (${s.name || s.id})`));
  const smtpNotes = [
    tls && (config.smtpTlsImplicit ? 'implicit TLS' : config.smtpRequireTls ? 'STARTTLS required' : 'STARTTLS'),
    config.smtpAuthRequired && 'AUTH required: an API key as the password',
  ].filter(Boolean);
  console.log(`Pigeonhole listening on http://${hostname}:${port}${access.login ? ' (login required)' : ''}`);
  console.log(`  SMTP capture:   ${config.smtpTlsImplicit ? 'smtps' : 'smtp'}://${hostname}:${smtpPort}${smtpNotes.length > 0 ? ` (${smtpNotes.join('; ')})` : ''}`);
  if (tls?.file) console.log(`  TLS certificate: ${tls.file} (${tls.created ? 'made now' : 'kept'}, self-signed, SHA-256 ${tls.fingerprint})`);
  console.log(`  data directory: ${store.dataDir} (${sandbox.messages.count()} captures)`);
  console.log(`  configuration:  ${config.configFile}`);
  console.log(`  API keys:       ${keys.join(', ')}`);

  onStopSignals(async () => {
    // Not ready from now on; live-push clients are told the server is going away; stop
    // accepting; let requests and SMTP sessions in flight get their answer (every message
    // accepted is stored).
    readiness.stop();
    await realtime.close();
    await Promise.all([closeHttp(server, DRAIN_MS), smtp.close()]);
    await retention.close();
    metrics.close();
    await sandbox.close();
    await parser.close();
    await store.close();
    storeOpen = false;
  });
}

/** The SMTP certificate: the files given, the automatic one (made or kept in the data directory), or none. */
async function smtpTls(config: Config): Promise<(Pick<SmtpTls, 'cert' | 'key'> & { file?: string; created?: boolean; fingerprint?: string }) | null> {
  if (config.smtpTlsCert === 'auto') return autoCertificate(config.dataDir, certificateNames(config.host, config.allowedHosts));
  return config.smtpTlsFiles;
}

/**
 * SIGTERM or SIGINT: run `stop` once and exit 0 (1 if it failed or ran past the limit).
 * A second signal exits 1 at once, for a person who does not want to wait.
 */
function onStopSignals(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      console.error(`Pigeonhole: ${signal} again, exiting without finishing`);
      process.exit(1);
    }
    stopping = true;
    console.log(`Pigeonhole stopping (${signal})`);
    setTimeout(() => {
      console.error(`Pigeonhole: not stopped after ${SHUTDOWN_LIMIT_MS} ms, exiting`);
      process.exit(1);
    }, SHUTDOWN_LIMIT_MS).unref();
    stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Pigeonhole: failed to stop cleanly', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * Stops accepting connections and resolves once every request in flight has been answered.
 * Keep-alive connections are closed as soon as they fall idle; any still busy after `drainMs`
 * are cut.
 */
function closeHttp(server: Server, drainMs: number): Promise<void> {
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

runCli(process.argv.slice(2), process.env, serve).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (error: unknown) => {
    const e = error as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') console.error(`pigeonhole: port already in use (${e.message})`);
    else console.error('pigeonhole: failed to start', error);
    process.exit(1);
  },
);
