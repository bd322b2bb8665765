// Reads the runs' reports and prints the one line the landing reads: "N passed, N failed".
//   node .ci/summary.mjs --gate <exit status> ... --vitest <report.json>:<exit status> ...
//     --pytest <junit.xml>:<exit status> ...   (the Python client's suite, clients/python/ci.sh)
// Skipped, todo or pending tests count as failed: CI runs everything. A run that produced no
// report (the type check or the runner failed first) is one failure, and so is a failed gate
// (npm run check).
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

let passed = 0;
let failed = 0;
let ok = true;
/** Each failed test, named, printed above the counts so CI's tail says what failed. */
const failures = [];

function firstLine(text) {
  return String(text ?? '').split('\n').find((line) => line.trim() !== '')?.trim().slice(0, 300) ?? '';
}

/** One Vitest run: its JSON report and the runner's exit status. */
function vitest(file, status) {
  let runPassed = 0;
  let runFailed = 0;
  if (file && existsSync(file)) {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const suite of report.testResults ?? []) {
      for (const test of suite.assertionResults ?? []) {
        if (test.status === 'passed') runPassed += 1;
        else {
          runFailed += 1;
          failures.push(`${basename(file).replace(/\.json$/, '')}: ${suite.name?.replace(process.cwd() + '/', '') ?? '?'} > ${test.fullName ?? test.title} (${test.status}): ${firstLine(test.failureMessages?.[0])}`);
        }
      }
      // A file that failed to load has no assertions but did fail.
      if ((suite.assertionResults ?? []).length === 0 && suite.status === 'failed') {
        runFailed += 1;
        failures.push(`${basename(file).replace(/\.json$/, '')}: ${suite.name ?? '?'} did not load: ${firstLine(suite.message)}`);
      }
    }
  }
  // A run that failed without a failed test (the type check, the runner) or ran nothing.
  tally(file, runPassed, runFailed, status);
}

/** One pytest run: its JUnit XML report (a case with a failure, an error or a skip fails) and its exit status. */
function pytest(file, status) {
  const cases = file && existsSync(file) ? (readFileSync(file, 'utf8').match(/<testcase\b[^>]*?(\/>|>[\s\S]*?<\/testcase>)/g) ?? []) : [];
  const failedCases = cases.filter((c) => /<(failure|error|skipped)\b/.test(c));
  for (const c of failedCases) failures.push(`${basename(file).replace(/\.xml$/, '')}: ${/classname="([^"]*)"/.exec(c)?.[1] ?? '?'}::${/name="([^"]*)"/.exec(c)?.[1] ?? '?'}`);
  const runFailed = failedCases.length;
  const runPassed = cases.length - runFailed;
  tally(file, runPassed, runFailed, status);
}

/** Adds a run up; one that failed without a failed test (a collection error, the runner) or ran nothing is one failure. */
function tally(file, runPassed, runFailed, status) {
  if ((Number(status) !== 0 && runFailed === 0) || runPassed + runFailed === 0) runFailed += 1;
  // Each run's own count, named by its report (today, ahead, node24, pytest-own, ...), above the total.
  console.log(`  ${basename(file || 'run').replace(/\.(json|xml)$/, '')}: ${runPassed} passed, ${runFailed} failed`);
  if (Number(status) !== 0 || runFailed > 0) ok = false;
  passed += runPassed;
  failed += runFailed;
}

const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const [flag, value = ''] = [args[i], args[i + 1]];
  if (flag === '--gate') {
    if (Number(value) !== 0) {
      ok = false;
      failed += 1;
    }
  } else if (flag === '--vitest' || flag === '--pytest') {
    const at = value.lastIndexOf(':');
    (flag === '--vitest' ? vitest : pytest)(value.slice(0, at), value.slice(at + 1));
  } else {
    console.error(`summary: unknown argument ${flag}`);
    ok = false;
    failed += 1;
  }
}
if (failures.length > 0) {
  console.log('failed tests:');
  for (const line of failures.slice(0, 40)) console.log(`  ${line}`);
}
if (passed === 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
