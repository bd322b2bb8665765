import type { DiskUsage, Memory } from './process-probes.ts';

/** The figures of one measurement phase. */
export interface PhaseFigures {
  /** Captures stored when the timed sends began. */
  stored: number;
  medianMs: number;
  p99Ms: number;
  sendsPerSecond: number;
  /** Server CPU time (user + system) per timed send: less disturbed by other load than latency. */
  cpuMsPerSend: number;
  /** The machine's one-minute load average at the end of the timed sends. */
  loadAverage: number;
  /** Median of the read probes, in milliseconds. */
  inboxReadMs: number;
  v1ListMs: number;
  memoryAfter: Memory;
}

export interface StartFigures {
  listeningMs: number;
  firstReadMs: number;
  /** Spawn to the first POST /v1/email/send/ answered 200, and the server CPU spent until then. */
  firstV1Ms: number;
  firstV1CpuMs: number;
  memory: Memory;
}

/** Everything measured at one store size. */
export interface SideFigures {
  start: StartFigures;
  phase: PhaseFigures;
  /** Peak resident memory of the first server process so far (filling included at full size). */
  peakMemory: number;
}

/** The large store also has the start-up and phase of the restarted server. */
export interface FullFigures extends SideFigures {
  restartedPhase: PhaseFigures;
  /** The ingesting process right after the fill. */
  afterFill: Memory;
}

interface Row {
  metric: string;
  empty: number;
  full: number;
  digits: number;
}

export interface Target {
  name: string;
  value: string;
  pass: boolean;
}

const MB = 1024 * 1024;
const LATENCY_RATIO_LIMIT = 1.5;
const DISK_PER_CAPTURE_LIMIT = 2.5 * 1024;
const LIST_RATIO_LIMIT = 2;

/** Issue 21's targets for one store size (a team box that restarts in seconds and fits a small container). */
interface ScaleTargets {
  captures: number;
  ingestingRssMb: number;
  restartedRssMb: number;
  restartMs: number;
  /** Issue 29: restart to the first /v1 answer over an empty server's first answer, in the same run. */
  restartRatio: number;
  /** Issue 29: RSS after a restart, at most this (and at most the ingesting process's); 0: no such target. */
  restartedRss29Mb: number;
  files: number;
  searchMs: number;
}

/** The issue's table: a run is judged on the 100,000 column up to that count, on the million's above it. */
const SCALE_TARGETS: readonly ScaleTargets[] = [
  { captures: 100_000, ingestingRssMb: 200, restartedRssMb: 150, restartMs: 1_000, files: 300, searchMs: 50, restartRatio: 1.3, restartedRss29Mb: 0 },
  { captures: 1_000_000, ingestingRssMb: 600, restartedRssMb: 500, restartMs: 5_000, files: 1_000, searchMs: 150, restartRatio: 2, restartedRss29Mb: 450 },
];

/** The column of issue 21's table a run of `captures` is judged on. */
function scaleTargetsFor(captures: number): ScaleTargets {
  return SCALE_TARGETS.find((column) => captures <= column.captures) ?? SCALE_TARGETS.at(-1)!;
}

function phaseRows(suffix: string, empty: PhaseFigures, full: PhaseFigures): Row[] {
  return [
    { metric: `send latency median${suffix} (ms)`, empty: empty.medianMs, full: full.medianMs, digits: 2 },
    { metric: `send latency p99${suffix} (ms)`, empty: empty.p99Ms, full: full.p99Ms, digits: 2 },
    { metric: `send throughput${suffix} (sends/s)`, empty: empty.sendsPerSecond, full: full.sendsPerSecond, digits: 0 },
    { metric: `server CPU per send${suffix} (ms)`, empty: empty.cpuMsPerSend, full: full.cpuMsPerSend, digits: 2 },
    { metric: `machine load average${suffix}`, empty: empty.loadAverage, full: full.loadAverage, digits: 2 },
  ];
}

