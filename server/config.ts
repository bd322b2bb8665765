import { parseArgs } from 'node:util';
import { ConfigError, loadSandboxConfig, type SandboxConfig } from './domain/directory/sandbox-config.ts';
import { type AuthUser, readAuthFile, readTlsFiles } from './config/config-files.ts';
import { envName, OPTIONS, type OptionName, type Options, type OptionSpec } from './config/option-table.ts';

export { ConfigError } from './domain/directory/sandbox-config.ts';
export { type Options, SAMPLE_CONFIG } from './config/option-table.ts';

/**
 * The configuration: defaults ← PIGEONHOLE_* environment ← command-line flags (the table of
 * options in config/option-table.ts, their parsers in config/option-values.ts), then the files
 * they name (config/config-files.ts and the sandbox configuration), read once and frozen.
 */

/** Everything the server runs with, read once and frozen. Nothing else reads process.env. */
export interface Config extends Options {
  readonly sandbox: SandboxConfig;
  /** The --auth-file's users (empty without one). */
  readonly authUsers: readonly AuthUser[];
  /** The PEM contents of --smtp-tls-cert and --smtp-tls-key files, checked to belong together; null without them (or with auto). */
  readonly smtpTlsFiles: { readonly cert: string; readonly key: string } | null;
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
  let flags: Record<string, string | boolean | (string | boolean)[] | undefined>;
  try {
    flags = parseArgs({
      args: argv,
      options: Object.fromEntries(
        Object.values(OPTIONS).map((o: OptionSpec | Omit<OptionSpec, 'env'>) => [
          o.flag,
          { type: o.boolean ? ('boolean' as const) : ('string' as const), ...(o.multiple ? { multiple: true } : {}) },
        ]),
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
    const given = flags[spec.flag];
    const fromFlag = Array.isArray(given) ? given.join(',') : given;
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
  if (o.relayAllow.length > 0 && o.relay === null) problems.push(`${sources.relayAllow}: needs --relay, the SMTP server releases go through`);
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

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
