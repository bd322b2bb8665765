import { createPrivateKey, type KeyObject, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parseNetwork } from './domain/check/link-targets.ts';
import { parseDuration } from './domain/time/duration.ts';
import { ConfigError, loadSandboxConfig, type SandboxConfig } from './domain/directory/sandbox-config.ts';

export { ConfigError } from './domain/directory/sandbox-config.ts';

/** The command-line and environment options, before the configuration file is read. */
export interface Options {
  readonly httpPort: number;
  readonly smtpPort: number;
  readonly host: string;
  readonly dataDir: string;
  readonly configFile: string;
  readonly maxBodySize: number;
  /** Largest sandbox API (/api) request body in bytes. */
  readonly maxApiBodySize: number;
  /** Files one /v1 send may carry; one more is refused with a 400 while the body is read. */
  readonly maxAttachments: number;
  /** Captures kept at most, oldest pruned first; 0 keeps everything. */
  readonly maxMessages: number;
  /** Captures older than this (sandbox clock) are pruned; 0 keeps them. */
  readonly maxAgeMs: number;
  readonly smtpMaxSize: number;
  readonly smtpAuthRequired: boolean;
  /** RCPT TO accepted per message; the next is refused with 452 4.5.3. */
  readonly smtpMaxRecipients: number;
  /** SMTP sessions at once; one more is refused with 421 and closed. */
  readonly smtpMaxConnections: number;
  /** SMTP sessions at once from one client address. */
  readonly smtpMaxClientSessions: number;
  /** The last SMTP sessions, kept for addresses that hold none. */
  readonly smtpReservedSessions: number;
  /** How long an SMTP session may last, in ms. */
  readonly smtpSessionLifetimeMs: number;
  /** NOOP, RSET, HELP and VRFY an SMTP session may send between messages. */
  readonly smtpJunkCommandLimit: number;
  /** fdatasync every group commit: a 200 then means the data is on stable storage. */
  readonly fsync: boolean;
  /** Host names browsers may reach the server by, beyond the defaults (`.name` with subdomains, `*` any). */
  readonly allowedHosts: readonly string[];
  /** Origins whose pages may change state, open the live push and read the sandbox API (`*` any). */
  readonly allowedOrigins: readonly string[];
  /** `--auth USER:PASSWORD`: HTTP Basic in front of the UI, /api, the live push and /metrics. */
  readonly auth: { readonly user: string; readonly password: string } | null;
  /** `--auth-file`: a file of `user:bcrypt-hash` lines, read by loadConfig. */
  readonly authFile: string | null;
  /** A PEM certificate file for SMTP TLS, `auto` for one made and kept in the data directory, or null (no TLS). */
  readonly smtpTlsCert: string | null;
  /** The PEM private key of smtpTlsCert (a file). */
  readonly smtpTlsKey: string | null;
  /** Refuse MAIL FROM until the session is encrypted. */
  readonly smtpRequireTls: boolean;
  /** The SMTP port speaks TLS from the first byte (port 465 style) instead of offering STARTTLS. */
  readonly smtpTlsImplicit: boolean;
  /** The link check may reach loopback, private and link-local addresses on a non-loopback listener. */
  readonly linkCheckPrivate: boolean;
  /** Networks (`10.1.0.0/16`, `fd00::/8`, one address) the link check may reach on a non-loopback listener. */
  readonly linkCheckAllow: readonly string[];
  /** spamd's address for the message check's spam score; null leaves the spam check off. */
  readonly spamassassin: { readonly host: string; readonly port: number } | null;
}

/** A user of the --auth-file. */
export interface AuthUser {
  readonly user: string;
  readonly hash: string;
}

