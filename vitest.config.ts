import { defineConfig } from 'vitest/config';

const BROWSER_TESTS = 'test/e2e/browser/**/*.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A focused or skipped test is a failure in CI, never a silent gap.
    allowOnly: false,
    projects: [
      { extends: true, test: { name: 'node', include: ['test/**/*.test.ts'], exclude: [BROWSER_TESTS] } },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          // Builds the UI once before any browser test (only when browser tests run).
          globalSetup: ['test/e2e/browser/build-ui.ts'],
        },
      },
    ],
  },
});
