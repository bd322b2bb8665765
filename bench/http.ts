import { loadavg } from 'node:os';
import { buildApp, runBench } from './lib/cli.ts';
import { format, mb, median, table, targetLine } from './lib/figures.ts';
import { HttpClient } from './lib/http-client.ts';
import { ensurePeers, requirePeer } from './lib/peers.ts';
import { DEFAULT_CAP, fillPastCap, pairRatios, ratioText, storedCaptures } from './lib/retention-limit.ts';
import { spawnPigeonhole, spawnServer, type ChildServer } from './lib/server-process.ts';

/** Issue 10, point 4: the durable send at least 0.15x a bare Koa + koa-body endpoint (at the default retention limit too: issue 21, point 6). */
const BARE_TARGET = 0.15;
const API_KEY = 'bulk-key';

/** What this benchmark reads of autocannon's result (autocannon ships no types). */
interface AutocannonResult {
  /** Seconds. */
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p99: number; average: number; max: number };
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (
  options: { url: string; connections: number; duration: number; requests: AutocannonRequest[] },
  done: (error: Error | null, result: AutocannonResult) => void,
) => { stop(): void };

interface Contender {
  name: string;
  server: ChildServer;
  url: string;
  rates: number[];
  p50: number[];
  p99: number[];
  ok: number;
  /** Non-2xx answers by status code, socket errors and timeouts. */
  failures: Map<string, number>;
}

