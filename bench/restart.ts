import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startServer } from './lib/process-probes.ts';
import { format } from './lib/report.ts';
import { percentile } from './lib/stats.ts';

/**
 * Restart on a data directory that exists (one `npm run bench:checkpoint -- --keep` or `npm run
 * bench -- --keep` filled), side by side with an empty server, alternated: the compiled server
 * (`npm run build` first) spawned as `npm start` runs it, timed to its first /v1 send stored,
 * with its CPU to then and its RSS; each start stopped with SIGTERM (a clean stop, which writes
 * what changed, as a user's Ctrl-C does) before the next. Issue 29's targets: at most 1.3x the
 * empty server's at 100,000 captures, 2x at a million. See bench/README.md.
 */

const USAGE = `Usage: npm run bench:restart -- --data-dir DIR [--rounds N]
  --data-dir DIR   the filled data directory to restart on (it gains one capture per round)
  --rounds N       starts of each, alternated (default 3)`;

const median = (samples: number[]) => percentile(Float64Array.from(samples), 50);

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: { 'data-dir': { type: 'string' }, rounds: { type: 'string', default: '3' }, help: { type: 'boolean', default: false } },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help || typeof values['data-dir'] !== 'string') {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const full = path.resolve(values['data-dir']);
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    console.error(`--rounds: "${values.rounds}" is not a whole number >= 1`);
    return 2;
  }
  const signal = AbortSignal.timeout(60 * 60_000);
  console.log(`node ${process.version}, ${cpus().length} CPUs, ${rounds} rounds on ${full}\n`);
  console.log('| round | server | captures | spawn to first /v1 send (ms) | server CPU to it (ms) | RSS then (MB) |');
  console.log('|---:|---|---:|---:|---:|---:|');
  const times: Record<'empty' | 'full', number[]> = { empty: [], full: [] };
  const cpu: Record<'empty' | 'full', number[]> = { empty: [], full: [] };
  for (let round = 1; round <= rounds; round++) {
    for (const which of ['empty', 'full'] as const) {
      const dir = which === 'empty' ? await mkdtemp(path.join(tmpdir(), 'pigeonhole-bench-restart-')) : full;
      try {
        const started = await startServer(dir, 2, signal, 1_000_000 + 2 * round + (which === 'full' ? 1 : 0), 10 * 60_000);
        times[which].push(started.firstV1Ms);
        cpu[which].push(started.firstV1CpuMs);
        console.log(
          `| ${round} | ${which} | ${format(started.stored)} | ${format(started.firstV1Ms)} | ${format(started.firstV1CpuMs)} | ${format(started.memory.rss / 1024 / 1024, 1)} |`,
        );
        started.client.close();
        await started.pigeonhole.server.stop('SIGTERM');
      } finally {
        if (which === 'empty') await rm(dir, { recursive: true, force: true });
      }
    }
  }
  const ratio = median(times.full) / median(times.empty);
  const cpuRatio = median(cpu.full) / median(cpu.empty);
  console.log(
    `\nmedian: ${format(median(times.full))} ms against an empty server's ${format(median(times.empty))} ms: **${format(ratio, 2)}x** (server CPU ${format(cpuRatio, 2)}x)`,
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(2);
  },
);
