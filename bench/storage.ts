import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { runSends, timeReads } from './lib/load.ts';
import { parseOptions, USAGE, type BenchOptions } from './lib/options.ts';
import { diskUsage, startServer, storedCount, type DiskUsage, type Started } from './lib/process-probes.ts';
import {
  comparisonTable,
  diskLine,
  format,
  targetLines,
  targets,
  type FullFigures,
  type PhaseFigures,
  type SideFigures,
  type StartFigures,
} from './lib/report.ts';
import { searchTable, slowestMedian, timeSearches, type SearchRow } from './lib/search-api.ts';
import { percentile } from './lib/stats.ts';

/**
 * Storage benchmark (docs/storage.md): the real server as its own process, loaded through
 * /v1 on an empty store and again once it holds --count captures, then restarted on the same
 * data directory, where search through the API is timed. Memory is always that of the process
 * that did the work: the one that ingested the captures, and the restarted one. Prints a
 * side-by-side table, the searches and the targets (issue 21's column chosen by --count).
 * See bench/README.md.
 */

/** How long a server may take to listen: 30 s, and a second more per 20,000 captures it opens. */
const startTimeoutMs = (captures: number) => 30_000 + captures / 20;
class StorageBench {
  /** Sends made so far; also the last recipient number used. */
  private sent = 0;
  /** Captures stored (sends made after the warming reset). */
  private stored = 0;
  private current: Started | null = null;

  constructor(
    private readonly options: BenchOptions,
    private readonly dataDir: string,
    private readonly signal: AbortSignal,
  ) {}

  async run(): Promise<{ empty: SideFigures; full: FullFigures; disk: DiskUsage; search: SearchRow[] }> {
    const { options } = this;
    log(`data directory ${this.dataDir}`);
    const emptyStart = await this.start('empty');
    // The empty phase runs on a process as warm as the full one will be (JIT, pools, caches):
    // it sends, then resets the sandbox, so it is empty again but no longer cold.
    if (options.coldStart > 0) {
      log(`warming: ${format(options.coldStart)} sends, then POST /api/reset`);
      await this.send(options.coldStart, options.fillConcurrency);
      const reply = await this.server.client.post('/api/reset', {});
      if (reply.status !== 200) throw new Error(`POST /api/reset: HTTP ${reply.status} ${reply.body}`);
      this.stored = 0;
    }
    const emptyPhase = await this.measure('empty');
    const empty: SideFigures = { start: emptyStart, phase: emptyPhase, peakMemory: (await this.server.pigeonhole.server.memory()).peak };

    await this.fill(options.count);
    const afterFill = await this.server.pigeonhole.server.memory();
    log(`after the fill: RSS ${mb(afterFill.rss)} (peak ${mb(afterFill.peak)}) in the process that ingested`);
    const disk = await diskUsage(this.dataDir);
    log(diskLine(disk, this.stored));
    const fullPhase = await this.measure(`${format(options.count)} stored`);
    const peakMemory = (await this.server.pigeonhole.server.memory()).peak;
    await this.stop();

    log(`restart: spawning the server on ${format(this.stored)} captures`);
    const fullStart = await this.start('restart');
    const found = await storedCount(this.server.client);
    if (found !== this.stored) throw new Error(`restart found ${found} captures, ${this.stored} were accepted`);
    const restartedPhase = await this.measure('after restart');
    const search = await timeSearches(this.server.client, options.reads, this.signal, (row) =>
      log(`search "${row.q}" (${row.label}): ${format(row.hits)} hits, median ${format(row.medianMs, 1)} ms, p95 ${format(row.p95Ms, 1)} ms`),
    );
    await this.stop();
    return { empty, full: { start: fullStart, phase: fullPhase, restartedPhase, peakMemory, afterFill }, disk, search };
  }

  /** Stops the server if one is running (also after a failure). */
  async stop(): Promise<void> {
    const current = this.current;
    if (!current) return;
    this.current = null;
    current.client.close();
    const code = await current.pigeonhole.server.stop('SIGTERM');
    if (code !== 0) throw new Error(`server exited with ${code} on SIGTERM:\n${current.pigeonhole.server.output().slice(-2000)}`);
  }

  /** The server's recent output, to explain a failure. */
  serverOutput(): string {
    return this.current?.pigeonhole.server.output().slice(-2000) ?? '';
  }

  private get server(): Started {
    if (!this.current) throw new Error('no server running');
    return this.current;
  }

  private async start(label: string): Promise<StartFigures> {
    const sockets = Math.max(this.options.concurrency, this.options.fillConcurrency);
    this.current = await startServer(this.dataDir, sockets, this.signal, this.sent + 1, startTimeoutMs(this.stored));
    // The probe send that timed the first /v1 answer.
    this.sent++;
    this.stored++;
    const { listeningMs, firstReadMs, firstV1Ms, firstV1CpuMs, memory, stored } = this.current;
    log(
      `${label}: ${format(stored)} stored, listening after ${format(listeningMs)} ms, first read after ${format(firstReadMs)} ms, ` +
        `first /v1 send after ${format(firstV1Ms)} ms (${format(firstV1CpuMs)} ms of server CPU), RSS ${mb(memory.rss)}`,
    );
    return { listeningMs, firstReadMs, firstV1Ms, firstV1CpuMs, memory };
  }

