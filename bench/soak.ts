import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { buildApp, runBench } from './lib/cli.ts';
import { format, mb, targetLine } from './lib/figures.ts';
import { firstAnswer, HttpClient } from './lib/http-client.ts';
import { DEFAULT_CAP } from './lib/retention-limit.ts';
import { spawnPigeonhole, type Memory } from './lib/server-process.ts';
import { runSmtpLoad, type SmtpLoadResult } from './lib/smtp-load.ts';

/** Issue 10, point 4: resident memory grows at most 10% after warm-up. */
const GROWTH_TARGET = 0.1;
const API_KEY = 'bulk-key';
/** A progress line every this many seconds. */
const PROGRESS_EVERY_S = 30;

interface Sample {
  /** Seconds since the load started. */
  at: number;
  memory: Memory;
  stored: number;
}

/** Counts of one kind of request: answered as expected, or not (with the first few reasons). */
class Tally {
  ok = 0;
  failed = 0;
  readonly reasons = new Map<string, number>();

  fail(reason: string): void {
    this.failed++;
    const key = reason.slice(0, 160);
    if (this.reasons.size < 20 || this.reasons.has(key)) this.reasons.set(key, (this.reasons.get(key) ?? 0) + 1);
  }

  reasonText(): string {
    return [...this.reasons].map(([reason, count]) => `${count} x ${reason}`).join('; ');
  }
}

