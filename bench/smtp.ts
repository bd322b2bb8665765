import { existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadavg } from 'node:os';
import { buildApp, runBench, type BenchContext } from './lib/cli.ts';
import { format, mb, median, table, targetLine } from './lib/figures.ts';
import { HttpClient } from './lib/http-client.ts';
import { ensurePeers, MAILDEV_BIN } from './lib/peers.ts';
import { DEFAULT_CAP, fillPastCap, pairRatios, ratioText, storedCaptures } from './lib/retention-limit.ts';
import { freePort, spawnPigeonhole, spawnServer, type ChildServer } from './lib/server-process.ts';
import { refusalLines, runSmtpLoad, type SmtpLoadResult } from './lib/smtp-load.ts';
import { FIXTURE_HTML_BYTES, FIXTURE_MESSAGE, MAILPARSER_MESSAGE } from './lib/smtp-message.ts';

/**
 * Issue 10, point 4: SMTP capture at least 1.2x MailDev 2.2.1 and at least 0.6x the bare ceiling;
 * issue 21, point 6: at least 1.2x MailDev at the default retention limit too.
 */
const MAILDEV_TARGET = 1.2;
const BARE_TARGET = 0.6;

interface Contender {
  name: string;
  server: ChildServer;
  port: number;
  rates: number[];
  accepted: number;
  refused: number;
  lost: number;
  /** Server CPU time spent in the measured rounds, in ms (drain included). */
  cpuMs: number;
  /** Per round: messages accepted over the round plus the time the server then needed to go idle. */
  sustained: number[];
}

/**
 * Waits until the process stops using CPU (two 200 ms windows under 10 ms each): work it put
 * off after answering (MailDev parses and writes after its 250; Pigeonhole takes SMTP messages
 * apart after storing them) is done before the next server is measured, and counted for the
 * server that owes it. Resolves with how long that took, in seconds.
 */
async function quiesce(server: ChildServer, signal: AbortSignal): Promise<number> {
  const started = performance.now();
  let quiet = 0;
  let last = await server.cpuMs();
  while (quiet < 2) {
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await server.cpuMs();
    quiet = now - last < 10 ? quiet + 1 : 0;
    last = now;
  }
  // The two quiet windows are idle time, not work.
  return Math.max(0, (performance.now() - started) / 1000 - 0.4);
}

