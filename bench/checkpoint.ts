import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { HttpClient } from './lib/http-client.ts';
import { runSends } from './lib/load.ts';
import { startServer, type Started } from './lib/process-probes.ts';
import { format } from './lib/report.ts';
import { percentile } from './lib/stats.ts';

/**
 * Send latency during a background checkpoint (issue 33, item 4): the real server, filled through
 * /v1 to --count captures (a new recipient and 0.5 KB of HTML each, retention off), then loaded
 * with --sends sends at --concurrency while /metrics is read every 100 ms for the checkpoint runs
 * (pigeonhole_storage_checkpoint_last_started_seconds / _last_finished_seconds). Each timed send
 * is "during a checkpoint" when its request overlaps a run, "baseline" otherwise; the target is
 * the p99 during at most 1.2x the baseline p99 in the same process. See bench/README.md.
 */

const USAGE = `Usage: npm run bench:checkpoint -- [--count N] [--sends N] [--concurrency N] [--keep]
  --count N        captures stored before the timed sends (default 100000)
  --sends N        timed sends, long enough for several checkpoint runs (default 40000)
  --concurrency N  parallel connections while timing (default 8)
  --fill-concurrency N  parallel connections while filling (default 32)
  --keep           keep the temporary data directory`;

interface Run {
  startedMs: number;
  finishedMs: number;
}

async function main(): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        count: { type: 'string', default: '100000' },
        sends: { type: 'string', default: '40000' },
        concurrency: { type: 'string', default: '8' },
        'fill-concurrency': { type: 'string', default: '32' },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const number = (name: string) => {
    const value = Number(values[name]);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name}: "${values[name]}" is not a whole number >= 1`);
    return value;
  };
  const count = number('count');
  const sends = number('sends');
  const concurrency = number('concurrency');
  const fillConcurrency = number('fill-concurrency');
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort(new Error('interrupted')));
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-bench-checkpoint-'));
  log(`node ${process.version}, ${cpus().length} CPUs, count ${format(count)}, ${format(sends)} timed sends at concurrency ${concurrency}`);
  let server: Started | null = null;
  try {
    server = await startServer(dataDir, Math.max(concurrency, fillConcurrency), abort.signal, 1, 30_000 + count / 20);
    let next = 2;
    const fill = await runSends(server.client, {
      sends: count - 1,
      concurrency: fillConcurrency,
      firstRecipient: next,
      signal: abort.signal,
      onProgress: (done, seconds) => log(`fill: ${format(done + 1)}/${format(count)} stored, ${format(done / seconds)} sends/s`),
    });
    next += count - 1;
    log(`fill: done in ${format(fill.seconds, 1)} s (${format(fill.sends / fill.seconds)} sends/s)`);

    const metrics = new HttpClient(server.pigeonhole.url, 1);
    const runs = new Map<number, Run>();
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const reply = await metrics.get('/metrics');
        const started = gauge(reply.body, 'pigeonhole_storage_checkpoint_last_started_seconds');
        const finished = gauge(reply.body, 'pigeonhole_storage_checkpoint_last_finished_seconds');
        if (started > 0 && finished >= started) runs.set(started, { startedMs: started * 1000, finishedMs: finished * 1000 });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const cpuBefore = await server.pigeonhole.server.cpuMs();
    const timed = await runSends(server.client, { sends, concurrency, firstRecipient: next, signal: abort.signal });
    const cpuMs = (await server.pigeonhole.server.cpuMs()) - cpuBefore;
    polling = false;
    await poll;
    metrics.close();
    const load = loadavg()[0]!;
    const first = timed.startedAtMs[0]!;
    // Only the runs that began while the timed sends ran.
    const inWindow = [...runs.values()].filter((run) => run.finishedMs >= first).sort((a, b) => a.startedMs - b.startedMs);
    const during: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < timed.sends; i++) {
      const start = timed.startedAtMs[i]!;
      const end = start + timed.latenciesMs[i]!;
      (inWindow.some((run) => start <= run.finishedMs && end >= run.startedMs) ? during : baseline).push(timed.latenciesMs[i]!);
    }
    const durations = Float64Array.from(inWindow, (run) => run.finishedMs - run.startedMs);
    const p99During = percentile(Float64Array.from(during), 99);
    const p99Baseline = percentile(Float64Array.from(baseline), 99);
    const ratio = p99During / p99Baseline;
    const memory = await server.pigeonhole.server.memory();
    log(
      `timed: ${format(timed.sends)} sends in ${format(timed.seconds, 1)} s (${format(timed.sends / timed.seconds)} sends/s), server CPU ${format(cpuMs / timed.sends, 3)} ms/send, load ${format(load, 2)}, RSS ${format(memory.rss / 1024 / 1024, 1)} MB`,
    );
    console.log(`\n## Send latency during a checkpoint, ${format(count)} captures\n`);
    console.log('| | sends | median (ms) | p99 (ms) | max (ms) |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [label, samples] of [
      ['outside a checkpoint (baseline)', baseline],
      ['during a checkpoint run', during],
    ] as const) {
      const all = Float64Array.from(samples);
      console.log(
        `| ${label} | ${format(all.length)} | ${format(percentile(all, 50), 2)} | ${format(percentile(all, 99), 2)} | ${format(percentile(all, 100), 2)} |`,
      );
    }
    console.log(
      `\ncheckpoint runs while timing: ${inWindow.length} (duration median ${format(percentile(durations, 50), 1)} ms, max ${format(percentile(durations, 100), 1)} ms)`,
    );
    const pass = inWindow.length > 0 && during.length > 0 && ratio <= 1.2;
    console.log(
      `- ${pass ? 'PASS' : 'FAIL'}  send p99 during a checkpoint <= 1.2x the baseline p99 (issue 33, ${format(count)}): ${Number.isFinite(ratio) ? `${format(ratio, 2)}x` : 'no send overlapped a checkpoint run'} (${format(p99During, 2)} ms against ${format(p99Baseline, 2)} ms)`,
    );
    return pass ? 0 : 1;
  } finally {
    if (server) {
      server.client.close();
      await server.pigeonhole.server.stop('SIGTERM');
    }
    if (values.keep) log(`kept ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}

/** A gauge's value in Prometheus text (0 when absent). */
function gauge(text: string, name: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
  }
  return 0;
}

function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof Error ? error.stack : error);
    process.exit(1);
  },
);