await runBench(
  {
    usage: 'npm run bench:soak -- [options]',
    about:
      'Mixed soak at the default retention (no --max-messages flag): two HTTP senders (a new recipient\n' +
      'every send), one SMTP sender (raw client, one connection), one reader (inbox list, detail,\n' +
      '/v1 list) and a live WebSocket client on /api/events, all at once against the compiled server.\n' +
      "Samples the server's RSS every few seconds and reports its growth after warm-up (target <= 10%).\n" +
      `Warm-up ends after --warmup-minutes or when retention has reached its cap (${format(DEFAULT_CAP)} captures), whichever is later.`,
    flags: {
      minutes: { kind: 'number', default: 10, min: 0.1, help: 'length of the soak' },
      'warmup-minutes': { kind: 'number', default: 2, min: 0, help: 'shortest warm-up (also waits for the retention cap)' },
      'sample-seconds': { kind: 'number', default: 5, min: 1, help: 'RSS sampling interval' },
      'skip-build': { kind: 'switch', help: 'use dist/ as it is instead of running npm run build' },
    },
  },
  async (flags, { signal, tempDir, log }) => {
    buildApp(flags['skip-build']);
    const pigeonhole = await spawnPigeonhole(tempDir('bench-soak-data'));
    const { server } = pigeonhole;
    const api = new HttpClient(pigeonhole.url, 4, { Authorization: `Api-Key ${API_KEY}` });
    await firstAnswer(api, '/api/messages?limit=1', signal);
    log(
      `pigeonhole pid ${server.pid} (${pigeonhole.url}, SMTP ${pigeonhole.smtpPort}), default retention: ${format(DEFAULT_CAP)} captures; ${format(flags.minutes, 1)} minutes`,
    );

    const durationMs = flags.minutes * 60_000;
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    let running = true;
    const stop = () => {
      running = false;
    };
    signal.addEventListener('abort', stop, { once: true });

    // The live client first, so it sees every capture the senders make.
    const live = liveClient(`${pigeonhole.url.replace(/^http/, 'ws')}/api/events`, () => running);
    await live.opened;

    const sends = new Tally();
    let recipient = 0;
    const httpSender = async () => {
      while (running) {
        const n = ++recipient;
        const body = { recipient: `soak-${n}@example.com`, subject: `Soak capture ${n}`, body: `<p>Hello soak ${n},</p><p>One of the mixed soak's sends.</p>` };
        const reply = await api.post('/v1/email/send/', body).catch((error: Error) => ({ status: 0, body: error.message }));
        if (reply.status === 200) sends.ok++;
        else sends.fail(`POST /v1/email/send/: ${reply.status} ${reply.body}`);
      }
    };
    const reads = new Tally();
    const read = async (path: string): Promise<string | null> => {
      const reply = await api.get(path).catch((error: Error) => ({ status: 0, body: error.message }));
      if (reply.status === 200) {
        reads.ok++;
        return reply.body;
      }
      reads.fail(`GET ${path.replace(/\/api\/messages\/[^/?]+$/, '/api/messages/<id>')}: ${reply.status} ${reply.body}`);
      return null;
    };
    const reader = async () => {
      while (running) {
        const list = await read('/api/messages?limit=50');
        const ids = list === null ? [] : (JSON.parse(list) as { messages: { id: string }[] }).messages.map((m) => m.id);
        // The newest and one half-way down the page: retention prunes the oldest, never these.
        if (ids[0]) await read(`/api/messages/${ids[0]}`);
        await read('/v1/email/list/');
        if (ids[25]) await read(`/api/messages/${ids[25]}`);
      }
    };
    const smtp = runSmtpLoad({ port: pigeonhole.smtpPort, connections: 1, seconds: durationMs / 1000, signal });

    const samples: Sample[] = [];
    let capReachedAt: number | null = null;
    const sample = async () => {
      const memory = await server.memory();
      const reply = await api.get('/api/messages?limit=1').catch(() => null);
      const stored = reply?.status === 200 ? (JSON.parse(reply.body) as { total: number }).total : Number.NaN;
      const at = elapsed();
      samples.push({ at, memory, stored });
      if (capReachedAt === null && stored >= DEFAULT_CAP) {
        capReachedAt = at;
        log(`retention cap reached: ${format(stored)} captures stored after ${format(at)} s`);
      }
    };
    let lastProgress = 0;
    const sampler = (async () => {
      while (running) {
        await sample();
        const at = elapsed();
        if (at - lastProgress >= PROGRESS_EVERY_S) {
          lastProgress = at;
          const last = samples.at(-1)!;
          log(
            `${format(at)} s: ${format(sends.ok)} HTTP sends (${sends.failed} failed), ${format(reads.ok)} reads (${reads.failed} failed), ` +
              `${format(live.frames.total)} frames, ${format(last.stored)} stored, RSS ${mb(last.memory.rss)}, load ${format(loadavg()[0]!, 2)}`,
          );
        }
        const wait = Math.min(flags['sample-seconds'] * 1000, durationMs - (performance.now() - started));
        if (wait <= 0) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      stop();
    })();

    const workers = [httpSender(), httpSender(), reader()];
    const [smtpResult] = (await Promise.all([smtp, sampler, ...workers])) as [SmtpLoadResult, ...unknown[]];
    signal.throwIfAborted();
    // The end sample is taken once every sender has stopped.
    await sample();
    await live.close();
    api.close();
    const peak = (await server.memory()).peak;
    report({ flags, samples, capReachedAt, sends, reads, smtpResult, frames: live.frames, peak, duration: elapsed() });
  },
);

interface ReportInput {
  flags: { 'warmup-minutes': number; 'sample-seconds': number };
  samples: Sample[];
  capReachedAt: number | null;
  sends: Tally;
  reads: Tally;
  smtpResult: SmtpLoadResult;
  frames: FrameCount;
  peak: number;
  duration: number;
}

function report({ flags, samples, capReachedAt, sends, reads, smtpResult, frames, peak, duration }: ReportInput): void {
  const minimum = flags['warmup-minutes'] * 60;
  const warmupEnd = capReachedAt === null ? null : Math.max(minimum, capReachedAt);
  const why =
    capReachedAt === null
      ? `retention never reached its cap of ${format(DEFAULT_CAP)} captures`
      : capReachedAt > minimum
        ? `the retention cap (${format(DEFAULT_CAP)} captures) was reached after ${format(capReachedAt)} s, later than ${format(minimum)} s`
        : `${format(minimum)} s (--warmup-minutes), later than the retention cap (reached after ${format(capReachedAt)} s)`;
  const end = samples.at(-1)!;
  const afterWarmup = warmupEnd === null ? undefined : samples.find((s) => s.at >= warmupEnd && s !== end);
  const smtpFailed = smtpResult.refused + smtpResult.lost.length;
  const totalSends = sends.ok + smtpResult.accepted;
  const failures = sends.failed + smtpFailed + reads.failed;

  console.log('');
  console.log(`duration: ${format(duration)} s`);
  console.log(`sends: ${format(totalSends)} (HTTP ${format(sends.ok)}, SMTP ${format(smtpResult.accepted)}), ${format(totalSends / duration)} per second`);
  console.log(`reads: ${format(reads.ok)} (inbox list, detail, /v1 list)`);
  console.log(
    `failures: ${format(failures)} (HTTP sends ${sends.failed}, SMTP ${smtpResult.refused} refused and ${smtpResult.lost.length} connections lost, reads ${reads.failed})`,
  );
  if (sends.failed > 0) console.error(`  !! HTTP sends: ${sends.reasonText()}`);
  if (reads.failed > 0) console.error(`  !! reads: ${reads.reasonText()}`);
  if (smtpFailed > 0)
    console.error(
      `  !! SMTP: ${[...smtpResult.refusals]
        .map(([r, c]) => `${c} x ${r}`)
        .concat(smtpResult.lost)
        .join('; ')}`,
    );
  console.log(
    `WebSocket frames: ${format(frames.total)} (${[...frames.byType].map(([type, count]) => `${type} ${format(count)}`).join(', ')}), ${frames.reconnects} reconnects`,
  );
  console.log(`captures stored at the end: ${format(end.stored)}`);
  console.log(
    `RSS every ${PROGRESS_EVERY_S} s (MB): ${thin(samples, PROGRESS_EVERY_S)
      .map((s) => format(s.memory.rss / 1024 / 1024))
      .join(', ')}`,
  );
  console.log(`warm-up: ${warmupEnd === null ? 'not over' : `${format(warmupEnd)} s`}: ${why}`);
  console.log(`peak RSS (VmHWM): ${mb(peak)}`);
  if (!afterWarmup) {
    console.log(`RSS at the end: ${mb(end.memory.rss)}`);
    console.log(
      `\n- N/A   RSS growth after warm-up <= ${GROWTH_TARGET * 100}%: not judged, the warm-up did not end before the run did (run longer, or lower --warmup-minutes)`,
    );
  } else {
    const growth = (end.memory.rss - afterWarmup.memory.rss) / afterWarmup.memory.rss;
    const highest = Math.max(...samples.filter((s) => s.at >= afterWarmup.at).map((s) => s.memory.rss));
    console.log(
      `RSS after warm-up (${format(afterWarmup.at)} s): ${mb(afterWarmup.memory.rss)}; at the end: ${mb(end.memory.rss)}; highest sample after warm-up: ${mb(highest)}`,
    );
    console.log(
      `\n${targetLine(growth <= GROWTH_TARGET, `RSS growth after warm-up <= ${GROWTH_TARGET * 100}%`, `${growth >= 0 ? '+' : ''}${format(growth * 100, 1)}% (${mb(afterWarmup.memory.rss)} -> ${mb(end.memory.rss)})`)}`,
    );
  }
  console.log(targetLine(failures === 0, 'no failed send or read', failures === 0 ? 'none' : `${format(failures)} failed`));
}

/** One sample per `every` seconds (the first at or after each mark), and the last. */
function thin(samples: Sample[], every: number): Sample[] {
  const out: Sample[] = [];
  let mark = 0;
  for (const s of samples) {
    if (s.at >= mark) {
      out.push(s);
      mark = Math.floor(s.at / every) * every + every;
    }
  }
  if (out.at(-1) !== samples.at(-1)) out.push(samples.at(-1)!);
  return out;
}

interface FrameCount {
  total: number;
  byType: Map<string, number>;
  reconnects: number;
}

/** A live-push client that counts frames by type and reconnects (counted) if it is cut. */
function liveClient(url: string, wanted: () => boolean): { opened: Promise<void>; frames: FrameCount; close(): Promise<void> } {
  const frames: FrameCount = { total: 0, byType: new Map(), reconnects: 0 };
  let socket: WebSocket;
  let closing = false;
  const connect = (): Promise<void> =>
    new Promise((resolve, reject) => {
      socket = new WebSocket(url);
      socket.on('message', (data) => {
        frames.total++;
        const type = (JSON.parse(String(data)) as { type: string }).type;
        frames.byType.set(type, (frames.byType.get(type) ?? 0) + 1);
      });
      socket.once('open', () => resolve());
      socket.on('error', reject);
      socket.on('close', () => {
        if (closing || !wanted()) return;
        frames.reconnects++;
        setTimeout(() => void connect().catch(() => undefined), 100);
      });
    });
  return {
    opened: connect(),
    frames,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        if (socket.readyState === WebSocket.CLOSED) return resolve();
        socket.once('close', () => resolve());
        socket.close();
      }),
  };
}
