import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Vitest global setup: the MCP server serves the email view from dist/mcp-app (ui/mcp-app), so build it first. */
export default function buildView(): void {
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'ui/mcp-app/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
