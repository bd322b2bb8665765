import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Vitest global setup for the browser tests: the server serves dist/ui, so build it first. */
export default function buildUi(): void {
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'ui/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}
