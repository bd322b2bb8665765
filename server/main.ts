#!/usr/bin/env node
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createApp } from './app.ts';
import { ConfigError, loadConfig, usage, type Config } from './config.ts';
import { SandboxClock } from './domain/clock.ts';
import { createSandbox } from './domain/sandbox.ts';
import { domainFrames, helloFrame } from './realtime/frames.ts';
import { attachRealtime } from './realtime/realtime.ts';
import { createSmtpServer } from './smtp/smtp-server.ts';
import { openStore } from './storage/store.ts';

/** The only entry point: reads argv and the environment, wires the pieces, listens. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage());
    return;
  }
  let config: Config;
  try {
    config = loadConfig(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`pigeonhole: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }

  const uploadDir = path.join(config.dataDir, 'tmp');
  // Uploads left by a request that never finished (a crash mid-upload) are not data.
  await rm(uploadDir, { recursive: true, force: true });
  const store = await openStore({ dataDir: config.dataDir });
  const sandbox = createSandbox({ store, config: config.sandbox, clock: new SandboxClock() });
  const logger = { error: (message: string, error?: unknown) => console.error(message, error) };
  const app = createApp({ sandbox, maxBodySize: config.maxBodySize, uploadDir, logger });
  const server = createServer(app.callback());
  const realtime = attachRealtime(server, sandbox.events, { hello: helloFrame(sandbox), frames: domainFrames(sandbox) });
  const smtp = createSmtpServer({ sandbox, maxSize: config.smtpMaxSize, authRequired: config.smtpAuthRequired, logger });
  await listen(server, config.httpPort, config.host);
  const smtpPort = await smtp.listen(config.smtpPort, config.host);

  const { port } = server.address() as AddressInfo;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const hostname = shown.includes(':') ? `[${shown}]` : shown;
  const keys = config.sandbox.teams.flatMap((t) => t.senders.filter((s) => !s.revoked).map((s) => `${s.apiKey} (${s.name || s.id})`));
  console.log(`Pigeonhole listening on http://${hostname}:${port}`);
  console.log(`  SMTP capture:   smtp://${hostname}:${smtpPort}${config.smtpAuthRequired ? ' (AUTH required: an API key as the password)' : ''}`);
  console.log(`  data directory: ${store.dataDir} (${store.messages.size} captures)`);
  console.log(`  configuration:  ${config.configFile}`);
  console.log(`  API keys:       ${keys.join(', ')}`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`Pigeonhole stopping (${signal})`);
    // Stop accepting, let requests and SMTP sessions in flight get their answer (every message
    // accepted is stored), then flush and exit; a connection that will not finish is cut after
    // a few seconds. Live-push clients are told the server is going away first.
    await realtime.close();
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const force = setTimeout(() => server.closeAllConnections(), 5000);
    await Promise.all([drained, smtp.close()]);
    clearTimeout(force);
    await sandbox.close();
    await store.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
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

main().catch((error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE') console.error(`pigeonhole: port already in use (${e.message})`);
  else console.error('pigeonhole: failed to start', error);
  process.exit(1);
});
