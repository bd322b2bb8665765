import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './lib/chromium.ts';
import { buildApp, runBench } from './lib/cli.ts';
import { format, median, percentileOf, table, targetLine } from './lib/figures.ts';
import { spawnPigeonhole } from './lib/server-process.ts';

/**
 * Typing in the Templates page while its live check refreshes (issue 13's editor; issue 22 moved
 * this figure out of the browser tests, where a machine's speed decided a test). Input-to-paint:
 * from a key's input event to the frame after the one that paints it, measured in the page.
 * Each round types the same bursts into Pigeonhole's editor (the template preview with the
 * live check on, a 300 ms pause after each burst so the 250 ms debounce fires a check) and into
 * a bare ceiling (a page with one plain textarea, in the same Chromium): the ratio is what the
 * inbox adds to the browser's own cost of a key. Rounds alternate the two.
 */

/** Where a delay becomes noticeable (RAIL); a frame is 16.7 ms. */
const TARGET_P95_MS = 100;
const EMAIL = readFileSync(new URL('../fixtures/emails/outlook-unsupported.html', import.meta.url), 'utf8');

/** Puts the input-to-paint recorder on the page's first textarea. */
async function record(page: Page): Promise<void> {
  await page.evaluate(() => {
    const samples: number[] = [];
    (window as unknown as { inputToPaint: number[] }).inputToPaint = samples;
    document.querySelector('textarea')!.addEventListener('input', (event) => {
      const start = event.timeStamp;
      requestAnimationFrame(() => {
        const channel = new MessageChannel();
        channel.port1.onmessage = () => samples.push(performance.now() - start);
        channel.port2.postMessage(null);
      });
    });
  });
}

/** Types `bursts` bursts into the textarea, pausing after each; returns the new samples. */
async function type(page: Page, bursts: number): Promise<number[]> {
  const editor = page.locator('textarea').first();
  await editor.press('End');
  const before = await page.evaluate(() => (window as unknown as { inputToPaint: number[] }).inputToPaint.length);
  for (let burst = 0; burst < bursts; burst++) {
    await editor.pressSequentially(`<p>Paragraph ${burst} with a <a href="https://a.example/${burst}">link</a></p>`, { delay: 15 });
    await page.waitForTimeout(300); // the user's pause: the live check runs in it
  }
  return page.evaluate((from) => (window as unknown as { inputToPaint: number[] }).inputToPaint.slice(from), before);
}

await runBench(
  {
    usage: 'npm run bench:typing -- [options]',
    about:
      'Input-to-paint while typing in the Templates page with its live check on, beside a bare page with\n' +
      'one textarea in the same Chromium (the ceiling), in alternating rounds; prints median, p95 and max\n' +
      `of each, their ratio, and the target (p95 under ${TARGET_P95_MS} ms).`,
    flags: {
      rounds: { kind: 'int', default: 4, min: 1, help: 'alternating rounds (each types into both pages)' },
      bursts: { kind: 'int', default: 6, min: 1, help: 'bursts of about 60 keys per page per round' },
      'skip-build': { kind: 'switch', help: 'use dist/ as it is instead of running npm run build' },
    },
  },
  async (flags, { tempDir, log }) => {
    buildApp(flags['skip-build']);
    const pigeonhole = await spawnPigeonhole(tempDir('bench-typing-data'));
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
    try {
      const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
      const inbox = await context.newPage();
      await inbox.goto(`${pigeonhole.url}/#/preview`);
      await inbox.getByRole('combobox', { name: 'Sender' }).waitFor();
      const live = inbox.getByRole('region', { name: /Live check/ });
      await inbox.getByRole('textbox', { name: 'HTML body' }).fill(EMAIL);
      await live.getByText('up to date').waitFor();
      await record(inbox);
      const bare = await context.newPage();
      await bare.setContent('<!doctype html><textarea style="width:800px;height:600px"></textarea>');
      await bare.locator('textarea').fill(EMAIL);
      await record(bare);

      const samples = { pigeonhole: [] as number[], bare: [] as number[] };
      const checks = () => inbox.evaluate(() => performance.getEntriesByType('resource').filter((e) => e.name.endsWith('/api/check')).length);
      const checksBefore = await checks();
      for (let round = 1; round <= flags.rounds; round++) {
        // Alternate which goes first, so a slow start of the machine does not fall on one side.
        const order = round % 2 === 1 ? (['bare', 'pigeonhole'] as const) : (['pigeonhole', 'bare'] as const);
        for (const side of order) {
          const page = side === 'bare' ? bare : inbox;
          await page.bringToFront();
          samples[side].push(...(await type(page, flags.bursts)));
        }
        log(`round ${round}/${flags.rounds}: load ${format(loadavg()[0]!, 2)}`);
      }
      await live.getByText('up to date').waitFor();
      const liveChecks = (await checks()) - checksBefore;

      const row = (name: string, values: number[]) => [
        name,
        format(values.length),
        format(median(values), 1),
        format(percentileOf(values, 95), 1),
        format(Math.max(...values), 1),
      ];
      console.log(`\nInput-to-paint (ms), ${flags.rounds} alternating rounds, ${liveChecks} live checks in Pigeonhole's editor:\n`);
      console.log(
        table(
          ['page', 'keys', 'median', 'p95', 'max'],
          [row('Pigeonhole, Templates + live check', samples.pigeonhole), row('bare textarea (ceiling)', samples.bare)],
        ),
      );
      const p95 = percentileOf(samples.pigeonhole, 95);
      console.log(
        `\nratio Pigeonhole / bare: median ×${format(median(samples.pigeonhole) / median(samples.bare), 2)}, p95 ×${format(p95 / percentileOf(samples.bare, 95), 2)}\n`,
      );
      console.log(targetLine(p95 < TARGET_P95_MS, `input-to-paint p95 under ${TARGET_P95_MS} ms while the live check refreshes`, `${format(p95, 1)} ms`));
    } finally {
      await browser.close();
    }
  },
);
