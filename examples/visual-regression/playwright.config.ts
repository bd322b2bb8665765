import { defineConfig } from '@playwright/test';

/**
 * Visual regression of email templates: each template in emails/ is sent through Pigeonhole's
 * /v1 and its render URL (`/preview/<id>?width=…&mode=…`, the email alone) is compared with the
 * baseline screenshot at three widths, light and dark. Start Pigeonhole first (`npx pigeonhole`),
 * then `npm run update` once to write the baselines and `npm test` after every change.
 */
export default defineConfig({
  testDir: './tests',
  // The baselines, one per template, width and mode: commit them beside the templates.
  snapshotPathTemplate: process.env.SNAPSHOT_DIR ? `${process.env.SNAPSHOT_DIR}/{arg}{ext}` : '{testDir}/__screenshots__/{arg}{ext}',
  outputDir: process.env.OUTPUT_DIR ?? 'test-results',
  reporter: 'line',
  // Any pixel that differs past Playwright's colour threshold fails the comparison.
  expect: { toHaveScreenshot: { maxDiffPixels: 0 } },
  use: {
    baseURL: process.env.PIGEONHOLE_URL ?? 'http://127.0.0.1:8025',
    // Debian's Chromium (apt-get install chromium). To use Playwright's own browser instead,
    // run `npx playwright install chromium` and delete these launch options.
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
});
