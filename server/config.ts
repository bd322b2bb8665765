import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseDuration } from './domain/duration.ts';
import { ConfigError, loadSandboxConfig, type SandboxConfig } from './sandbox-config.ts';

export { ConfigError } from './sandbox-config.ts';

/** The command-line and environment options, before the configuration file is read. */
export interface Options {
  readonly httpPort: number;
  readonly smtpPort: number;
  readonly host: string;
  readonly dataDir: string;
  readonly configFile: string;
  readonly maxBodySize: number;
  /** Captures kept at most, oldest pruned first; 0 keeps everything. */
  readonly maxMessages: number;
  /** Captures older than this (sandbox clock) are pruned; 0 keeps them. */
  readonly maxAgeMs: number;
  readonly smtpMaxSize: number;
  readonly smtpAuthRequired: boolean;
  /** spamd's address for the message check's spam score; null leaves the spam check off. */
  readonly spamassassin: { readonly host: string; readonly port: number } | null;
}

/** Everything the server runs with, read once and frozen. Nothing else reads process.env. */
export interface Config extends Options {
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
  /** How --help and the README show the default, when not as it is. */
  shown?: string;
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
  configFile: { flag: 'config', default: SAMPLE_CONFIG, shown: 'fixtures/sample-config.json', help: 'JSON file of teams, senders and flows', parse: (v: string, s: string) => path.resolve(nonEmpty(v, s)) },
  maxBodySize: { flag: 'max-body-size', default: String(25 * 1024 * 1024), help: 'largest request body in bytes', parse: positiveInt },
  maxMessages: { flag: 'max-messages', default: '10000', help: 'captures kept, oldest pruned first (0: unlimited)', parse: wholeNumber },
  maxAgeMs: { flag: 'max-age', default: '0', help: 'prune captures older than this, e.g. 7d or 12h (0: never)', parse: maxAge },
  smtpMaxSize: { flag: 'smtp-max-size', default: String(25 * 1024 * 1024), help: 'largest SMTP message in bytes', parse: positiveInt },
  smtpAuthRequired: { flag: 'smtp-auth-required', default: 'false', help: 'SMTP clients must log in with an API key', parse: bool, boolean: true },
  spamassassin: { flag: 'spamassassin', default: '', help: 'spamd HOST:PORT for the spam score of the message check (empty: off)', parse: hostPort },
} satisfies Record<string, Omit<OptionSpec, 'env'>>;

type OptionName = keyof typeof OPTIONS;

function envName(flag: string): string {
  return `PIGEONHOLE_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** One option as --help and the README list it. */
export interface OptionInfo {
  flag: string;
  env: string;
  default: string;
  help: string;
  /** A switch: `--flag` alone on the command line, true/false in the environment. */
  switch: boolean;
}

/** Every option, in the order --help lists them. */
export function optionList(): OptionInfo[] {
  return Object.values(OPTIONS).map((o: Omit<OptionSpec, 'env'>) => ({ flag: o.flag, env: envName(o.flag), default: o.shown ?? o.default, help: o.help, switch: o.boolean === true }));
}

/** Defaults ← PIGEONHOLE_* environment ← command-line flags, validated in one pass; reads no file. */
export function loadOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.values(OPTIONS).map((o: OptionSpec | Omit<OptionSpec, 'env'>) => [o.flag, { type: o.boolean ? ('boolean' as const) : ('string' as const) }])),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError(argumentProblem(error as Error));
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
  return values as unknown as Options;
}

/** The options and the configuration file they name, frozen. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  const options = loadOptions(argv, env);
  return Object.freeze({ ...options, sandbox: deepFreeze(loadSandboxConfig(options.configFile)) });
}

/** parseArgs' wording, with the way out: where the options are listed. */
function argumentProblem(error: Error): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  if (unknown) return `Unknown option '${unknown[1]}'. Run "pigeonhole --help" for the options.`;
  const missing = /^Option '(--[a-z-]+)[^']*' argument missing/.exec(error.message);
  if (missing) return `${missing[1]} needs a value. Run "pigeonhole --help" for the options.`;
  const positional = /^Unexpected argument '([^']+)'/.exec(error.message);
  if (positional) return `Unexpected argument '${positional[1]}'. Run "pigeonhole --help" for the commands and options.`;
  return error.message;
}

/** The options part of --help: each flag, its environment variable and its default. */
export function usage(): string {
  return optionList()
    .map((o) => `  --${o.flag}${o.switch ? '' : ' <value>'}\n      ${o.help}\n      env ${o.env}, default ${o.default}`)
    .join('\n');
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

function wholeNumber(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new ConfigError(`${source}: "${value}" is not a whole number (0 or more)`);
  return n;
}

/** A duration such as 7d or 12h; 0 or empty turns the limit off. */
function maxAge(value: string, source: string): number {
  if (value.trim() === '' || value.trim() === '0') return 0;
  const ms = parseDuration(value);
  if (ms === null || ms === 0) throw new ConfigError(`${source}: "${value}" is not a duration such as 7d, 12h or 1d12h (0 to keep captures of any age)`);
  return ms;
}

/** `HOST:PORT` (`[::1]:783` for IPv6); empty turns the feature off. */
function hostPort(value: string, source: string): { host: string; port: number } | null {
  const text = value.trim();
  if (text === '') return null;
  const match = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d+)$/.exec(text);
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65535) throw new ConfigError(`${source}: "${value}" is not HOST:PORT, e.g. 127.0.0.1:783`);
  return { host: match[1] ?? match[2]!, port };
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
