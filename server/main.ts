#!/usr/bin/env node
import { runCli } from './cli.ts';
import { SAMPLE_CONFIG, type Config } from './config.ts';
import { loadSandboxConfig } from './domain/directory/sandbox-config.ts';
import { boundHeapGrowth } from './memory.ts';
import { offsetText } from './domain/time/clock.ts';
import { createPigeonhole } from './pigeonhole.ts';
import { plural, retentionLine, runningInContainer, sampleKeysWarning, startFailure } from './start-messages.ts';

/** How long requests in flight get to finish after SIGTERM before their connections are cut. */
const DRAIN_MS = 5000;
/** Past this the process exits 1 whatever is still running. */
const SHUTDOWN_LIMIT_MS = 10_000;

/** Set once the configuration is read, for the start-failure message. */
let dataDir: string | undefined;

/**
 * The only entry point (`npm start`, `bin/pigeonhole`, the Docker image): reads argv and the
 * environment, starts Pigeonhole (server/pigeonhole.ts wires it), prints where it listens, and
 * stops cleanly on SIGTERM/SIGINT.
 */
async function serve(config: Config): Promise<void> {
  dataDir = config.dataDir;
  boundHeapGrowth();
  const pigeonhole = await createPigeonhole(config);
  const { httpPort, smtpPort } = await pigeonhole.listen();
  const { tls, access, store, sandbox } = pigeonhole;

  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const hostname = shown.includes(':') ? `[${shown}]` : shown;
  const keys = config.sandbox.teams.flatMap((t) => t.senders.filter((s) => !s.revoked).map((s) => `${s.apiKey} (${s.name || s.id})`));
  const smtpNotes = [
    tls && (config.smtpTlsImplicit ? 'implicit TLS' : config.smtpRequireTls ? 'STARTTLS required' : 'STARTTLS'),
    config.smtpAuthRequired && 'AUTH required: an API key as the password',
  ].filter(Boolean);
  console.log(`Pigeonhole listening on http://${hostname}:${httpPort}${access.login ? ' (login required)' : ''}`);
  console.log(
    `  SMTP capture:   ${config.smtpTlsImplicit ? 'smtps' : 'smtp'}://${hostname}:${smtpPort}${smtpNotes.length > 0 ? ` (${smtpNotes.join('; ')})` : ''}`,
  );
  if (tls?.file) console.log(`  TLS certificate: ${tls.file} (${tls.created ? 'made now' : 'kept'}, self-signed, SHA-256 ${tls.fingerprint})`);
  console.log(`  data directory: ${store.dataDir} (${plural(sandbox.messages.count(), 'capture')})`);
  const clock = sandbox.time.read();
  if (!clock.realTime)
    console.log(`  sandbox clock:  ${offsetText(clock.offsetMs)} (${clock.now.toISOString()}); POST /api/clock/reset returns it to real time`);
  console.log(`  retention:      ${retentionLine(config.maxMessages, config.maxAgeMs)}`);
  console.log(`  configuration:  ${config.configFile}`);
  console.log(`  API keys:       ${keys.join(', ')}`);
  const warning = sampleKeysWarning(config.host, activeKeys(config.sandbox), sampleKeys());
  if (warning) console.error(warning);

  onStopSignals(() => pigeonhole.close({ drainMs: DRAIN_MS }));
}

/** The API keys a configuration's senders may use (revoked ones left out). */
function activeKeys(sandbox: Config['sandbox']): string[] {
  return sandbox.teams.flatMap((t) => t.senders.filter((s) => !s.revoked).map((s) => s.apiKey));
}

/** The sample configuration's keys, public in the README (none if its file is not shipped here). */
function sampleKeys(): string[] {
  try {
    return activeKeys(loadSandboxConfig(SAMPLE_CONFIG));
  } catch {
    return [];
  }
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

runCli(process.argv.slice(2), process.env, serve).then(
  (code) => {
    if (code !== null) process.exitCode = code;
  },
  (error: unknown) => {
    const message = startFailure(error, { dataDir, uid: process.getuid?.(), gid: process.getgid?.(), inContainer: runningInContainer() });
    if (message) console.error(message);
    else console.error('pigeonhole: failed to start', error);
    process.exit(1);
  },
);
