import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killAll, ROOT, spawnedServers, stopAll } from './server-process.ts';

/** A numeric flag (`--name N`) or a switch (`--name`). */
export type FlagSpec = { kind: 'int' | 'number'; default: number; min: number; help: string } | { kind: 'switch'; help: string };

export type FlagValues<S extends Record<string, FlagSpec>> = { [K in keyof S]: S[K] extends { kind: 'switch' } ? boolean : number };

export interface BenchContext {
  /** Aborted on Ctrl-C or SIGTERM: stop what is running. */
  signal: AbortSignal;
  /** The arguments that are not flags (only for a spec with `positionals`). */
  positionals: string[];
  /** A fresh temporary directory, deleted when the benchmark exits. */
  tempDir(prefix: string): string;
  log(line: string): void;
}

export interface BenchSpec<S extends Record<string, FlagSpec>> {
  /** The command line, e.g. `npm run bench:smtp -- [options]`. */
  usage: string;
  /** What the benchmark measures, in a sentence or two. */
  about: string;
  flags: S;
  /** What the arguments that are not flags are, for `--help` (without it, none are accepted). */
  positionals?: string;
}

/** Exit code when the benchmark could not run or was stopped before it finished. */
const COULD_NOT_RUN = 2;

/**
 * Runs a benchmark: parses its flags (`--help` prints them), then `body`. Exits 0 when `body`
 * completes, whatever the targets said, and 2 when it could not run (bad flag, a server that
 * did not start, an error, Ctrl-C). Every process it started is stopped and every temporary
 * directory deleted on the way out, Ctrl-C included.
 */
export async function runBench<S extends Record<string, FlagSpec>>(
  spec: BenchSpec<S>,
  body: (flags: FlagValues<S>, context: BenchContext) => Promise<void>,
): Promise<never> {
  const help = usageText(spec);
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(help);
    process.exit(0);
  }
  let flags: FlagValues<S>;
  let positionals: string[];
  try {
    ({ flags, positionals } = parseFlags(spec.flags, argv, spec.positionals !== undefined));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${help}`);
    process.exit(COULD_NOT_RUN);
  }

  const temps: string[] = [];
  const removeTemps = () => {
    for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
  };
  // The last resort if something exits the process early: nothing is left running or on disk.
  process.on('exit', () => {
    killAll();
    removeTemps();
  });
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) {
      console.error(`${signal} again: killing the servers and exiting`);
      process.exit(COULD_NOT_RUN);
    }
    console.error(`${signal}: stopping (press Ctrl-C again to kill at once)`);
    abort.abort(new Error(`stopped by ${signal}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const context: BenchContext = {
    signal: abort.signal,
    positionals,
    tempDir(prefix) {
      const dir = mkdtempSync(path.join(tmpdir(), `pigeonhole-${prefix}-`));
      temps.push(dir);
      return dir;
    },
    log,
  };
  let code = 0;
  try {
    await Promise.race([body(flags, context), aborted(abort.signal)]);
  } catch (error) {
    code = COULD_NOT_RUN;
    console.error(`\nbenchmark did not complete: ${(error as Error).message}`);
    // After Ctrl-C the servers' output explains nothing; after an error it may.
    for (const server of abort.signal.aborted ? [] : spawnedServers()) {
      const output = server.output().trim();
      if (output) console.error(`--- ${server.name} output (last lines) ---\n${output.split('\n').slice(-30).join('\n')}`);
    }
  }
  await stopAll();
  removeTemps();
  process.exit(code);
}

/** `npm run build`: the servers are measured as `npm start` runs them (the compiled build). */
export function buildApp(skip: boolean): void {
  if (skip) {
    log('build skipped (--skip-build): using dist/ as it is');
    return;
  }
  log('npm run build');
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
}

export function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

/** Resolves never; rejects when the signal aborts. */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

function parseFlags<S extends Record<string, FlagSpec>>(specs: S, argv: string[], allowPositionals: boolean): { flags: FlagValues<S>; positionals: string[] } {
  const options = Object.fromEntries(
    Object.entries(specs).map(([name, spec]) => [name, { type: spec.kind === 'switch' ? ('boolean' as const) : ('string' as const) }]),
  );
  const { values, positionals } = parseArgs({ args: argv, options, strict: true, allowPositionals });
  const out: Record<string, number | boolean> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const raw = values[name];
    if (spec.kind === 'switch') {
      out[name] = raw === true;
      continue;
    }
    if (typeof raw !== 'string') {
      out[name] = spec.default;
      continue;
    }
    const value = Number(raw.replace(/_/g, ''));
    const valid = spec.kind === 'int' ? Number.isSafeInteger(value) : Number.isFinite(value);
    if (!valid || value < spec.min) throw new Error(`--${name}: "${raw}" is not a ${spec.kind === 'int' ? 'whole number' : 'number'} >= ${spec.min}`);
    out[name] = value;
  }
  return { flags: out as FlagValues<S>, positionals };
}

function usageText<S extends Record<string, FlagSpec>>(spec: BenchSpec<S>): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => {
    const left = flag.kind === 'switch' ? `--${name}` : `--${name} ${flag.kind === 'int' ? 'N' : 'X'}`;
    const fallback = flag.kind === 'switch' ? '' : ` (default ${flag.default})`;
    return `  ${left.padEnd(22)}${flag.help}${fallback}`;
  });
  const args = spec.positionals ? `Arguments: ${spec.positionals}\n\n` : '';
  return `Usage: ${spec.usage}\n\n${spec.about}\n\n${args}${[...rows, `  ${'--help'.padEnd(22)}this text`].join('\n')}`;
}
