import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadSandboxConfig, type SandboxConfig } from './sandbox-config.ts';

export { ConfigError } from './sandbox-config.ts';

/** Everything the server runs with, read once and frozen. Nothing else reads process.env. */
export interface Config {
  readonly httpPort: number;
  readonly smtpPort: number;
  readonly host: string;
  readonly dataDir: string;
  readonly configFile: string;
  readonly maxBodySize: number;
  readonly smtpMaxSize: number;
  readonly smtpAuthRequired: boolean;
  readonly sandbox: SandboxConfig;
}

/** The sample configuration shipped in fixtures/, found from the source or the built file. */
export const SAMPLE_CONFIG = findUp('fixtures/sample-config.json');

function findUp(relative: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, relative);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return path.resolve(relative);
    dir = parent;
  }
}

interface OptionSpec {
  flag: string;
  env: string;
  default: string;
  help: string;
  parse: (value: string, source: string) => unknown;
  /** A switch: given alone on the command line (`--flag`), true/false in the environment. */
  boolean?: true;
}

const OPTIONS = {
  httpPort: { flag: 'http-port', default: '8025', help: 'HTTP port for /v1, /api and the inbox', parse: port },
  smtpPort: { flag: 'smtp-port', default: '1025', help: 'SMTP port for captured mail', parse: port },
  host: { flag: 'host', default: '127.0.0.1', help: 'address to listen on (0.0.0.0 for all)', parse: nonEmpty },
  dataDir: { flag: 'data-dir', default: './data', help: 'where captures and state are stored', parse: (v: string, s: string) => path.resolve(nonEmpty(v, s)) },
  configFile: { flag: 'config', default: SAMPLE_CONFIG, help: 'JSON file of teams, senders and flows', parse: (v: string, s: string) => path.resolve(nonEmpty(v, s)) },
  maxBodySize: { flag: 'max-body-size', default: String(25 * 1024 * 1024), help: 'largest request body in bytes', parse: positiveInt },
  smtpMaxSize: { flag: 'smtp-max-size', default: String(25 * 1024 * 1024), help: 'largest SMTP message in bytes', parse: positiveInt },
  smtpAuthRequired: { flag: 'smtp-auth-required', default: 'false', help: 'SMTP clients must log in with an API key', parse: bool, boolean: true },
} satisfies Record<string, Omit<OptionSpec, 'env'>>;

type OptionName = keyof typeof OPTIONS;

function envName(flag: string): string {
  return `PIGEONHOLE_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** Defaults ← PIGEONHOLE_* environment ← command-line flags, validated in one pass. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.values(OPTIONS).map((o: OptionSpec | Omit<OptionSpec, 'env'>) => [o.flag, { type: o.boolean ? ('boolean' as const) : ('string' as const) }])),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\n\n${usage()}`);
  }
  const problems: string[] = [];
  const values: Partial<Record<OptionName, unknown>> = {};
  for (const [name, spec] of Object.entries(OPTIONS) as [OptionName, (typeof OPTIONS)[OptionName]][]) {
    const fromFlag = flags[spec.flag];
    const fromEnv = env[envName(spec.flag)];
    const [raw, source] =
      typeof fromFlag === 'boolean' ? [String(fromFlag), `--${spec.flag}`]
      : typeof fromFlag === 'string' ? [fromFlag, `--${spec.flag}`] : fromEnv !== undefined ? [fromEnv, envName(spec.flag)] : [spec.default, `default of --${spec.flag}`];
    try {
      values[name] = spec.parse(raw, source);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  const configFile = values.configFile as string;
  return Object.freeze({
    httpPort: values.httpPort as number,
    smtpPort: values.smtpPort as number,
    host: values.host as string,
    dataDir: values.dataDir as string,
    configFile,
    maxBodySize: values.maxBodySize as number,
    smtpMaxSize: values.smtpMaxSize as number,
    smtpAuthRequired: values.smtpAuthRequired as boolean,
    sandbox: deepFreeze(loadSandboxConfig(configFile)),
  });
}

export function usage(): string {
  const rows = Object.values(OPTIONS).map((o) => `  --${o.flag.padEnd(20)} ${o.help} (env ${envName(o.flag)}, default ${o.default})`);
  return `Usage: pigeonhole [options]\n\nOptions:\n${rows.join('\n')}`;
}

function port(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65535) throw new ConfigError(`${source}: "${value}" is not a port number (0-65535)`);
  return n;
}

function positiveInt(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < 1 || !Number.isSafeInteger(n)) throw new ConfigError(`${source}: "${value}" is not a positive whole number`);
  return n;
}

function bool(value: string, source: string): boolean {
  const v = value.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off', ''].includes(v)) return false;
  throw new ConfigError(`${source}: "${value}" is not true or false`);
}

function nonEmpty(value: string, source: string): string {
  if (value.trim() === '') throw new ConfigError(`${source}: may not be empty`);
  return value.trim();
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