/** Everything the server runs with, read once and frozen. Nothing else reads process.env. */
export interface Config extends Options {
  readonly sandbox: SandboxConfig;
  /** The --auth-file's users (empty without one). */
  readonly authUsers: readonly AuthUser[];
  /** The PEM contents of --smtp-tls-cert and --smtp-tls-key files, checked to belong together; null without them (or with auto). */
  readonly smtpTlsFiles: { readonly cert: string; readonly key: string } | null;
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
  /** How --help and docs/configuration.md show the default, when not as it is. */
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
  configFile: {
    flag: 'config',
    default: SAMPLE_CONFIG,
    shown: 'fixtures/sample-config.json',
    help: 'JSON file of teams, senders and flows',
    parse: (v: string, s: string) => path.resolve(nonEmpty(v, s)),
  },
  maxBodySize: { flag: 'max-body-size', default: String(25 * 1024 * 1024), help: 'largest /v1 request body in bytes', parse: positiveInt },
  // The sandbox API takes settings, fault rules and drafts, never uploads: a megabyte is a large
  // template, and a smaller cap is less work a hostile body can ask for.
  maxApiBodySize: { flag: 'max-api-body-size', default: String(1024 * 1024), help: 'largest sandbox API (/api) request body in bytes', parse: positiveInt },
  // Django's DATA_UPLOAD_MAX_NUMBER_FILES is 100 (the real service runs Django).
  maxAttachments: {
    flag: 'max-attachments',
    default: '100',
    help: 'files in one /v1 send; one more is refused with a 400 while the body is read (at most 1000)',
    parse: (value: string, source: string) => atMost(positiveInt(value, source), 1000, source),
  },
  maxMessages: { flag: 'max-messages', default: '10000', help: 'captures kept, oldest pruned first (0: unlimited)', parse: wholeNumber },
  maxAgeMs: { flag: 'max-age', default: '0', help: 'prune captures older than this, e.g. 7d or 12h (0: never)', parse: maxAge },
  smtpMaxSize: { flag: 'smtp-max-size', default: String(25 * 1024 * 1024), help: 'largest SMTP message in bytes', parse: positiveInt },
  // Postfix's smtpd_recipient_limit is 1000; a capture with more is a bug in the application.
  smtpMaxRecipients: {
    flag: 'smtp-max-recipients',
    default: '1000',
    help: 'recipients (RCPT TO) per SMTP message; more are refused with 452 4.5.3',
    parse: positiveInt,
  },
  // Postfix runs at most 100 smtpd processes (default_process_limit); a test suite or a load
  // benchmark uses a handful of connections.
  smtpMaxConnections: {
    flag: 'smtp-max-connections',
    default: '100',
    help: 'SMTP connections at once; one more is answered 421 and closed',
    parse: positiveInt,
  },
  // Postfix's smtpd_client_connection_count_limit is 50 of 100 processes; a test suite's
  // pooled client opens a handful.
  smtpMaxClientSessions: {
    flag: 'smtp-max-client-sessions',
    default: '10',
    help: 'SMTP sessions at once from one client address; one more is answered 421 and closed',
    parse: positiveInt,
  },
  smtpReservedSessions: {
    flag: 'smtp-reserved-sessions',
    default: '5',
    help: 'the last SMTP sessions of --smtp-max-connections, kept for client addresses that hold none',
    parse: wholeNumber,
  },
  smtpSessionLifetimeMs: {
    flag: 'smtp-session-lifetime',
    default: '10m',
    help: 'how long an SMTP session may last; then it is answered 421 and closed between messages',
    parse: duration,
  },
  // Postfix's smtpd_junk_command_limit is 100.
  smtpJunkCommandLimit: {
    flag: 'smtp-junk-command-limit',
    default: '100',
    help: 'NOOP, RSET, HELP and VRFY an SMTP session may send between messages; the next is answered 421 and closed',
    parse: positiveInt,
  },
  smtpAuthRequired: { flag: 'smtp-auth-required', default: 'false', help: 'SMTP clients must log in with an API key', parse: bool, boolean: true },
  fsync: {
    flag: 'fsync',
    default: 'false',
    help: 'flush every write to stable storage before answering (slower; survives a power loss)',
    parse: bool,
    boolean: true,
  },
  allowedHosts: {
    flag: 'allowed-hosts',
    default: '',
    shown: 'none',
    help: 'more host names to be reached by, comma-separated (.example.com with subdomains, * any); on loopback only localhost, *.localhost and IPs are allowed without it',
    parse: hostList,
  },
  allowedOrigins: {
    flag: 'allowed-origins',
    default: '',
    shown: 'none',
    help: 'origins whose pages may use the sandbox API and live push, comma-separated (* any)',
    parse: originList,
  },
  auth: {
    flag: 'auth',
    default: '',
    shown: 'off',
    help: 'USER:PASSWORD: HTTP Basic login for the inbox, /api, the live push and /metrics',
    parse: userPassword,
  },
  authFile: {
    flag: 'auth-file',
    default: '',
    shown: 'off',
    help: 'file of user:bcrypt-hash lines for the login (make one with "pigeonhole hash-password")',
    parse: optionalPath,
  },
  smtpTlsCert: {
    flag: 'smtp-tls-cert',
    default: '',
    shown: 'off',
    help: 'PEM certificate for SMTP STARTTLS, or auto for a self-signed one kept in the data directory',
    parse: certificate,
  },
  smtpTlsKey: { flag: 'smtp-tls-key', default: '', shown: 'off', help: 'PEM private key of --smtp-tls-cert', parse: optionalPath },
  smtpRequireTls: { flag: 'smtp-require-tls', default: 'false', help: 'refuse MAIL FROM until the client has issued STARTTLS', parse: bool, boolean: true },
  smtpTlsImplicit: {
    flag: 'smtp-tls-implicit',
    default: 'false',
    help: 'TLS from the first byte on the SMTP port (port 465 style) instead of STARTTLS',
    parse: bool,
    boolean: true,
  },
  linkCheckPrivate: {
    flag: 'link-check-private',
    default: 'false',
    help: 'let the link check reach loopback, private and link-local addresses when listening on a non-loopback --host',
    parse: bool,
    boolean: true,
  },
  linkCheckAllow: {
    flag: 'link-check-allow',
    default: '',
    shown: 'none',
    help: 'networks the link check may reach anyway when listening on a non-loopback --host, comma-separated (10.1.0.0/16, fd00::/8, 10.1.2.3)',
    parse: networkList,
  },
  spamassassin: { flag: 'spamassassin', default: '', help: 'spamd HOST:PORT for the spam score of the message check (empty: off)', parse: hostPort },
} satisfies Record<string, Omit<OptionSpec, 'env'>>;