/** The side-by-side table, as Markdown (readable in a terminal, pasteable into bench/README.md). */
export function comparisonTable(empty: SideFigures, full: FullFigures, fullLabel: string): string {
  const restarted = full.restartedPhase;
  const rows: Row[] = [
    { metric: 'captures stored when the timed sends began', empty: empty.phase.stored, full: full.phase.stored, digits: 0 },
    ...phaseRows('', empty.phase, full.phase),
    ...phaseRows(', after restart', empty.phase, restarted),
    { metric: 'start-up: spawn to listening (ms)', empty: empty.start.listeningMs, full: full.start.listeningMs, digits: 0 },
    { metric: 'start-up: spawn to first GET /api/messages (ms)', empty: empty.start.firstReadMs, full: full.start.firstReadMs, digits: 0 },
    { metric: 'start-up: spawn to first /v1 send stored (ms)', empty: empty.start.firstV1Ms, full: full.start.firstV1Ms, digits: 0 },
    { metric: 'start-up: server CPU to first /v1 send (ms)', empty: empty.start.firstV1CpuMs, full: full.start.firstV1CpuMs, digits: 0 },
    { metric: 'RSS of the ingesting process after its phase (MB)', empty: empty.phase.memoryAfter.rss / MB, full: full.phase.memoryAfter.rss / MB, digits: 1 },
    { metric: 'RSS of the ingesting process right after the fill (MB)', empty: empty.phase.memoryAfter.rss / MB, full: full.afterFill.rss / MB, digits: 1 },
    { metric: 'peak RSS of the ingesting process, fill included (MB)', empty: empty.peakMemory / MB, full: full.peakMemory / MB, digits: 1 },
    { metric: 'RSS right after start-up (MB)', empty: empty.start.memory.rss / MB, full: full.start.memory.rss / MB, digits: 1 },
    { metric: 'RSS of the restarted process after its phase (MB)', empty: empty.phase.memoryAfter.rss / MB, full: restarted.memoryAfter.rss / MB, digits: 1 },
    { metric: 'GET /api/messages?limit=50 median (ms)', empty: empty.phase.inboxReadMs, full: full.phase.inboxReadMs, digits: 2 },
    { metric: 'GET /v1/email/list/ median (ms)', empty: empty.phase.v1ListMs, full: full.phase.v1ListMs, digits: 2 },
    { metric: 'GET /v1/email/list/ median, after restart (ms)', empty: empty.phase.v1ListMs, full: restarted.v1ListMs, digits: 2 },
  ];
  const lines = [`| metric | empty | ${fullLabel} | ratio |`, '|---|---:|---:|---:|'];
  for (const row of rows) {
    const ratio = row.empty > 0 ? `${(row.full / row.empty).toFixed(2)}x` : '-';
    lines.push(`| ${row.metric} | ${format(row.empty, row.digits)} | ${format(row.full, row.digits)} | ${ratio} |`);
  }
  return lines.join('\n');
}

/** One line on what the data directory holds. */
export function diskLine(disk: DiskUsage, captures: number): string {
  const perCapture = (bytes: number) => `${format(bytes / captures / 1024, 1)} KB`;
  return (
    `data directory at ${format(captures)} captures: ${format(disk.bytes / MB, 1)} MB of file contents, ` +
    `${format(disk.allocated / MB, 1)} MB on disk, ${format(disk.files)} files in ${format(disk.folders)} folders ` +
    `(per capture: ${perCapture(disk.bytes)} contents, ${perCapture(disk.allocated)} on disk)`
  );
}

/**
 * The pass/fail targets, judged on the large store: issue 10's (send latency within 1.5x of empty
 * in both phases, disk per capture, the /v1 list) and issue 21's column for `captures`
 * (scaleTargetsFor): RSS of the ingesting process, RSS after a restart, restart to the first
 * answer, files, and search through the API (`searchMs`: the median of the slowest query).
 */