await runBench(
  {
    usage: 'npm run bench:http -- [options]',
    about:
      'HTTP durable send: autocannon POSTs /v1/email/send/ (Api-Key bulk-key, a JSON body with a new\n' +
      'recipient every request) to Pigeonhole (compiled, retention off), to Pigeonhole at its default\n' +
      'settings filled past the retention limit first (every send also prunes one), and to a bare Koa +\n' +
      'koa-body endpoint that validates the three fields and stores nothing, alternated A B C A B C.\n' +
      'Prints 2xx requests/s and latency per round, the medians, the ratios (also round by round)\n' +
      'against the target, and RSS.',
    flags: {
      rounds: { kind: 'int', default: 3, min: 1, help: 'measured rounds (each runs both servers once)' },
      seconds: { kind: 'int', default: 10, min: 1, help: 'length of one measured run (autocannon counts whole seconds)' },
      warmup: { kind: 'int', default: 5, min: 0, help: 'unmeasured seconds per server before the rounds' },
      connections: { kind: 'int', default: 32, min: 1, help: 'HTTP connections' },
      'skip-build': { kind: 'switch', help: 'use dist/ as it is instead of running npm run build' },
      fsync: { kind: 'switch', help: 'also measure a third server: Pigeonhole with --fsync (what flushing every write to stable storage costs)' },
    },
  },
  async (flags, { signal, tempDir, log }) => {
    ensurePeers();
    const autocannon = requirePeer<Autocannon>('autocannon');
    buildApp(flags['skip-build']);

    const pigeonhole = await spawnPigeonhole(tempDir('bench-http-data'), ['--max-messages', '0']);
    // The default settings: retention keeps the newest DEFAULT_CAP captures.
    const atLimit = await spawnPigeonhole(tempDir('bench-http-limit'));
    const bare = await spawnServer('bare', {
      args: ['--import', 'tsx', 'bench/lib/bare-koa-main.ts', '--port', '0'],
      ready: /bare Koa listening on (http:\/\/\S+)/,
    });
    const synced = flags.fsync ? await spawnPigeonhole(tempDir('bench-http-fsync'), ['--max-messages', '0', '--fsync']) : null;
    const contenders: Contender[] = [
      { name: 'Pigeonhole', server: pigeonhole.server, url: pigeonhole.url },
      { name: `Pigeonhole at the limit (${format(DEFAULT_CAP)})`, server: atLimit.server, url: atLimit.url },
      { name: 'bare Koa + koa-body', server: bare.server, url: bare.match[1]! },
      ...(synced ? [{ name: 'Pigeonhole --fsync', server: synced.server, url: synced.url }] : []),
    ].map((c) => ({ ...c, rates: [], p50: [], p99: [], ok: 0, failures: new Map() }));
    log(
      `pigeonhole pid ${pigeonhole.server.pid} (${pigeonhole.url}), at the limit pid ${atLimit.server.pid} (${atLimit.url}), ` +
        `bare pid ${bare.server.pid} (${contenders[2]!.url}); ${flags.connections} connections`,
    );
    const limitApi = new HttpClient(atLimit.url, 2);

    // Every request goes to a new recipient (autocannon rebuilds the request through this hook).
    let sent = 0;
    const request: AutocannonRequest = {
      method: 'POST',
      path: '/v1/email/send/',
      headers: { Authorization: `Api-Key ${API_KEY}`, 'Content-Type': 'application/json' },
      setupRequest(base) {
        sent++;
        const body = JSON.stringify({
          recipient: `user-${sent}@example.com`,
          subject: `HTTP benchmark ${sent}`,
          body: `<p>Hello user ${sent},</p><p>This is send number ${sent} of the HTTP benchmark.</p>`,
        });
        return { ...base, body };
      },
    };
    const load = async (contender: Contender, seconds: number): Promise<AutocannonResult> => {
      if (!contender.server.running) throw new Error(`${contender.name} is no longer running`);
      let stop = () => {};
      const result = await new Promise<AutocannonResult>((resolve, reject) => {
        const run = autocannon({ url: contender.url, connections: flags.connections, duration: seconds, requests: [request] }, (error, done) =>
          error ? reject(error) : resolve(done),
        );
        stop = () => run.stop();
        signal.addEventListener('abort', stop, { once: true });
      }).finally(() => signal.removeEventListener('abort', stop));
      signal.throwIfAborted();
      return result;
    };
    const failuresOf = (result: AutocannonResult): Map<string, number> => {
      const failures = new Map<string, number>();
      for (const [code, { count }] of Object.entries(result.statusCodeStats)) if (!code.startsWith('2')) failures.set(`HTTP ${code}`, count);
      if (result.errors > 0) failures.set('socket errors', result.errors);
      if (result.timeouts > 0) failures.set('timeouts', result.timeouts);
      return failures;
    };
    const failureText = (failures: Map<string, number>) => [...failures].map(([what, count]) => `${format(count)} ${what}`).join(', ');

    // Untimed: past the cap, so that every send of the rounds also prunes one.
    await fillPastCap(
      limitApi,
      async (seconds) => {
        const result = await load(contenders[1]!, seconds);
        const failures = failuresOf(result);
        if (failures.size > 0) throw new Error(`filling Pigeonhole past the limit: ${failureText(failures)}`);
        return result['2xx'];
      },
      signal,
      log,
    );

    if (flags.warmup > 0) {
      for (const contender of contenders) {
        const result = await load(contender, flags.warmup);
        const failures = failuresOf(result);
        log(`warm-up ${contender.name}: ${format(result['2xx'] / result.duration)} 2xx/s${failures.size > 0 ? `; FAILED: ${failureText(failures)}` : ''}`);
      }
    }
    for (let round = 1; round <= flags.rounds; round++) {
      for (const contender of contenders) {
        const result = await load(contender, flags.seconds);
        const rate = result['2xx'] / result.duration;
        contender.rates.push(rate);
        contender.p50.push(result.latency.p50);
        contender.p99.push(result.latency.p99);
        contender.ok += result['2xx'];
        const failures = failuresOf(result);
        for (const [what, count] of failures) contender.failures.set(what, (contender.failures.get(what) ?? 0) + count);
        const kept = contender.server === atLimit.server ? `, ${format(await storedCaptures(limitApi))} kept` : '';
        log(
          `round ${round} ${contender.name}: ${format(rate)} 2xx/s (${format(result['2xx'])} in ${format(result.duration, 1)} s${kept}), ` +
            `latency p50 ${format(result.latency.p50, 1)} ms, p99 ${format(result.latency.p99, 1)} ms, max ${format(result.latency.max)} ms, load ${format(loadavg()[0]!, 2)}`,
        );
        if (failures.size > 0) console.error(`  !! ${contender.name} FAILED requests in round ${round}: ${failureText(failures)}`);
      }
    }

    const memory = await Promise.all(contenders.map((c) => c.server.memory()));
    const header = [
      'server (2xx requests/s)',
      ...contenders[0]!.rates.map((_, i) => `round ${i + 1}`),
      'median',
      'latency p50 (ms)',
      'latency p99 (ms)',
      'peak RSS',
      'RSS at end',
    ];
    const rows = contenders.map((c, i) => [
      c.name,
      ...c.rates.map((rate) => format(rate)),
      `**${format(median(c.rates))}**`,
      format(median(c.p50), 1),
      format(median(c.p99), 1),
      mb(memory[i]!.peak),
      mb(memory[i]!.rss),
    ]);
    const [ours, , ceiling] = contenders.map((c) => median(c.rates)) as [number, number, number];
    // At the limit, judged round by round: each pair of runs saw the same machine.
    const limitBare = pairRatios(contenders[1]!.rates, contenders[2]!.rates);
    const failed = contenders.filter((c) => c.failures.size > 0);
    console.log(`\n${table(header, rows)}\n`);
    console.log(
      `latency columns: the median over the rounds of each round's p50 and p99; Pigeonhole answered ${format(contenders[0]!.ok)} sends 200 in the measured rounds\n`,
    );
    console.log(`Pigeonhole / bare Koa: ${format(ours / ceiling, 3)}x (medians)`);
    console.log(
      `round by round: Pigeonhole / bare Koa ${ratioText(pairRatios(contenders[0]!.rates, contenders[2]!.rates), 3)}; ` +
        `at the limit / bare Koa ${ratioText(limitBare, 3)}; at the limit / Pigeonhole ${ratioText(pairRatios(contenders[1]!.rates, contenders[0]!.rates))}`,
    );
    console.log(`captures kept by Pigeonhole at the limit at the end: ${format(await storedCaptures(limitApi))} (cap ${format(DEFAULT_CAP)})\n`);
    limitApi.close();
    if (contenders[3]) {
      const synced = median(contenders[3].rates);
      console.log(
        `Pigeonhole --fsync / Pigeonhole: ${format(synced / ours, 3)}x throughput, p50 ${format(median(contenders[3].p50), 1)} ms against ${format(median(contenders[0]!.p50), 1)} ms (medians)\n`,
      );
    }
    console.log(targetLine(ours >= BARE_TARGET * ceiling, `Pigeonhole >= ${BARE_TARGET}x bare Koa + koa-body`, `${format(ours / ceiling, 3)}x`));
    console.log(
      targetLine(
        limitBare.median >= BARE_TARGET,
        `Pigeonhole at the default retention limit >= ${BARE_TARGET}x bare Koa + koa-body (median of the rounds' ratios)`,
        `${format(limitBare.median, 3)}x`,
      ),
    );
    console.log(
      targetLine(
        failed.length === 0,
        'every request answered 2xx',
        failed.length === 0 ? 'yes' : failed.map((c) => `${c.name}: ${failureText(c.failures)}`).join('; '),
      ),
    );
    if (failed.length > 0) console.error('\n!! Some requests failed: the throughput above counts only 2xx answers and is not a valid comparison.');
  },
);
