import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// .ci/summary.mjs prints the one line the landing reads. It must never count a run as green that
// skipped a test, failed outside a test, ran nothing, or whose gate failed.
const SUMMARY = path.resolve(import.meta.dirname, '../../.ci/summary.mjs');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A Vitest JSON report with files of the given test statuses. */
function report(...files: { status?: string; tests: string[] }[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pigeonhole-summary-'));
  dirs.push(dir);
  const file = path.join(dir, 'vitest.json');
  const testResults = files.map((f) => ({ status: f.status ?? 'passed', assertionResults: f.tests.map((status) => ({ status })) }));
  writeFileSync(file, JSON.stringify({ testResults }));
  return file;
}

/** A pytest JUnit XML report with one test case per outcome (`passed`, `failure`, `error`, `skipped`). */
function junit(...outcomes: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pigeonhole-summary-'));
  dirs.push(dir);
  const file = path.join(dir, 'pytest.xml');
  const cases = outcomes.map((outcome, i) =>
    outcome === 'passed'
      ? `<testcase classname="tests.test_x" name="test_${i}[a/b]" time="0.1" />`
      : `<testcase classname="tests.test_x" name="test_${i}" time="0.1"><${outcome} message="m">details</${outcome}></testcase>`,
  );
  writeFileSync(file, `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">${cases.join('')}</testsuite></testsuites>`);
  return file;
}

/** The last line (the one the landing reads) and the exit status. */
function summary(...args: string[]) {
  const result = spawnSync(process.execPath, [SUMMARY, ...args], { encoding: 'utf8' });
  return { line: `${result.stdout.trimEnd().split('\n').at(-1)}\n`, status: result.status };
}

describe('the CI summary (.ci/summary.mjs)', () => {
  it('adds up the runs and passes when every test of every run passed', () => {
    const a = report({ tests: ['passed', 'passed'] });
    const b = report({ tests: ['passed'] }, { tests: ['passed'] });
    expect(summary('--gate', '0', '--vitest', `${a}:0`, '--vitest', `${b}:0`)).toEqual({ line: '4 passed, 0 failed\n', status: 0 });
  });

  it('counts skipped and todo tests as failed', () => {
    const a = report({ tests: ['passed', 'skipped', 'todo'] });
    expect(summary('--gate', '0', '--vitest', `${a}:0`)).toEqual({ line: '1 passed, 2 failed\n', status: 1 });
  });

  it('counts a failed gate, a file that did not load, a run that failed outside its tests and a missing report', () => {
    const a = report({ tests: ['passed'] }, { status: 'failed', tests: [] });
    const b = report({ tests: ['passed'] });
    const missing = path.join(tmpdir(), 'pigeonhole-summary-none', 'vitest.json');
    expect(summary('--gate', '1', '--vitest', `${a}:1`, '--vitest', `${b}:1`, '--vitest', `${missing}:1`)).toEqual({
      line: '2 passed, 4 failed\n',
      status: 1,
    });
  });

  it("adds pytest's JUnit reports, a failed, errored or skipped case counting as failed", () => {
    const vitest = report({ tests: ['passed'] });
    expect(summary('--gate', '0', '--vitest', `${vitest}:0`, '--pytest', `${junit('passed', 'passed')}:0`)).toEqual({
      line: '3 passed, 0 failed\n',
      status: 0,
    });
    const mixed = junit('passed', 'failure', 'error', 'skipped');
    expect(summary('--gate', '0', '--vitest', `${vitest}:0`, '--pytest', `${mixed}:1`)).toEqual({ line: '2 passed, 3 failed\n', status: 1 });
  });

  it('counts a pytest run that failed outside its cases, or left no report, as one failure', () => {
    const vitest = report({ tests: ['passed'] });
    const missing = path.join(tmpdir(), 'pigeonhole-summary-none', 'pytest.xml');
    expect(summary('--gate', '0', '--vitest', `${vitest}:0`, '--pytest', `${junit('passed')}:2`, '--pytest', `${missing}:0`)).toEqual({
      line: '2 passed, 2 failed\n',
      status: 1,
    });
  });

  it("names each run's own count above the total, the total alone on the last line", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pigeonhole-summary-'));
    dirs.push(dir);
    const today = path.join(dir, 'today.json');
    const node24 = path.join(dir, 'node24.json');
    writeFileSync(today, JSON.stringify({ testResults: [{ status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }] }] }));
    writeFileSync(
      node24,
      JSON.stringify({
        testResults: [
          {
            name: path.join(process.cwd(), 'test/a.test.ts'),
            status: 'failed',
            assertionResults: [
              { status: 'passed' },
              { status: 'failed', fullName: 'storage keeps it', failureMessages: ['\nAssertionError: expected 1 to be 2\n    at test/a.test.ts:3:1'] },
            ],
          },
        ],
      }),
    );
    const result = spawnSync(process.execPath, [SUMMARY, '--gate', '0', '--vitest', `${today}:0`, '--vitest', `${node24}:1`], { encoding: 'utf8' });
    expect(result.stdout).toBe(
      '  today: 2 passed, 0 failed\n  node24: 1 passed, 1 failed\nfailed tests:\n' +
        '  node24: test/a.test.ts > storage keeps it (failed): AssertionError: expected 1 to be 2\n3 passed, 1 failed\n',
    );
  });

  it('fails a run that ran nothing, even with exit status 0', () => {
    expect(summary('--gate', '0', '--vitest', `${report()}:0`)).toEqual({ line: '0 passed, 1 failed\n', status: 1 });
  });
});