await runBench(
  {
    usage: 'npm run bench:smtp -- [options] [<checkout of another revision, built>]',
    positionals: 'a checkout of another revision with its build (npm run build in it), run beside this one at the limit',
    about:
      'SMTP capture throughput: Pigeonhole (compiled, retention off), Pigeonhole at its default\n' +
      'settings filled past the retention limit first (every capture also prunes one), MailDev 2.2.1\n' +
      'and a bare smtp-server + mailparser that stores nothing, each its own process, the same raw\n' +
      'pipelined client and message, alternated A B C D A B C D. Prints messages/s per round, the\n' +
      "medians, the ratios (also round by round) against the targets, and each process's peak RSS.\n" +
      'Given a checkout of another revision with its build (npm run build in it), its Pigeonhole at the\n' +
      'limit runs too, in the same alternation, and is compared with this one round by round.',
    flags: {
      rounds: { kind: 'int', default: 3, min: 1, help: 'measured rounds (each runs every server once)' },
      seconds: { kind: 'number', default: 10, min: 0.5, help: 'length of one measured run' },
      warmup: { kind: 'number', default: 5, min: 0, help: 'unmeasured seconds per server before the rounds' },
      connections: { kind: 'int', default: 8, min: 1, help: 'SMTP connections' },
      'skip-build': { kind: 'switch', help: 'use dist/ as it is instead of running npm run build' },
      'mailparser-message': {
        kind: 'switch',
        help: "send the message with its plain part in ISO-8859-1: Pigeonhole's quick MIME read leaves it to mailparser",
      },
    },
  },
  async (flags, { signal, tempDir, log, positionals }: BenchContext) => {
    const [before] = positionals;
    if (positionals.length > 1) throw new Error('one other checkout at most');
    if (before !== undefined && !existsSync(path.join(before, 'dist/server/main.js'))) throw new Error(`${before} has no build: npm run build in it first`);
    ensurePeers();
    buildApp(flags['skip-build']);
    const message = flags['mailparser-message'] ? MAILPARSER_MESSAGE : FIXTURE_MESSAGE;
    log(
      `message: ${format(message.length)} bytes (multipart/alternative, HTML part ${format(FIXTURE_HTML_BYTES)} bytes${flags['mailparser-message'] ? ', plain part in ISO-8859-1' : ''}); ${flags.connections} connections`,
    );

    // The load comes from one address: its sessions may be more than one client's 10.
    const perClient = ['--smtp-max-client-sessions', String(Math.max(10, flags.connections))];
    const pigeonhole = await spawnPigeonhole(tempDir('bench-smtp-data'), ['--max-messages', '0', ...perClient]);
    // The default settings: retention keeps the newest DEFAULT_CAP captures.
    const atLimit = await spawnPigeonhole(tempDir('bench-smtp-limit'), perClient);
    const [maildevSmtp, maildevWeb] = [await freePort(), await freePort()];
    // MailDev's defaults (web interface on, messages kept in memory and as .eml files in a
    // folder of the temporary directory), on free ports of 127.0.0.1 and in a folder we delete.
    const maildev = await spawnServer('maildev', {
      args: [MAILDEV_BIN, '--smtp', String(maildevSmtp), '--web', String(maildevWeb), '--ip', '127.0.0.1', '--mail-directory', tempDir('bench-smtp-maildev')],
      ready: /MailDev SMTP Server running at/,
    });
    const beforeLimit = before === undefined ? null : await spawnPigeonhole(tempDir('bench-smtp-before'), perClient, undefined, { cwd: path.resolve(before) });
    const bare = await spawnServer('bare', {
      args: ['--import', 'tsx', 'bench/lib/bare-smtp-main.ts', '--port', '0'],
      ready: /bare SMTP listening on [^:\s]+:(\d+)/,
    });
    const contenders: Contender[] = [
      { name: 'Pigeonhole', server: pigeonhole.server, port: pigeonhole.smtpPort },
      { name: `Pigeonhole at the limit (${format(DEFAULT_CAP)})`, server: atLimit.server, port: atLimit.smtpPort },
      { name: 'MailDev 2.2.1', server: maildev.server, port: maildevSmtp },
      { name: 'bare smtp-server + mailparser', server: bare.server, port: Number(bare.match[1]) },
      ...(beforeLimit ? [{ name: `${path.basename(path.resolve(before!))} at the limit`, server: beforeLimit.server, port: beforeLimit.smtpPort }] : []),
    ].map((c) => ({ ...c, rates: [], sustained: [], accepted: 0, refused: 0, lost: 0, cpuMs: 0 }));
    log(
      `pigeonhole pid ${pigeonhole.server.pid} (SMTP ${pigeonhole.smtpPort}), at the limit pid ${atLimit.server.pid} (SMTP ${atLimit.smtpPort}), ` +
        `maildev pid ${maildev.server.pid} (SMTP ${maildevSmtp}), bare pid ${bare.server.pid} (SMTP ${contenders[3]!.port})`,
    );
    const limitApi = new HttpClient(atLimit.url, 2);
    const beforeApi = beforeLimit ? new HttpClient(beforeLimit.url, 2) : null;

    const load = async (contender: Contender, seconds: number): Promise<SmtpLoadResult> => {
      if (!contender.server.running) throw new Error(`${contender.name} is no longer running`);
      const result = await runSmtpLoad({ port: contender.port, connections: flags.connections, seconds, signal, message });
      signal.throwIfAborted();
      return result;
    };
    const problems = (result: SmtpLoadResult): string[] => [...refusalLines(result).map((line) => `refused: ${line}`), ...lostLines(result.lost)];

    // Untimed: past the cap, so that every capture of the rounds also prunes one.
    await fillPastCap(limitApi, async (seconds) => (await load(contenders[1]!, seconds)).accepted, signal, log);
    await quiesce(atLimit.server, signal);
    if (beforeApi) {
      await fillPastCap(beforeApi, async (seconds) => (await load(contenders[4]!, seconds)).accepted, signal, log);
      await quiesce(beforeLimit!.server, signal);
    }
    const kept = async (contender: Contender) => (contender.server === atLimit.server ? `; ${format(await storedCaptures(limitApi))} kept` : '');

    if (flags.warmup > 0) {
      for (const contender of contenders) {
        const result = await load(contender, flags.warmup);
        await quiesce(contender.server, signal);
        log(`warm-up ${contender.name}: ${format(result.rate)} msg/s${problems(result).length > 0 ? `; ${problems(result).join('; ')}` : ''}`);
      }
    }
    for (let round = 1; round <= flags.rounds; round++) {
      for (const contender of contenders) {
        const cpuBefore = await contender.server.cpuMs();
        const result = await load(contender, flags.seconds);
        const drain = await quiesce(contender.server, signal);
        contender.cpuMs += (await contender.server.cpuMs()) - cpuBefore;
        contender.rates.push(result.rate);
        contender.sustained.push(result.accepted / (result.seconds + drain));
        contender.accepted += result.accepted;
        contender.refused += result.refused;
        contender.lost += result.lost.length;
        log(
          `round ${round} ${contender.name}: ${format(result.rate)} msg/s answered, ${format(contender.sustained.at(-1)!)} msg/s with its ${format(drain, 2)} s of work after the round ` +
            `(${format(result.accepted)} accepted in ${format(result.seconds, 1)} s, ` +
            `${result.refused} refused, ${result.lost.length} connections lost, pipelining on ${result.pipelined}/${flags.connections}${await kept(contender)}), load ${format(loadavg()[0]!, 2)}`,
        );
        for (const line of problems(result)) console.error(`  !! ${contender.name}: ${line}`);
      }
    }

    const memory = await Promise.all(contenders.map((c) => c.server.memory()));
    const rows = contenders.map((c, i) => [
      c.name,
      ...c.sustained.map((rate) => format(rate)),
      `**${format(median(c.sustained))}**`,
      format(median(c.rates)),
      format(c.cpuMs / Math.max(1, c.accepted), 3),
      mb(memory[i]!.peak),
      mb(memory[i]!.rss),
    ]);
    const header = [
      'server (msg/s, work after the round included)',
      ...contenders[0]!.sustained.map((_, i) => `round ${i + 1}`),
      'median',
      'median answered in the round',
      'server CPU ms/msg',
      'peak RSS',
      'RSS at end',
    ];
    // Judged on the sustained rate: a server that answers before it has done the work is
    // charged the time it takes to finish it.
    const [ours, , maildevMedian, bareMedian] = contenders.map((c) => median(c.sustained)) as [number, number, number, number];
    // At the limit, judged round by round: each pair of runs saw the same machine.
    const [plain, limited, maildevRuns, bareRuns] = contenders.map((c) => c.sustained) as [number[], number[], number[], number[]];
    const limitMaildev = pairRatios(limited, maildevRuns);
    const limitBare = pairRatios(limited, bareRuns);
    const failures = contenders.filter((c) => c.refused > 0 || c.lost > 0);
    console.log(
      `\n${table(
        header,
        rows,
        header.map((_, i) => i > 0),
      )}\n`,
    );
    console.log(
      `Pigeonhole / MailDev: ${format(ours / maildevMedian, 2)}x; Pigeonhole / bare: ${format(ours / bareMedian, 2)}x (medians of the sustained rates)`,
    );
    console.log(
      `round by round: Pigeonhole / MailDev ${ratioText(pairRatios(plain, maildevRuns))}; at the limit / MailDev ${ratioText(limitMaildev)}; ` +
        `at the limit / bare ${ratioText(limitBare)}; at the limit / Pigeonhole ${ratioText(pairRatios(limited, plain))}`,
    );
    if (beforeLimit) console.log(`side by side at the limit: this build / ${contenders[4]!.name} ${ratioText(pairRatios(limited, contenders[4]!.sustained))}`);
    console.log(`captures kept by Pigeonhole at the limit at the end: ${format(await storedCaptures(limitApi))} (cap ${format(DEFAULT_CAP)})\n`);
    limitApi.close();
    beforeApi?.close();
    console.log(targetLine(ours >= MAILDEV_TARGET * maildevMedian, `Pigeonhole >= ${MAILDEV_TARGET}x MailDev 2.2.1`, `${format(ours / maildevMedian, 2)}x`));
    console.log(
      targetLine(ours >= BARE_TARGET * bareMedian, `Pigeonhole >= ${BARE_TARGET}x bare smtp-server + mailparser`, `${format(ours / bareMedian, 2)}x`),
    );
    console.log(
      targetLine(
        limitMaildev.median >= MAILDEV_TARGET,
        `Pigeonhole at the default retention limit >= ${MAILDEV_TARGET}x MailDev 2.2.1 (median of the rounds' ratios)`,
        `${format(limitMaildev.median, 2)}x`,
      ),
    );
    console.log(
      targetLine(
        failures.length === 0,
        'every message answered 250, no connection lost',
        failures.length === 0 ? 'yes' : failures.map((c) => `${c.name}: ${c.refused} refused, ${c.lost} connections lost`).join('; '),
      ),
    );
  },
);

/** Lost connections grouped by reason, e.g. `connection lost (8 x): connect ECONNREFUSED ...`. */
function lostLines(reasons: string[]): string[] {
  const counts = new Map<string, number>();
  for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].map(([reason, count]) => `connection lost (${count} x): ${reason}`);
}
