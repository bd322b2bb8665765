import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { command, npmInstall, typeCheck } from './consumer.ts';

/**
 * The recipes of docs/testing.md ("Start it from your test runner"), examples/<runner>/, run
 * as a user runs them: each copied into a new project, `npm install` of the packed tarball and
 * the runner, then the project's own `npm test`; it must pass with every one of its tests. The
 * runners are installed at the versions this repository uses (so npm takes them from its cache),
 * and a recipe written in TypeScript must also type-check.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The version installed here of a package the recipes install. */
async function installedVersion(packageJson: string): Promise<string> {
  return (JSON.parse(await readFile(fileURLToPath(packageJson), 'utf8')) as { version: string }).version;
}

interface Counts {
  passed: number;
  failed: number;
}

interface Recipe {
  name: string;
  /** The packages the recipe's package.json names, at the versions installed here. */
  pins: Record<string, Promise<string>>;
  /** What `npm test -- ...` gets to write a JSON report to results.json. */
  reportArgs: string[];
  reportEnv?: Record<string, string>;
  counts(report: unknown): Counts;
  tests: number;
  typed: boolean;
}

const RECIPES: Recipe[] = [
  {
    name: 'vitest',
    pins: { vitest: installedVersion(import.meta.resolve('vitest/package.json')) },
    reportArgs: ['--reporter=json', '--outputFile=results.json'],
    counts: (r) => jestLike(r),
    tests: 4,
    typed: true,
  },
  {
    name: 'jest',
    pins: { jest: installedVersion(import.meta.resolve('jest/package.json')) },
    reportArgs: ['--json', '--outputFile=results.json'],
    counts: (r) => jestLike(r),
    tests: 2,
    typed: false,
  },
  {
    name: 'playwright',
    pins: {
      '@playwright/test': installedVersion(import.meta.resolve('@playwright/test/package.json')),
      '@types/node': installedVersion(import.meta.resolve('@types/node/package.json')),
    },
    reportArgs: ['--reporter=json'],
    reportEnv: { PLAYWRIGHT_JSON_OUTPUT_NAME: 'results.json' },
    counts: (r) => {
      const stats = (r as { stats: { expected: number; unexpected: number; flaky: number; skipped: number } }).stats;
      return { passed: stats.expected, failed: stats.unexpected + stats.flaky + stats.skipped };
    },
    tests: 2,
    typed: true,
  },
];

/** Vitest's JSON reporter writes Jest's format. */
function jestLike(report: unknown): Counts {
  const r = report as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
  return { passed: r.numPassedTests, failed: r.numFailedTests + r.numPendingTests + r.numTodoTests };
}

/** This environment without what the Vitest running this file set for its own workers. */
function userEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('VITEST')));
}

const projects: string[] = [];

afterAll(async () => {
  await Promise.all(projects.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The example copied into a new project whose package.json installs the tarball and the pinned runner. */
async function project(recipe: Recipe): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `pigeonhole-recipe-${recipe.name}-`));
  projects.push(dir);
  await cp(path.join(ROOT, 'examples', recipe.name), dir, { recursive: true });
  const file = path.join(dir, 'package.json');
  const pkg = JSON.parse(await readFile(file, 'utf8')) as { devDependencies: Record<string, string> };
  expect(Object.keys(pkg.devDependencies).sort()).toEqual(['pigeonhole', ...Object.keys(recipe.pins)].sort());
  pkg.devDependencies.pigeonhole = `file:${inject('tarball')}`;
  for (const [name, version] of Object.entries(recipe.pins)) pkg.devDependencies[name] = await version;
  await writeFile(file, `${JSON.stringify(pkg, null, 2)}\n`);
  await npmInstall(dir);
  return dir;
}

describe.concurrent('the test-runner recipes, from the packed package', () => {
  for (const recipe of RECIPES) {
    it(`examples/${recipe.name}: npm test passes all ${recipe.tests} tests and stops its sandbox`, async () => {
      const dir = await project(recipe);
      // The sandboxes' temporary data directories go here, to be seen removed at the end.
      const tmp = path.join(dir, '.tmp');
      await mkdir(tmp);
      const result = await command('npm', ['test', '--', ...recipe.reportArgs], {
        cwd: dir,
        env: { ...userEnv(), ...recipe.reportEnv, TMPDIR: tmp, CI: '1' },
        timeout: 180_000,
      });
      const output = `exit ${result.code}\n${result.stdout}\n${result.stderr}`;
      const report = JSON.parse(await readFile(path.join(dir, 'results.json'), 'utf8').catch(() => 'null')) as unknown;
      expect(report, output).not.toBeNull();
      expect(recipe.counts(report), output).toEqual({ passed: recipe.tests, failed: 0 });
      expect(result.code, output).toBe(0);
      expect((await readdir(tmp)).filter((name) => name.startsWith('pigeonhole-'))).toEqual([]);

      if (recipe.typed) {
        const types = await typeCheck(dir);
        expect(types.stdout + types.stderr).toBe('');
        expect(types.code).toBe(0);
      }
    });
  }
});