type OptionName = keyof typeof OPTIONS;

function envName(flag: string): string {
  return `PIGEONHOLE_${flag.toUpperCase().replace(/-/g, '_')}`;
}

/** One option as --help and docs/configuration.md list it. */
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
  return Object.values(OPTIONS).map((o: Omit<OptionSpec, 'env'>) => ({
    flag: o.flag,
    env: envName(o.flag),
    default: o.shown ?? o.default,
    help: o.help,
    switch: o.boolean === true,
  }));
}

/** Defaults ← PIGEONHOLE_* environment ← command-line flags, validated in one pass; reads no file. */
export function loadOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  let flags: Record<string, string | boolean | undefined>;
  try {
    flags = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.values(OPTIONS).map((o: OptionSpec | Omit<OptionSpec, 'env'>) => [o.flag, { type: o.boolean ? ('boolean' as const) : ('string' as const) }]),
      ),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    throw new ConfigError(argumentProblem(error as Error));
  }
  const problems: string[] = [];
  const values: Partial<Record<OptionName, unknown>> = {};
  const sources: Partial<Record<OptionName, string>> = {};
  for (const [name, spec] of Object.entries(OPTIONS) as [OptionName, (typeof OPTIONS)[OptionName]][]) {
    const fromFlag = flags[spec.flag];
    const fromEnv = env[envName(spec.flag)];
    const [raw, source] =
      typeof fromFlag === 'boolean'
        ? [String(fromFlag), `--${spec.flag}`]
        : typeof fromFlag === 'string'
          ? [fromFlag, `--${spec.flag}`]
          : fromEnv !== undefined
            ? [fromEnv, envName(spec.flag)]
            : [spec.default, `default of --${spec.flag}`];
    if (fromFlag !== undefined || fromEnv !== undefined) sources[name] = source;
    try {
      values[name] = spec.parse(raw, source);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length === 0) problems.push(...combinationProblems(values as unknown as Options, sources));
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return values as unknown as Options;
}

/** Options that are fine alone but not together, or that need another. */
function combinationProblems(o: Options, sources: Partial<Record<OptionName, string>>): string[] {
  const problems: string[] = [];
  if (o.auth && o.authFile) problems.push(`${sources.auth} and ${sources.authFile}: give one or the other`);
  if (o.smtpTlsCert === 'auto' && o.smtpTlsKey)
    problems.push(`${sources.smtpTlsKey}: not used with --smtp-tls-cert auto (the key is made with the certificate)`);
  if (o.smtpTlsCert !== null && o.smtpTlsCert !== 'auto' && !o.smtpTlsKey)
    problems.push(`${sources.smtpTlsCert}: needs --smtp-tls-key, the certificate's private key (or use --smtp-tls-cert auto)`);
  if (o.smtpTlsCert === null && o.smtpTlsKey) problems.push(`${sources.smtpTlsKey}: needs --smtp-tls-cert, the certificate of this key`);
  for (const name of ['smtpRequireTls', 'smtpTlsImplicit'] as const) {
    if (o[name] && o.smtpTlsCert === null) problems.push(`${sources[name]}: needs a certificate: --smtp-tls-cert auto, or --smtp-tls-cert and --smtp-tls-key`);
  }
  return problems;
}

