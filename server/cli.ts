import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import bcrypt from 'bcryptjs';
import { packageVersion } from './version.ts';
import { ConfigError, loadConfig, loadOptions, usage, type Config, type Options } from './config.ts';

/** How long `pigeonhole healthcheck` waits for /readyz before it calls the server not ready. */
export const HEALTHCHECK_TIMEOUT_MS = 3000;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /** The first line of standard input (not echoed on a terminal), for `hash-password`. */
  readPassword(): Promise<string>;
}

/** bcrypt's cost for `hash-password`: ~80 ms a check, paid once per login (checked logins are remembered). */
const HASH_ROUNDS = 10;

/** Exit codes: 0 done, 1 not ready (healthcheck), 2 a bad command line or configuration. */
export type ExitCode = 0 | 1 | 2;

/** Where `pigeonhole mcp` finds the sandbox when no --url is given. */
const DEFAULT_MCP_URL = 'http://localhost:8025';

/**
 * The command line: `--help`, `--version`, `healthcheck [options]`, `mcp [--url URL]`, or the
 * options the server runs with. Resolves with an exit code, or with `null` once `serve` has
 * started the server (which then runs until a signal stops it) or the MCP server is running on
 * stdio (until its input closes).
 */
export async function runCli(
  argv: string[],
  env: NodeJS.ProcessEnv,
  serve: (config: Config) => Promise<void>,
  io: CliIo = consoleIo,
): Promise<ExitCode | null> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(help());
    return 0;
  }
  if (argv.includes('--version') || argv.includes('-v')) {
    io.out(packageVersion());
    return 0;
  }
  try {
    if (argv[0] === 'healthcheck') return await healthcheck(loadOptions(argv.slice(1), env), io);
    if (argv[0] === 'hash-password') return await hashPassword(argv.slice(1), io);
    if (argv[0] === 'mcp') {
      const url = mcpUrl(argv.slice(1));
      // Loaded only for this command: serving the sandbox does not need the stdio transport.
      const { runStdioMcp } = await import('./mcp/stdio.ts');
      await runStdioMcp(url, packageVersion());
      return null;
    }
    const config = loadConfig(argv, env);
    await serve(config);
    return null;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.err(`pigeonhole: ${error.message}`);
    return 2;
  }
}

function help(): string {
  return [
    'Usage: pigeonhole [options]               run the sandbox (HTTP API, inbox, SMTP)',
    '       pigeonhole healthcheck [options]   exit 0 when the server at --host and --http-port answers',
    '                                          /readyz with 200 within 3 s, 1 otherwise',
    '       pigeonhole hash-password [USER]      read a password from standard input, print USER:<bcrypt hash>',
    '                                          (a line for --auth-file)',
    '       pigeonhole mcp [--url URL]             an MCP server on stdio (for MCP clients that start a command)',
    `                                          whose tools drive the sandbox at URL (default ${DEFAULT_MCP_URL})`,
    '       pigeonhole --help | --version',
    '',
    'Options (flags win over the PIGEONHOLE_* environment, which wins over the defaults):',
    usage(),
  ].join('\n');
}

/** `mcp`'s one option: --url (or --url=...), an http(s) URL of a running sandbox. */
function mcpUrl(args: string[]): string {
  let url = DEFAULT_MCP_URL;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--url' && i + 1 < args.length) url = args[++i]!;
    else if (arg.startsWith('--url=')) url = arg.slice('--url='.length);
    else throw new ConfigError(`mcp: unknown option ${JSON.stringify(arg)} (mcp takes --url URL)`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`mcp: --url: ${JSON.stringify(url)} is not a URL such as ${DEFAULT_MCP_URL}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError(`mcp: --url: ${JSON.stringify(url)} is not an http or https URL`);
  return url;
}

/** GET /readyz on the configured host and port: 0 when it answers 200, 1 otherwise. */
async function healthcheck(options: Options, io: CliIo): Promise<ExitCode> {
  if (options.httpPort === 0) throw new ConfigError("healthcheck needs the server's HTTP port; 0 (a free port) cannot be checked");
  // A server listening on every address is reached on loopback.
  const host = options.host === '0.0.0.0' ? '127.0.0.1' : options.host === '::' ? '::1' : options.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${options.httpPort}/readyz`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(HEALTHCHECK_TIMEOUT_MS) });
    const body = await response.text();
    if (response.status === 200) {
      io.out(`ready: ${url}`);
      return 0;
    }
    io.err(`not ready: ${url} answered ${response.status} ${body}`);
  } catch (error) {
    const e = error as Error & { cause?: { code?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${HEALTHCHECK_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message);
    io.err(`not ready: ${url}: ${reason}`);
  }
  return 1;
}

/** `hash-password [USER]`: a bcrypt hash of the password read from standard input, as an --auth-file line. */
async function hashPassword(args: string[], io: CliIo): Promise<ExitCode> {
  const [user, ...rest] = args;
  if (rest.length > 0 || user?.startsWith('-')) throw new ConfigError('usage: pigeonhole hash-password [USER] (the password is read from standard input)');
  if (user !== undefined && (user === '' || user.includes(':'))) throw new ConfigError('hash-password: the user name may not be empty or contain ":"');
  const password = await io.readPassword();
  if (password === '') throw new ConfigError('hash-password: no password on standard input');
  const hash = await bcrypt.hash(password, HASH_ROUNDS);
  io.out(user === undefined ? hash : `${user}:${hash}`);
  return 0;
}

/** The first line of standard input; on a terminal, asked for with a prompt and not echoed. */
function readPasswordLine(): Promise<string> {
  return new Promise((resolve) => {
    const terminal = process.stdin.isTTY === true;
    if (terminal) process.stderr.write('Password: ');
    // Whatever readline would echo goes nowhere.
    const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
    const lines = createInterface({ input: process.stdin, output: silent, terminal });
    let answered = false;
    lines.once('line', (line) => {
      answered = true;
      lines.close();
      if (terminal) process.stderr.write('\n');
      resolve(line);
    });
    lines.once('close', () => {
      if (!answered) resolve('');
    });
  });
}

const consoleIo: CliIo = { out: (line) => console.log(line), err: (line) => console.error(line), readPassword: readPasswordLine };
