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
  console.error(missingBuild());
  process.exit(1);
}

/**
 * Why there is nothing to run, and the fix that works where this file is: in a clone (the
 * sources are here) the dependencies are missing; in an installed package (no sources) the
 * package was packed without its build, which only a new tarball fixes.
 */
function missingBuild() {
  const dir = fileURLToPath(root).replace(/[\\/]$/, '');
  if (existsSync(fileURLToPath(sources))) {
    return `pigeonhole: ${dir} holds the sources but not their dependencies (tsx runs them): run "npm ci" there, or "npm ci && npm run build" to run the compiled server.`;
  }
  const parts = dir.split(/[\\/]/);
  const modules = parts.lastIndexOf('node_modules');
  const project = modules > 0 ? parts.slice(0, modules).join('/') : null;
  return [
    `pigeonhole: the installed package in ${dir} has no build (dist/ is missing): it was packed without one, so reinstalling it changes nothing.`,
    `  Make a new tarball: "npm pack" in a clone of Pigeonhole (it builds before it packs), then "npm install <path>/pigeonhole-<version>.tgz"${project ? ` in ${project}` : ''} (with -g for a global install).`,
  ].join('\n');
}
