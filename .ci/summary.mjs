// Reads Vitest's JSON report and prints the one line the landing reads: "N passed, N failed".
// Skipped, todo or pending tests count as failed: CI runs everything. A run that produced no
// report (the type check or the runner failed first) is one failure, and so are failed gates
// (the exit status of npm run check, the third argument).
// Each further argument is `<exit status>:<JUnit XML file>` of a pytest run (clients/python/ci.sh):
// its test cases count the same way (a skipped one is a failure), and a run that failed without
// a failed case, or left no report, is one failure.
import { existsSync, readFileSync } from 'node:fs';

const [file, status, check = '0', ...pytestRuns] = process.argv.slice(2);
let passed = 0;
let failed = 0;
if (file && existsSync(file)) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  for (const suite of report.testResults ?? []) {
    for (const test of suite.assertionResults ?? []) {
      if (test.status === 'passed') passed += 1;
      else failed += 1;
    }
    // A file that failed to load has no assertions but did fail.
    if ((suite.assertionResults ?? []).length === 0 && suite.status === 'failed') failed += 1;
  }
}
if (Number(status) !== 0 && failed === 0) failed = 1;
if (Number(check) !== 0) failed += 1;
let pytestFailed = false;
for (const run of pytestRuns) {
  const [, runStatus, xml] = /^(\d+):(.*)$/.exec(run) ?? [null, '1', run];
  const cases = xml && existsSync(xml) ? readFileSync(xml, 'utf8').match(/<testcase\b[^>]*?(\/>|>[\s\S]*?<\/testcase>)/g) ?? [] : [];
  const bad = cases.filter((c) => /<(failure|error|skipped)\b/.test(c)).length;
  passed += cases.length - bad;
  failed += bad;
  if (cases.length === 0 || (Number(runStatus) !== 0 && bad === 0)) failed += 1;
  if (Number(runStatus) !== 0 || bad > 0 || cases.length === 0) pytestFailed = true;
}
if (passed === 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && Number(status) === 0 && Number(check) === 0 && !pytestFailed ? 0 : 1);
