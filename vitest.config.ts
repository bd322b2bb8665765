import { defineConfig } from 'vitest/config';

const BROWSER_TESTS = 'test/e2e/browser/**/*.test.ts';
// These run the real `npm run build`, which empties and rewrites dist/ui: never beside the
// browser tests that serve it.
const BUILD_TESTS = 'test/cli/dockerfile.test.ts';
// These pack the package from a fresh clone (test/package/pack.ts: npm ci && npm pack, whose
// prepack builds it) and install it in fresh projects.
const PACKAGE_TESTS = 'test/package/{packed,recipes}.test.ts';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A focused or skipped test is a failure in CI, never a silent gap.
    allowOnly: false,
    // expect.poll waits up to 5 s, checking every 20 ms, unless a call says otherwise.
    expect: { poll: { timeout: 5000, interval: 20 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: [BROWSER_TESTS, BUILD_TESTS, PACKAGE_TESTS],
          // The MCP server's email view (dist/mcp-app), which test/mcp reads.
          globalSetup: ['test/mcp/build-view.ts'],
          sequence: { groupOrder: 0 },
          // Vitest's default is one file at a time on 2 cores (CPUs - 1); most node test files
          // wait on sockets, child processes and disks, so two at a time finish sooner.
          maxWorkers: 2,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          // Builds the UI once before any browser test (only when browser tests run).
          globalSetup: ['test/e2e/browser/build-ui.ts', 'test/mcp/build-view.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      { extends: true, test: { name: 'build', include: [BUILD_TESTS], sequence: { groupOrder: 2 } } },
      {
        extends: true,
        test: {
          name: 'package',
          include: [PACKAGE_TESTS],
          globalSetup: ['test/package/pack.ts'],
          // npm installs and whole test runs in fresh projects.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
