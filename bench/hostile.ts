/**
 * Hostile mail (issue 19): every read of a capture on every shape of bench/lib/hostile-shapes.ts,
 * at 250 KB and at 1 MB, in this process. Prints the time of one read at each size (CPU time
 * of this process, the lowest of `--runs` measured alternately, each repeating the read to 20 ms,
 * after unmeasured warm-up reads) and their ratio:
 * linear work gives about 4, quadratic 16. A read that takes more than `--give-up` seconds at
 * 250 KB is not run at 1 MB.
 *
 *   extract   links and codes (what /extract, wait, latest and search answer)
 *   html      the preview's rewrites and the remote-content scan (/html)
 *   check     the whole check but spam (/check)
 *   text      the text view (/text, `text` of a capture)
 *   snippet   the list preview, computed when the mail is captured
 *   dark      the colour modes' rewrite of the preview (server/domain/mail/color-mode.ts, which the
 *             inbox's dark preview runs before the browser's own parser reads the result)
 *
 *   npm run bench:hostile [-- --runs 3 --only deep-div,anchors --give-up 10]
 */
import { parseArgs } from 'node:util';
import { analyse } from '../server/domain/check/check.ts';
import { colorModeHtml } from '../server/domain/mail/color-mode.ts';
import { extract } from '../server/domain/mail/extract.ts';
import { prepareHtml } from '../server/domain/mail/html-preview.ts';
import { textView } from '../server/domain/mail/text-view.ts';
import { textSnippet } from '../server/domain/messages/snippet.ts';
import { HOSTILE_SHAPES, type HostileShape } from './lib/hostile-shapes.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, only: { type: 'string' }, 'give-up': { type: 'string', default: '10' } },
});
const runs = Number(values.runs);
const giveUpMs = Number(values['give-up']) * 1000;
const only = values.only?.split(',');

type Read = (body: string, shape: HostileShape) => unknown;
const READS: Record<string, Read> = {
  extract: (body, shape) => (shape.part === 'html' ? extract(body, null) : extract(null, body)),
  html: (body, shape) => shape.part === 'html' && prepareHtml(body, [], (index) => `/a/${index}`),
  check: (body, shape) =>
    analyse({
      html: shape.part === 'html' ? body : null,
      text: shape.part === 'text' ? body : null,
      headers: null,
      messageBytes: null,
      attachmentSizes: [],
      source: 'api',
    }),
  text: (body, shape) => (shape.part === 'html' ? textView(body, null) : textView(null, body)),
  snippet: (body, shape) => (shape.part === 'html' ? textSnippet(null, body) : textSnippet(body, null)),
  dark: (body, shape) => shape.part === 'html' && (['light', 'styles', 'invert'] as const).map((mode) => colorModeHtml(body, mode)),
};

/** With --expose-gc (the npm script), a full collection before each read: the last read's garbage is not this one's cost. */
const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

async function cpuMs(work: () => unknown, repeats = 1): Promise<number> {
  collect();
  const before = process.cpuUsage();
  for (let i = 0; i < repeats; i++) await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / repeats;
}

/** A measurement repeats a read until it has cost this much CPU: one read of a millisecond is mostly noise. */
const MIN_MEASURED_MS = 20;

/**
 * The CPU ms of one read of `small` and of `large`: each warmed up, then measured `--runs`
 * times alternately (a pause of the machine falls on both), each measurement repeating the read
 * until MIN_MEASURED_MS, and the lowest kept. `large` is not read when `small` passed `--give-up`.
 */
async function pair(small: () => unknown, large: () => unknown): Promise<[number, number]> {
  const once = await cpuMs(small);
  if (once > giveUpMs) return [once, Infinity];
  const repeats = Math.max(1, Math.ceil(MIN_MEASURED_MS / Math.max(once, 0.01)));
  await cpuMs(large);
  let [a, b] = [Infinity, Infinity];
  for (let i = 0; i < runs; i++) {
    a = Math.min(a, await cpuMs(small, repeats));
    b = Math.min(b, await cpuMs(large, repeats));
  }
  return [a, b];
}

const KB = 1024;
const cell = (ms: number) => (ms < 10 ? ms.toFixed(1) : ms.toFixed(0)).padStart(8);
console.log(`Node ${process.version}; ms of CPU per read (lowest of ${runs}), 250 KB → 1 MB, and the ratio (linear ≈ 4)`);
console.log(
  `${'shape'.padEnd(20)}${Object.keys(READS)
    .map((read) => `${read.padStart(8)}${''.padStart(8)}${''.padStart(6)}`)
    .join(' | ')}`,
);
let worst = 0;
for (const shape of HOSTILE_SHAPES) {
  if (only && !only.includes(shape.name)) continue;
  const small = shape.make(250 * KB);
  const large = shape.make(1000 * KB);
  const cells: string[] = [];
  for (const read of Object.values(READS)) {
    const [a, b] = await pair(
      () => read(small, shape),
      () => read(large, shape),
    );
    const ratio = b / Math.max(a, 0.05);
    // Reads of a few milliseconds are too short for their ratio to say much.
    if (Number.isFinite(ratio) && b >= 20) worst = Math.max(worst, ratio);
    cells.push(`${cell(a)}${Number.isFinite(b) ? cell(b) : '  (gave up)'.padStart(8)}${(Number.isFinite(ratio) ? `${ratio.toFixed(1)}x` : '').padStart(6)}`);
  }
  console.log(`${shape.name.padEnd(20)}${cells.join(' | ')}`);
}
console.log(`worst ratio among reads of 20 ms or more at 1 MB: ${worst.toFixed(1)}x`);
