/**
 * The client views' cost (issue 31's target: the client view of a 100 KB email through the API,
 * cache miss, at most 100 ms median). Starts Pigeonhole in this process on a temporary data
 * directory, sends the 100 KB email of bench/check.ts through /v1 (without the account
 * template), then times `GET /api/messages/{id}/render?client=...` for each client view over
 * HTTP after warm-up requests. Views are not cached: every request reads the stored HTML and
 * transforms it (a miss). Beside it, the transform alone in this process (renderClientView),
 * which a busy machine disturbs less.
 *
 *   node --import tsx bench/render.ts [--runs 30] [--warmup 5] [--kb 100] [--mode light]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../server/config.ts';
import { createPigeonhole } from '../server/pigeonhole.ts';
import { CLIENT_VIEWS } from '../server/domain/views/ids.ts';
import { RENDER_MODES, type RenderMode, renderClientView } from '../server/domain/views/render.ts';
import { emailOf } from './lib/sized-email.ts';
import { percentile } from './lib/stats.ts';

const TARGET_MS = 100;
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    kb: { type: 'string', default: '100' },
    mode: { type: 'string', default: 'light' },
  },
});
const runs = Number(values.runs);
const warmup = Number(values.warmup);
const html = emailOf(Number(values.kb) * 1024);
if (!(RENDER_MODES as readonly string[]).includes(values.mode)) throw new Error(`--mode must be one of ${RENDER_MODES.join(', ')}`);
const mode = values.mode as RenderMode;

const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-bench-render-'));
const config = loadConfig(['--data-dir', dataDir, '--host', '127.0.0.1', '--http-port', '0', '--smtp-port', '0'], {});
const pigeonhole = await createPigeonhole(config, { processMetrics: false });
const { httpPort } = await pigeonhole.listen();
const base = `http://127.0.0.1:${httpPort}`;
try {
  const sent = await fetch(`${base}/v1/email/send/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Api-Key test-key' },
    body: JSON.stringify({ recipient: 'bench@example.com', subject: 'Render', body: html, use_account_template: false }),
  });
  if (sent.status !== 200) throw new Error(`send: ${sent.status} ${await sent.text()}`);
  const { id } = (await sent.json()) as { id: string };

  const view = async (client: string) => {
    const response = await fetch(`${base}/api/messages/${id}/render?client=${client}&mode=${mode}`);
    if (response.status !== 200) throw new Error(`${client}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { removed: unknown[]; html: string };
  };
  const all: number[] = [];
  const rows: string[] = [];
  for (const client of CLIENT_VIEWS) {
    for (let i = 0; i < warmup; i++) await view(client);
    const samples = new Float64Array(runs);
    let removed = 0;
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      removed = (await view(client)).removed.length;
      samples[i] = performance.now() - started;
      all.push(samples[i]!);
    }
    const transform = new Float64Array(runs);
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      renderClientView(html, client, mode);
      transform[i] = performance.now() - started;
    }
    rows.push(
      `| ${client} | ${percentile(samples, 50).toFixed(1)} | ${percentile(samples, 95).toFixed(1)} | ${percentile(transform, 50).toFixed(1)} | ${removed} |`,
    );
  }
  console.log(
    `HTML: ${Buffer.byteLength(html)} bytes; mode ${mode}; ${warmup} warm-up and ${runs} timed requests per view; node ${process.version}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log('| view | API median ms | API p95 ms | transform alone, median ms | removal kinds |\n|---|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  const median = percentile(Float64Array.from(all), 50);
  console.log(
    `target: a client view of a ${values.kb} KB email through the API under ${TARGET_MS} ms median: ${median <= TARGET_MS ? 'met' : 'NOT met'} (${median.toFixed(1)} ms median over every view)`,
  );
} finally {
  await pigeonhole.close({ drainMs: 0 });
  await rm(dataDir, { recursive: true, force: true });
}
