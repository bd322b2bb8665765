/**
 * The message check's cost (issue 13's target: compatibility + accessibility of a 100 KB HTML
 * email under 150 ms). Builds a 100 KB email from fixtures/emails/gmail-clipped-newsletter.html
 * (its head, as many product rows as fit, its footer), then times, in this process:
 *   compatibility  scan (htmlparser2) + caniemail features + both scores, every client
 *   accessibility  html-validate's a11y preset + the email rules
 *   whole check    analyse() + report(): also size, dark mode (what GET .../check computes)
 *
 *   node --import tsx bench/check.ts [--runs 40] [--warmup 10] [--kb 100]
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { accessibilityReport } from '../server/domain/check/accessibility.ts';
import { analyse, report } from '../server/domain/check/check.ts';
import { compatibilityReport, knownFeatures } from '../server/domain/check/compatibility.ts';
import { findFeatures } from '../server/domain/check/features.ts';
import { scanHtml } from '../server/domain/check/html-scan.ts';
import { emailOf } from './lib/sized-email.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '40' }, warmup: { type: 'string', default: '10' }, kb: { type: 'string', default: '100' } },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const html = emailOf(Number(values.kb) * 1024);

function time(label: string, run: () => void): { label: string; median: number; p95: number } {
  for (let i = 0; i < warmup; i++) run();
  const samples = new Float64Array(runs);
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    run();
    samples[i] = performance.now() - started;
  }
  return { label, median: percentile(samples, 50), p95: percentile(samples, 95) };
}

const compat = () => {
  const scan = scanHtml(html);
  compatibilityReport(findFeatures(scan, knownFeatures()), scan.elements.length);
};
const a11y = () => accessibilityReport(html, null, scanHtml(html));
const both = () => {
  compat();
  a11y();
};
const whole = () => report(analyse({ html, text: null, headers: null, messageBytes: null, attachmentSizes: [], source: 'draft' }));

const rows = [
  time('compatibility', compat),
  time('accessibility', a11y),
  time('compatibility + accessibility', both),
  time('whole check (analyse + report)', whole),
];
console.log(
  `HTML: ${Buffer.byteLength(html)} bytes, ${scanHtml(html).elements.length} elements; ${warmup} warm-up runs, ${runs} timed; node ${process.version}; load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
console.log('| step | median ms | p95 ms |\n|---|---:|---:|');
for (const r of rows) console.log(`| ${r.label} | ${r.median.toFixed(1)} | ${r.p95.toFixed(1)} |`);
const target = rows[2]!.median;
console.log(`target: compatibility + accessibility under 150 ms: ${target < 150 ? 'met' : 'NOT met'} (${target.toFixed(1)} ms median)`);
