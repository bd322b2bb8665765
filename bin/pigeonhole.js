#!/usr/bin/env -S node --max-semi-space-size=4
// (The flag holds V8's young generation to 4 MB semispaces, as on every launch of the server:
// docs/running.md, Memory.)
// The `pigeonhole` command: the same entry as `npm start` (server/main.ts), with the same flags.
// In an installed package (and the Docker image) it runs the compiled build in dist/. In a clone
// of the repository, where the sources and tsx (a development dependency) are present, it runs
// the sources through tsx instead, so it works without a build step and is never behind them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const sources = new URL('server/main.ts', root);
const built = new URL('dist/server/main.js', root);

async function tsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return null;
  }
}

const loader = existsSync(fileURLToPath(sources)) ? await tsx() : null;
if (loader) {
  loader.register();
  await import(sources.href);
} else if (existsSync(fileURLToPath(built))) {
  await import(built.href);
} else {
  console.error('pigeonhole: no build found in dist/: run "npm install" (for the sources) or "npm run build" first');
  process.exit(1);
}
