/**
 * Debian's Chromium as the benchmarks and the browser tests run it (docs/architecture.md,
 * Machine facts): headless, with nothing running in the background. `CHROMIUM_PATH` names
 * another binary.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