export function targets(empty: SideFigures, full: FullFigures, disk: DiskUsage, captures: number, searchMs: number): Target[] {
  const restarted = full.restartedPhase;
  const latency = (name: string, key: 'medianMs' | 'p99Ms'): Target => {
    const live = full.phase[key] / empty.phase[key];
    const again = restarted[key] / empty.phase[key];
    return {
      name: `send ${name} at full size <= ${LATENCY_RATIO_LIMIT}x empty`,
      value: `${live.toFixed(2)}x (after fill), ${again.toFixed(2)}x (after restart)`,
      pass: Math.max(live, again) <= LATENCY_RATIO_LIMIT,
    };
  };
  const ingesting = Math.max(full.afterFill.rss, full.phase.memoryAfter.rss);
  const restartedRss = Math.max(full.start.memory.rss, restarted.memoryAfter.rss);
  const list = Math.max(full.phase.v1ListMs, restarted.v1ListMs) / empty.phase.v1ListMs;
  const scale = scaleTargetsFor(captures);
  const column = `issue 21, ${format(scale.captures)}`;
  return [
    latency('latency median', 'medianMs'),
    latency('latency p99', 'p99Ms'),
    {
      name: `disk per capture <= ${DISK_PER_CAPTURE_LIMIT / 1024} KB (allocated blocks)`,
      value: `${format(disk.allocated / captures / 1024, 2)} KB`,
      pass: disk.allocated / captures <= DISK_PER_CAPTURE_LIMIT,
    },
    {
      name: `GET /v1/email/list/ at full size within ${LIST_RATIO_LIMIT}x of empty`,
      value: `${list.toFixed(2)}x`,
      pass: list <= LIST_RATIO_LIMIT,
    },
    {
      name: `RSS of the ingesting process <= ${scale.ingestingRssMb} MB (${column}: after the fill and after its phase)`,
      value: `${format(full.afterFill.rss / MB, 1)} MB, ${format(full.phase.memoryAfter.rss / MB, 1)} MB (peak ${format(full.peakMemory / MB, 1)} MB)`,
      pass: ingesting <= scale.ingestingRssMb * MB,
    },
    {
      name: `RSS after a restart <= ${scale.restartedRssMb} MB (${column}: after start-up and after its phase)`,
      value: `${format(full.start.memory.rss / MB, 1)} MB, ${format(restarted.memoryAfter.rss / MB, 1)} MB`,
      pass: restartedRss <= scale.restartedRssMb * MB,
    },
    {
      name: `restart to first answer <= ${format(scale.restartMs / 1000)} s (${column}: spawn to the first GET /api/messages)`,
      value: `${format(full.start.firstReadMs / 1000, 2)} s`,
      pass: full.start.firstReadMs <= scale.restartMs,
    },
    {
      name: `restart to first /v1 send <= ${scale.restartRatio}x an empty server's (issue 29, ${format(scale.captures)}: spawn to the first POST /v1/email/send/ stored, this run)`,
      value: `${(full.start.firstV1Ms / empty.start.firstV1Ms).toFixed(2)}x (${format(full.start.firstV1Ms)} ms against ${format(empty.start.firstV1Ms)} ms; server CPU ${(full.start.firstV1CpuMs / empty.start.firstV1CpuMs).toFixed(2)}x)`,
      pass: full.start.firstV1Ms <= scale.restartRatio * empty.start.firstV1Ms,
    },
    {
      name: `RSS after a restart <= the ingesting process's${scale.restartedRss29Mb > 0 ? ` and <= ${scale.restartedRss29Mb} MB` : ''} (issue 29)`,
      value: `${format(restartedRss / MB, 1)} MB against ${format(ingesting / MB, 1)} MB`,
      pass: restartedRss <= ingesting && (scale.restartedRss29Mb === 0 || restartedRss <= scale.restartedRss29Mb * MB),
    },
    { name: `files in the data directory <= ${format(scale.files)} (${column})`, value: format(disk.files), pass: disk.files <= scale.files },
    {
      name: `search through the API <= ${scale.searchMs} ms (${column}: GET /api/messages?q=, median of the slowest query, restarted process)`,
      value: `${format(searchMs, 1)} ms`,
      pass: searchMs <= scale.searchMs,
    },
  ];
}

/** Targets as Markdown list lines. */
export function targetLines(list: Target[]): string {
  return list.map((t) => `- ${t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.value}`).join('\n');
}

/** A number with thousands separators. */
export function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}