  /** Warm-up, then the timed sends at --concurrency, then the read probes. */
  private async measure(label: string): Promise<PhaseFigures> {
    const { options } = this;
    const { client, pigeonhole } = this.server;
    await this.send(options.warmup, options.concurrency);
    const stored = await storedCount(client);
    const cpuBefore = await pigeonhole.server.cpuMs();
    const result = await this.send(options.sample, options.concurrency);
    const cpuMs = (await pigeonhole.server.cpuMs()) - cpuBefore;
    const loadAverage = loadavg()[0]!;
    const memoryAfter = await pigeonhole.server.memory();
    const inbox = await timeReads(client, '/api/messages?limit=50', options.reads);
    const v1List = await timeReads(client, '/v1/email/list/', options.reads);
    const figures: PhaseFigures = {
      stored,
      medianMs: percentile(result.latenciesMs, 50),
      p99Ms: percentile(result.latenciesMs, 99),
      sendsPerSecond: result.sends / result.seconds,
      cpuMsPerSend: cpuMs / result.sends,
      loadAverage,
      inboxReadMs: percentile(inbox, 50),
      v1ListMs: percentile(v1List, 50),
      memoryAfter,
    };
    log(
      `${label}: ${format(options.sample)} sends at concurrency ${options.concurrency} from ${format(stored)} stored: ` +
        `median ${format(figures.medianMs, 2)} ms, p99 ${format(figures.p99Ms, 2)} ms, ${format(figures.sendsPerSecond)} sends/s, ` +
        `server CPU ${format(figures.cpuMsPerSend, 2)} ms/send, load ${format(loadAverage, 2)}, RSS ${mb(memoryAfter.rss)}, ` +
        `GET /v1/email/list/ ${format(figures.v1ListMs, 2)} ms`,
    );
    return figures;
  }

  /** Sends until the store holds `target` captures, printing progress. */
  private async fill(target: number): Promise<void> {
    const missing = target - this.stored;
    log(`fill: ${format(missing)} sends at concurrency ${this.options.fillConcurrency} to reach ${format(target)}`);
    const server = this.server.pigeonhole.server;
    const result = await this.send(missing, this.options.fillConcurrency, (done, seconds) => {
      const rate = done / seconds;
      const line = `fill: ${format(target - missing + done)}/${format(target)} stored, ${format(rate)} sends/s, ${format((missing - done) / rate)} s to go`;
      void server.memory().then(
        (memory) => log(`${line}, RSS of the ingesting process ${mb(memory.rss)}`),
        () => log(line),
      );
    });
    log(`fill: done in ${format(result.seconds, 1)} s (${format(result.sends / result.seconds)} sends/s)`);
  }

  private async send(sends: number, concurrency: number, onProgress?: (done: number, seconds: number) => void) {
    const result = await runSends(this.server.client, { sends, concurrency, firstRecipient: this.sent + 1, signal: this.signal, onProgress });
    this.sent += sends;
    this.stored += sends;
    return result;
  }
}

function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

function mb(bytes: number): string {
  return `${format(bytes / 1024 / 1024, 1)} MB`;
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help')) {
    console.log(USAGE);
    return 0;
  }
  let options: BenchOptions;
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort(new Error('interrupted')));
  const limit = setTimeout(() => abort.abort(new Error(`time limit of ${options.timeLimitSeconds} s reached (--time-limit)`)), options.timeLimitSeconds * 1000);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-bench-'));
  const bench = new StorageBench(options, dataDir, abort.signal);
  try {
    log(`node ${process.version}, ${cpus().length} CPUs, count ${format(options.count)}, sample ${format(options.sample)}`);
    // The server is measured as `npm start` runs it: the compiled build, not tsx.
    execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
    const { empty, full, disk, search } = await bench.run();
    const table = comparisonTable(empty, full, `${format(options.count)} stored`);
    const searches = `GET /api/messages?q=... on the restarted process, ${format(full.restartedPhase.stored + options.sample)} captures, ${options.reads} sequential requests each (ms):\n\n${searchTable(search)}`;
    const judged = targets(empty, full, disk, options.count, slowestMedian(search));
    console.log(`\n${table}\n\n${diskLine(disk, options.count)}\n\n${searches}\n\n${targetLines(judged)}`);
    return 0;
  } catch (error) {
    const output = bench.serverOutput();
    console.error(`bench failed: ${(error as Error).message}${output ? `\n--- server output ---\n${output}` : ''}`);
    return 2;
  } finally {
    clearTimeout(limit);
    await bench.stop().catch((error: unknown) => console.error((error as Error).message));
    if (options.keep) log(`kept ${dataDir}`);
    else await rm(dataDir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
