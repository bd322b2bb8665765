// Reads the runs' reports and prints the one line the landing reads: "N passed, N failed".
//   node .ci/summary.mjs --gate <exit status> ... --vitest <report.json>:<exit status> ...
// Skipped, todo or pending tests count as failed: CI runs everything. A run that produced no
// report (the type check or the runner failed first) is one failure, and so is a failed gate
// (npm run check).
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let ok = true;

/** One Vitest run: its JSON report and the runner's exit status. */
function vitest(file, status) {
  let runPassed = 0;
  let runFailed = 0;
  if (file && existsSync(file)) {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    for (const suite of report.testResults ?? []) {
      for (const test of suite.assertionResults ?? []) {
        if (test.status === 'passed') runPassed += 1;
        else runFailed += 1;
      }
      // A file that failed to load has no assertions but did fail.
      if ((suite.assertionResults ?? []).length === 0 && suite.status === 'failed') runFailed += 1;
    }
  }
  // A run that failed without a failed test (the type check, the runner) or ran nothing.
  if ((Number(status) !== 0 && runFailed === 0) || runPassed + runFailed === 0) runFailed += 1;
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
  } else if (flag === '--vitest') {
    const at = value.lastIndexOf(':');
    vitest(value.slice(0, at), value.slice(at + 1));
  } else {
    console.error(`summary: unknown argument ${flag}`);
    ok = false;
    failed += 1;
  }
}
if (passed === 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed`);
process.exit(ok && failed === 0 ? 0 : 1);
