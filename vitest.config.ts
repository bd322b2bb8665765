import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A focused or skipped test is a failure in CI, never a silent gap.
    allowOnly: false,
  },
});
