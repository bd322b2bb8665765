import { execFile } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { test as it } from '../../support/fixtures.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RECIPE = path.join(ROOT, 'examples/visual-regression');

/** `playwright test` on the recipe, as its README runs it, against `url`; resolves with the exit code and output. */
function runRecipe(url: string, dir: string, update = false): Promise<{ code: number; output: string }> {
  const args = [path.join(ROOT, 'node_modules/@playwright/test/cli.js'), 'test', '--config', path.join(RECIPE, 'playwright.config.ts')];
  if (update) args.push('--update-snapshots');
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      {
        cwd: ROOT,
        env: {
          ...process.env,
          PIGEONHOLE_URL: url,
          EMAILS_DIR: path.join(dir, 'emails'),
          SNAPSHOT_DIR: path.join(dir, 'baselines'),
          OUTPUT_DIR: path.join(dir, 'results'),
        },
        timeout: 120_000,
      },
      (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

describe('the visual-regression recipe (examples/visual-regression) with @playwright/test and Debian Chromium', () => {
  it('fails when one pixel-visible change is made to a template, and passes again when it is reverted', { timeout: 240_000 }, async ({ app, tempDir }) => {
    await cp(path.join(RECIPE, 'emails'), path.join(tempDir, 'emails'), { recursive: true });
    const template = path.join(tempDir, 'emails/welcome.html');
    const original = await readFile(template, 'utf8');

    const baseline = await runRecipe(app.url, tempDir, true);
    expect(baseline.output).toContain('6 passed');
    expect(baseline.code).toBe(0);
    const same = await runRecipe(app.url, tempDir);
    expect(same.output).toContain('6 passed');
    expect(same.code).toBe(0);

    // One change a designer would see: the button's colour, violet to red; nothing else moves.
    expect(original).toContain('background:#4f46e5');
    await writeFile(template, original.replace('background:#4f46e5', 'background:#e5464f'));
    const changed = await runRecipe(app.url, tempDir);
    expect(changed.code).not.toBe(0);
    expect(changed.output).toMatch(/6 failed/);
    expect(changed.output).toContain('toHaveScreenshot(expected) failed');

    await writeFile(template, original);
    const reverted = await runRecipe(app.url, tempDir);
    expect(reverted.output).toContain('6 passed');
    expect(reverted.code).toBe(0);
  });
});