/** The options and the configuration file they name, frozen. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv): Config {
  const options = loadOptions(argv, env);
  const authUsers = options.authFile ? readAuthFile(options.authFile) : [];
  const smtpTlsFiles =
    options.smtpTlsCert && options.smtpTlsCert !== 'auto' && options.smtpTlsKey ? readTlsFiles(options.smtpTlsCert, options.smtpTlsKey) : null;
  return deepFreeze({ ...options, authUsers, smtpTlsFiles, sandbox: loadSandboxConfig(options.configFile) });
}

const BCRYPT_HASH = /^\$2[aby]\$(0[4-9]|[12]\d|3[01])\$[./A-Za-z0-9]{53}$/;

/** `user:hash` lines (bcrypt, as `pigeonhole hash-password` or `htpasswd -nB` write them); blank lines and `#` comments are skipped. */
function parseAuthFile(text: string, file: string): AuthUser[] {
  const users: AuthUser[] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const colon = line.indexOf(':');
    const user = colon > 0 ? line.slice(0, colon) : '';
    const hash = colon > 0 ? line.slice(colon + 1).trim() : '';
    if (user === '') problems.push(`  line ${index + 1}: expected user:hash`);
    else if (!BCRYPT_HASH.test(hash))
      problems.push(`  line ${index + 1}: the hash of "${user}" is not a bcrypt hash ($2b$10$... ; make one with "pigeonhole hash-password ${user}")`);
    else if (users.some((u) => u.user === user)) problems.push(`  line ${index + 1}: "${user}" is listed twice`);
    else users.push({ user, hash });
  });
  if (problems.length === 0 && users.length === 0) problems.push('  no user:hash line in it');
  if (problems.length > 0) throw new ConfigError(`Invalid auth file ${file}:\n${problems.join('\n')}`);
  return users;
}

function readAuthFile(file: string): AuthUser[] {
  return parseAuthFile(readText(file, '--auth-file'), file);
}

/** The certificate and key files, checked to be PEM and to belong together. */
function readTlsFiles(certFile: string, keyFile: string): { cert: string; key: string } {
  const cert = readText(certFile, '--smtp-tls-cert');
  const key = readText(keyFile, '--smtp-tls-key');
  let x509: X509Certificate;
  try {
    x509 = new X509Certificate(cert);
  } catch {
    throw new ConfigError(`--smtp-tls-cert: ${certFile} is not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new ConfigError(`--smtp-tls-key: ${keyFile} is not a PEM private key (an encrypted key is not supported)`);
  }
  if (!x509.checkPrivateKey(privateKey)) throw new ConfigError(`--smtp-tls-key: ${keyFile} is not the private key of the certificate ${certFile}`);
  return { cert, key };
}

function readText(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${flag}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
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

function atMost(n: number, most: number, source: string): number {
  if (n > most) throw new ConfigError(`${source}: ${n} is more than ${most}`);
  return n;
}

function wholeNumber(value: string, source: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new ConfigError(`${source}: "${value}" is not a whole number (0 or more)`);
  return n;
}

/** A duration such as 10m or 90s, more than 0. */
function duration(value: string, source: string): number {
  const ms = parseDuration(value.trim());
  if (ms === null || ms === 0) throw new ConfigError(`${source}: "${value}" is not a duration such as 10m, 90s or 1h`);
  return ms;
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

/** A comma-separated list of host names (`.example.com`: it and its subdomains; `*`: any). */
function hostList(value: string, source: string): string[] {
  const hosts = list(value);
  for (const host of hosts) {
    const name = host.startsWith('.') ? host.slice(1) : host;
    if (host === '*' || isIP(name) !== 0 || /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) continue;
    const port = /^(.+):\d+$/.exec(host);
    throw new ConfigError(
      port
        ? `${source}: "${host}": give the name without a port (every port is allowed): ${port[1]}`
        : `${source}: "${host}" is not a host name (such as mail.example.com, .example.com for it and its subdomains, or *)`,
    );
  }
  return hosts;
}

/** A comma-separated list of origins, `scheme://host[:port]` (a trailing slash is dropped), or `*`. */
function originList(value: string, source: string): string[] {
  return list(value).map((origin) => {
    if (origin === '*') return origin;
    const trimmed = origin.replace(/\/$/, '');
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/.test(trimmed)) return trimmed;
    throw new ConfigError(`${source}: "${origin}" is not an origin such as http://localhost:3000 or https://app.example.com (scheme and host, no path), or *`);
  });
}

/** A comma-separated list of IP networks (`10.0.0.0/8`, `fd00::/8`) or addresses. */
function networkList(value: string, source: string): string[] {
  const networks = list(value);
  for (const network of networks)
    if (parseNetwork(network) === null)
      throw new ConfigError(`${source}: "${network}" is not an IP address or network such as 10.1.0.0/16, fd00::/8 or 10.1.2.3`);
  return networks;
}

function list(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter((item) => item !== '');
}

/** USER:PASSWORD (the password may contain colons); empty turns the login off. */
function userPassword(value: string, source: string): { user: string; password: string } | null {
  if (value === '') return null;
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) throw new ConfigError(`${source}: expected USER:PASSWORD, both not empty`);
  return { user: value.slice(0, colon), password: value.slice(colon + 1) };
}

function optionalPath(value: string): string | null {
  return value.trim() === '' ? null : path.resolve(value.trim());
}

function certificate(value: string): string | null {
  return value.trim() === 'auto' ? 'auto' : optionalPath(value);
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
