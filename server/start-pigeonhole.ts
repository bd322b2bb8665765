import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PigeonholeClient } from '../client/pigeonhole-client.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { parseSandboxConfig } from './domain/directory/sandbox-config.ts';
import { createPigeonhole } from './pigeonhole.ts';

// The typed client and its types, also from the root: one import for a test runner's setup.
export * from '../client/pigeonhole-client.ts';

/** Where a started sandbox reports what went wrong inside it (an internal error, a damaged file set aside). */
export interface PigeonholeLogger {
  error(message: string, error?: unknown): void;
}

/** How `startPigeonhole` starts a sandbox; every field is optional. */
export interface StartPigeonholeOptions {
  /** The HTTP port for /v1, /api and the inbox (default 0: a free port, reported in `url`). */
  httpPort?: number;
  /** The SMTP port (default 0: a free port, reported in `smtp.port`). */
  smtpPort?: number;
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** Where captures are stored, kept by `stop()` (default: a new temporary directory that `stop()` removes). */
  dataDir?: string;
  /** The teams, senders and flows: a JSON file's path, or the configuration itself (default: the sample configuration, API key `test-key`). */
  config?: string | object;
  /** Any other command-line option of `pigeonhole --help`, e.g. `['--smtp-auth-required', '--max-messages', '100']` (not the ones above). */
  flags?: string[];
  /** Receives internal errors (default console.error). Nothing else is printed: no banner, no request log. */
  logger?: PigeonholeLogger;
}

/** A running sandbox. */
export interface RunningPigeonhole {
  /** The HTTP base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  readonly url: string;
  /** Where SMTP capture listens. */
  readonly smtp: { readonly host: string; readonly port: number };
  /** The typed client pointed at `url`. */
  readonly client: PigeonholeClient;
  /** The data directory in use. */
  readonly dataDir: string;
  /**
   * Stops both listeners (requests in flight get a second to finish), stores everything accepted,
   * and removes the data directory if it was a temporary one. Safe to call more than once.
   */
  stop(): Promise<void>;
}

/** The command-line options that startPigeonhole takes as its own options. */
const OWN_OPTIONS: Record<string, string> = {
  '--http-port': 'httpPort',
  '--smtp-port': 'smtpPort',
  '--host': 'host',
  '--data-dir': 'dataDir',
  '--config': 'config',
};

/** How long requests and SMTP sessions still in flight get at `stop()`: a test run is ending. */
const STOP_DRAIN_MS = 1000;

/**
 * Starts a sandbox in this process, through the same composition root as the `pigeonhole`
 * command (server/pigeonhole.ts), for a test runner's global setup or fixture. Several may run
 * side by side: each has its own ports, data directory, clock and state, and none installs
 * signal handlers or reads the environment.
 */
export async function startPigeonhole(options: StartPigeonholeOptions = {}): Promise<RunningPigeonhole> {
  const temporary = options.dataDir === undefined;
  const dataDir = options.dataDir === undefined ? await mkdtemp(path.join(tmpdir(), 'pigeonhole-')) : path.resolve(options.dataDir);
  const removeTemporary = () => (temporary ? rm(dataDir, { recursive: true, force: true }) : Promise.resolve());
  const logger = options.logger ?? { error: (message: string, error?: unknown) => console.error(message, error ?? '') };

  let pigeonhole: Awaited<ReturnType<typeof createPigeonhole>> | undefined;
  try {
    pigeonhole = await createPigeonhole(configOf(options, dataDir), {
      logger,
      log: (message, error) => logger.error(message, error),
      store: { log: (line) => logger.error(line) },
      smtpCloseTimeoutMs: STOP_DRAIN_MS,
      // Node's process metrics describe the process, not a sandbox: they stay off beside a test runner.
      processMetrics: false,
    });
    const { httpPort, smtpPort } = await pigeonhole.listen();
    const { host } = pigeonhole.config;
    const url = `http://${urlHost(host)}:${httpPort}`;
    const running = pigeonhole;
    let stopping: Promise<void> | undefined;
    return {
      url,
      smtp: { host: connectHost(host), port: smtpPort },
      client: new PigeonholeClient({ baseUrl: url }),
      dataDir,
      stop() {
        stopping ??= running.close({ drainMs: STOP_DRAIN_MS }).finally(removeTemporary);
        return stopping;
      },
    };
  } catch (error) {
    await pigeonhole?.close({ drainMs: 0 }).catch(() => undefined);
    await removeTemporary();
    throw error;
  }
}

/** The configuration the `pigeonhole` command would run with these flags and no PIGEONHOLE_* environment. */
function configOf(options: StartPigeonholeOptions, dataDir: string): Config {
  for (const flag of options.flags ?? []) {
    const option = OWN_OPTIONS[flag.replace(/=.*$/, '')];
    // Given as a flag, the handle would report the other port or directory (and stop() would delete the wrong one).
    if (option) throw new ConfigError(`flags: ${flag}: give it as the option ${option} instead`);
  }
  const file = typeof options.config === 'string' ? ['--config', options.config] : [];
  const argv = [
    '--http-port',
    String(options.httpPort ?? 0),
    '--smtp-port',
    String(options.smtpPort ?? 0),
    '--host',
    options.host ?? '127.0.0.1',
    '--data-dir',
    dataDir,
    ...file,
    ...(options.flags ?? []),
  ];
  const config = loadConfig(argv, {});
  if (typeof options.config !== 'object') return config;
  return Object.freeze({ ...config, configFile: '(startPigeonhole options.config)', sandbox: parseSandboxConfig(options.config, 'options.config') });
}

/** A server listening on every address is reached on loopback. */
function connectHost(host: string): string {
  return host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
}

function urlHost(host: string): string {
  const connect = connectHost(host);
  return connect.includes(':') ? `[${connect}]` : connect;
}
