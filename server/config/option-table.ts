import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type RelayTarget,
  port,
  positiveInt,
  atMost,
  wholeNumber,
  duration,
  maxAge,
  hostPort,
  bool,
  hostList,
  originList,
  networkList,
  userPassword,
  templateFolder,
  relayUrl,
  patternList,
  optionalPath,
  certificate,
  nonEmpty,
} from './option-values.ts';

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
  /** A folder of .html template files the Templates page lists, renders and watches; null: none. */
  readonly templates: string | null;
  /** Where a release (POST /api/messages/{id}/release) relays a capture; null: releases are refused. */
  readonly relay: RelayTarget | null;
  /** Recipient globs (`*@example.com`) a release may go to; none: every address is refused. */
  readonly relayAllow: readonly string[];
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

/** One option: its flag (and so its variable), its default, its help line and its parser. */
export interface OptionSpec {
  flag: string;
  env: string;
  default: string;
  /** How --help and docs/configuration.md show the default, when not as it is. */
  shown?: string;
  help: string;
  parse: (value: string, source: string) => unknown;
  /** A switch: given alone on the command line (`--flag`), true/false in the environment. */
  boolean?: true;
  /** Repeatable on the command line; the values are joined with commas (the environment's form). */
  multiple?: true;
}

/** Every option, in the order --help lists them. */
export const OPTIONS = {
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
  templates: {
    flag: 'templates',
    default: '',
    shown: 'off',
    help: 'folder of .html template files to list, render with sample data and re-render on every save (the Templates page)',
    parse: templateFolder,
  },
  relay: {
    flag: 'relay',
    default: '',
    shown: 'off',
    help: 'smtp://[user:pass@]host:port (or smtps://) that POST /api/messages/{id}/release relays a capture to; STARTTLS when offered',
    parse: relayUrl,
  },
  relayAllow: {
    flag: 'relay-allow',
    default: '',
    shown: 'none',
    help: 'recipient patterns a release may go to, e.g. *@example.com (repeatable; comma-separated in the environment)',
    parse: patternList,
    multiple: true,
  },
} satisfies Record<string, Omit<OptionSpec, 'env'>>;

export type OptionName = keyof typeof OPTIONS;

/** The environment variable of a flag: PIGEONHOLE_ and the flag in capitals, dashes as underscores. */
export function envName(flag: string): string {
  return `PIGEONHOLE_${flag.toUpperCase().replace(/-/g, '_')}`;
}
