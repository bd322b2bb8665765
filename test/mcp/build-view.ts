import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SOURCES = `${ROOT}ui/mcp-app/`;
const BUILT = `${ROOT}dist/mcp-app/email.html`;

/**
 * Vitest global setup: the MCP server serves the email view from dist/mcp-app (ui/mcp-app), so
 * build it first, unless the build is newer than every source of the view (a run of one test
 * file then costs no build).
 */
export default function buildView(): void {
  const built = statSync(BUILT, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const newest = Math.max(...readdirSync(SOURCES).map((name) => statSync(SOURCES + name).mtimeMs));
  if (built > newest) return;
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'ui/mcp-app/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
