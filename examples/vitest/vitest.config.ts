import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One sandbox for the whole run, started before the first test file and stopped after the last.
    globalSetup: ['./pigeonhole.setup.ts'],
  },
});
