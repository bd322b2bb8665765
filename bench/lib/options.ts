import { parseArgs, type ParseArgsConfig } from 'node:util';

/** What one benchmark run does; every field has a command-line flag. */
export interface BenchOptions {
  /** Captures stored before the second measurement. */
  count: number;
  /** Timed sends per measurement phase. */
  sample: number;
  /** Untimed sends before each measurement phase (JIT, sockets, caches). */
  warmup: number;
  /** Sends (then a reset) that warm the process before the empty phase, as the fill warms the full one. */
  coldStart: number;
  /** Parallel keep-alive connections while measuring. */
  concurrency: number;
  /** Parallel keep-alive connections while filling. */
  fillConcurrency: number;
  /** Sequential requests per read probe. */
  reads: number;
  /** The whole run is aborted after this many seconds. */
  timeLimitSeconds: number;
  /** Keep the temporary data directory instead of deleting it. */
  keep: boolean;
}

const DEFAULTS = {
  count: 100_000,
  sample: 2_000,
  warmup: 2_000,
  'cold-start': 10_000,
  concurrency: 8,
  'fill-concurrency': 32,
  reads: 20,
  'time-limit': 1_800,
};

export const USAGE = `Usage: npm run bench -- [options]

  --count N             captures stored before the second measurement (default ${DEFAULTS.count})
  --sample N            timed sends per measurement phase (default ${DEFAULTS.sample})
  --warmup N            untimed sends before each phase (default ${DEFAULTS.warmup})
  --cold-start N        sends, then a reset, before the empty phase: its process is as warm as
                        the one measured full (default ${DEFAULTS['cold-start']})
  --concurrency N       parallel connections while measuring (default ${DEFAULTS.concurrency})
  --fill-concurrency N  parallel connections while filling (default ${DEFAULTS['fill-concurrency']})
  --reads N             requests per read probe and per search query (default ${DEFAULTS.reads})
  --time-limit S        abort the run after S seconds (default ${DEFAULTS['time-limit']}, or 600 plus
                        one per 250 captures when that is longer: 4,600 for a million)
  --keep                keep the temporary data directory`;

/** Parses the benchmark's flags; throws with a readable message on a bad value. */
export function parseOptions(argv: string[]): BenchOptions {
  const flags: ParseArgsConfig['options'] = { keep: { type: 'boolean' } };
  for (const name of Object.keys(DEFAULTS)) flags[name] = { type: 'string' };
  const { values } = parseArgs({ args: argv, options: flags, strict: true, allowPositionals: false });
  const read = (name: keyof typeof DEFAULTS, min: number): number => {
    const raw = values[name];
    if (typeof raw !== 'string') return DEFAULTS[name];
    const value = Number(raw.replace(/_/g, ''));
    if (!Number.isSafeInteger(value) || value < min) throw new Error(`--${name}: "${raw}" is not a whole number >= ${min}`);
    return value;
  };
  const options: BenchOptions = {
    count: read('count', 1),
    sample: read('sample', 1),
    warmup: read('warmup', 0),
    coldStart: read('cold-start', 0),
    concurrency: read('concurrency', 1),
    fillConcurrency: read('fill-concurrency', 1),
    reads: read('reads', 1),
    timeLimitSeconds: 0,
    keep: values.keep === true,
  };
  // The fill runs at 1,000-4,000 sends/s here; a million must not be cut short by the default.
  options.timeLimitSeconds =
    values['time-limit'] === undefined ? Math.max(DEFAULTS['time-limit'], 600 + Math.ceil(options.count / 250)) : read('time-limit', 1);
  if (options.count < options.warmup + options.sample) {
    throw new Error(`--count ${options.count} must be at least --warmup + --sample (${options.warmup + options.sample})`);
  }
  return options;
}
