import { execFileSync, execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { autocannonRun, failuresOf, sendRequest } from './lib/autocannon.ts';
import { log, runBench } from './lib/cli.ts';
import { format, median, table } from './lib/figures.ts';
import { HttpClient } from './lib/http-client.ts';
import { ensurePeers } from './lib/peers.ts';
import { fillPastCap, storedCaptures } from './lib/retention-limit.ts';
import { captureBody } from './lib/search-corpus.ts';
import { ROOT, spawnPigeonhole, type Pigeonhole } from './lib/server-process.ts';

/** Where `--keep-builds` keeps each revision's checkout and build, by commit, for the next run. */
const BUILD_CACHE = path.join(tmpdir(), 'pigeonhole-compare-builds');
/** Where `--profile` writes each server's CPU profile. */
const PROFILE_DIR = path.join(tmpdir(), 'pigeonhole-compare-profiles');
/** Checkouts of this run that ran npm ci: a later revision with the same lockfile links their node_modules. */
const installed: string[] = [];
/** The revision that names the working tree as it is (uncommitted changes included). */
const WORKING_TREE = '.';

interface Build {
  label: string;
  dir: string;
}
interface Contender extends Build {
  pigeonhole: Pigeonhole;
  api: HttpClient;
  rates: number[];
  cpuPerSend: number[];
  /** The server's CPU time over the run's wall time, in percent (100: a whole core). */
  busy: number[];
  ok: number;
  failures: number;
}

await runBench(
  {
    usage: 'npm run bench:compare -- [options] <revision> <revision> [<revision>...]',
    about:
      'Side by side: builds each git revision in a checkout of its own, launches each as npm start does\n' +
      '(--max-semi-space-size=4) at its default settings, fills each past its retention limit, then\n' +
      'alternates autocannon runs of POST /v1/email/send/ (bulk-key, a 0.5 KB HTML body, a new recipient\n' +
      'every send) over them, round by round. Prints sends/s and server CPU per send (user + system,\n' +
      'from /proc) per round, the medians, and each revision against the first (median of the rounds).',
    positionals: 'two or more git revisions (a commit, branch or tag; `.` is the working tree as it is); the first is the baseline',
    flags: {
      rounds: { kind: 'int', default: 5, min: 1, help: 'measured rounds (each runs every revision once, the order reversed every other round)' },
      seconds: { kind: 'int', default: 6, min: 1, help: 'length of one measured run' },
      warmup: { kind: 'int', default: 6, min: 0, help: 'unmeasured seconds per revision before the rounds' },
      connections: { kind: 'int', default: 32, min: 1, help: 'HTTP connections' },
      'keep-builds': { kind: 'switch', help: `keep each commit's build in ${BUILD_CACHE} and reuse it next time (for bisecting)` },
      profile: { kind: 'switch', help: `launch each with node --cpu-prof; the profiles (whole life, fill included) go to ${PROFILE_DIR}/<commit>` },
    },
  },
  async (flags, { signal, tempDir, positionals }) => {
    if (positionals.length < 2) throw new Error('give at least two revisions, e.g. npm run bench:compare -- a54a00d main');
    ensurePeers();
    const builds = positionals.map((revision) => prepare(revision, flags['keep-builds'], tempDir));

    const contenders: Contender[] = [];
    for (const build of builds) {
      const profileDir = path.join(PROFILE_DIR, build.label.replace(/[^\w.-]+/g, '_'));
      const nodeFlags = flags.profile ? ['--cpu-prof', '--cpu-prof-dir', profileDir] : [];
      const pigeonhole = await spawnPigeonhole(tempDir('compare-data'), [], undefined, { cwd: build.dir, nodeFlags });
      contenders.push({ ...build, pigeonhole, api: new HttpClient(pigeonhole.url, 2), rates: [], cpuPerSend: [], busy: [], ok: 0, failures: 0 });
      log(`${build.label}: pid ${pigeonhole.server.pid} (${pigeonhole.url})`);
    }
    const request = sendRequest(captureBody);
    const run = async (contender: Contender, seconds: number) => {
      if (!contender.pigeonhole.server.running) throw new Error(`${contender.label} is no longer running`);
      const cpuBefore = await contender.pigeonhole.server.cpuMs();
      const result = await autocannonRun(contender.pigeonhole.url, { connections: flags.connections, seconds, request, signal });
      const cpuMs = (await contender.pigeonhole.server.cpuMs()) - cpuBefore;
      const failed = [...failuresOf(result).values()].reduce((a, b) => a + b, 0);
      return { ok: result['2xx'], rate: result['2xx'] / result.duration, cpuPerSend: cpuMs / result['2xx'], busy: cpuMs / 10 / result.duration, failed };
    };

    for (const contender of contenders) {
      await fillPastCap(
        contender.api,
        async (seconds) => {
          const { ok, failed } = await run(contender, seconds);
          if (failed > 0) throw new Error(`filling ${contender.label} past the limit: ${failed} requests failed`);
          return ok;
        },
        signal,
        (line) => log(`${contender.label}: ${line}`),
      );
      if (flags.warmup > 0) {
        const { rate } = await run(contender, flags.warmup);
        log(`warm-up ${contender.label}: ${format(rate)} sends/s`);
      }
    }

    for (let round = 1; round <= flags.rounds; round++) {
      const order = round % 2 === 1 ? contenders : [...contenders].reverse();
      for (const contender of order) {
        const { ok, rate, cpuPerSend, busy, failed } = await run(contender, flags.seconds);
        contender.rates.push(rate);
        contender.cpuPerSend.push(cpuPerSend);
        contender.busy.push(busy);
        contender.ok += ok;
        contender.failures += failed;
        log(
          `round ${round} ${contender.label}: ${format(rate)} sends/s, ${format(cpuPerSend, 3)} ms CPU per send, server busy ${format(busy)} %, ` +
            `${format(await storedCaptures(contender.api))} kept, load ${format(loadavg()[0]!, 2)}${failed > 0 ? `, ${failed} FAILED` : ''}`,
        );
      }
    }

    const base = contenders[0]!;
    const rows = contenders.map((c) => [
      c.label,
      ...c.rates.map((rate) => format(rate)),
      `**${format(median(c.rates))}**`,
      `**${format(median(c.cpuPerSend), 3)}**`,
      `${format(median(c.busy))} %`,
      c === base ? '1' : `${format(median(c.rates.map((rate, i) => rate / base.rates[i]!)), 2)}x`,
      c === base ? '1' : `${format(median(c.cpuPerSend.map((cpu, i) => base.cpuPerSend[i]! / cpu)), 2)}x`,
    ]);
    const header = [
      'revision (sends/s)',
      ...base.rates.map((_, i) => `round ${i + 1}`),
      'median',
      'CPU ms/send',
      'server busy',
      'sends/s vs first',
      'CPU vs first',
    ];
    console.log(`\n${table(header, rows)}\n`);
    console.log(
      'vs first: the median of the rounds\' ratios (each pair of runs saw the same machine); "CPU vs first" is the first\'s CPU per send\n' +
        "over this one's (above 1: this revision spends less per send). Server CPU is user + system time of the server process\n" +
        'over the run, background work included, divided by the sends answered 2xx; "server busy" that CPU time over the\n' +
        "run's wall time (100 %: one core; a server below it on a quiet machine waits for something other than CPU).",
    );
    const failed = contenders.filter((c) => c.failures > 0);
    if (failed.length > 0)
      console.error(`\n!! requests failed: ${failed.map((c) => `${c.label} ${c.failures}`).join(', ')}; the figures count 2xx answers only`);
    for (const c of contenders) c.api.close();
  },
);

/**
 * A built checkout of `revision`: the working tree itself for `.`; otherwise `git archive` of the
 * commit into a folder of its own, its dependencies linked from this checkout (or another
 * revision's) when its lockfile is the same, else `npm ci` (from npm's shared cache when it can),
 * then `npm run build`.
 */
function prepare(revision: string, keep: boolean, tempDir: (prefix: string) => string): Build {
  if (revision === WORKING_TREE) {
    log('building the working tree (npm run build)');
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    return { label: 'working tree', dir: ROOT };
  }
  const commit = execFileSync('git', ['rev-parse', '--verify', `${revision}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const label = `${revision} (${commit.slice(0, 7)})`;
  const dir = keep ? path.join(BUILD_CACHE, commit) : tempDir(`compare-${commit.slice(0, 7)}`);
  if (keep && existsSync(path.join(dir, 'dist', 'server', 'main.js'))) {
    log(`${label}: reusing the build in ${dir}`);
    return { label, dir };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  log(`${label}: git archive into ${dir}`);
  execSync(`git archive --format=tar ${commit} | tar -x -C '${dir}'`, { cwd: ROOT, stdio: 'inherit' });
  const lock = (root: string) => readFileSync(path.join(root, 'package-lock.json'), 'utf8');
  const wanted = lock(dir);
  // This checkout's dependencies, or those of another revision built here with the same lockfile.
  const others = existsSync(BUILD_CACHE) ? readdirSync(BUILD_CACHE).map((name) => path.join(BUILD_CACHE, name)) : [];
  const same = [ROOT, ...installed, ...others].find(
    (root) => root !== dir && existsSync(path.join(root, 'node_modules')) && existsSync(path.join(root, 'package-lock.json')) && lock(root) === wanted,
  );
  if (same) {
    symlinkSync(realpathSync(path.join(same, 'node_modules')), path.join(dir, 'node_modules'));
  } else {
    log(`${label}: its lockfile differs from this checkout's: npm ci --prefer-offline`);
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
    installed.push(dir);
  }
  log(`${label}: npm run build`);
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: dir, stdio: 'inherit' });
  return { label, dir };
}
