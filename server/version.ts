import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version in package.json, found from the source or the built file (for `--version`, the MCP server and the app). */
export function packageVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'pigeonhole' && pkg.version) return pkg.version;
    } catch {
      // not this folder
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json of pigeonhole not found');
    dir = parent;
  }
}
