import type fc from 'fast-check';

/**
 * How the fuzz tests run (issue 19, item 5): fast-check properties over the parsers and filters
 * that read hostile input, each call timed against a budget.
 *
 * - A fixed seed by default, so CI runs the same inputs every time; `FC_SEED=<n>` tries others
 *   (the seed is printed, and a failure prints the seed and path that replay it).
 * - A bounded number of runs per property (`FC_RUNS=<n>` changes it for a long local run).
 * - A failure is reported as found, without shrinking (shrinking re-runs slow inputs many
 *   times); `FC_SHRINK=1` shrinks it to the smallest input that still fails.
 * - Every input a run has found is kept in its property's `examples`, so it is tried first,
 *   whatever the seed (`FC_NO_EXAMPLES=1` leaves them out, to see what the search finds alone).
 */
const SEED = process.env.FC_SEED === undefined ? 19 : Number(process.env.FC_SEED);

/** The most one call may take. Generous (the inputs are at most ~120 KB), so it never flakes on a busy machine, yet a catastrophic backtrack (seconds to hours) fails it. */
const BUDGET_MS = 1000;

/** fast-check's parameters: the seed, `runs` (or FC_RUNS) runs, the regression examples first. */
export function fuzzParameters<T>(runs: number, examples: T[] = []): fc.Parameters<T> {
  return {
    seed: SEED,
    numRuns: process.env.FC_RUNS === undefined ? runs : Number(process.env.FC_RUNS),
    examples: process.env.FC_NO_EXAMPLES ? [] : examples,
    endOnFailure: process.env.FC_SHRINK === undefined,
  };
}

/** Says which seed a file runs with (once, at its start). */
export function announceSeed(file: string): void {
  console.info(`${file}: fast-check seed ${SEED}${process.env.FC_SEED === undefined ? ' (the default; set FC_SEED to try another)' : ' (FC_SEED)'}`);
}

/** Runs `call`, failing when it took longer than the budget. */
export function timed<T>(what: string, call: () => T): T {
  const started = performance.now();
  const result = call();
  overBudget(what, performance.now() - started);
  return result;
}

/** As `timed`, for a call that returns a promise (timed until it settles). */
export async function timedAsync<T>(what: string, call: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await call();
  overBudget(what, performance.now() - started);
  return result;
}

function overBudget(what: string, ms: number): void {
  if (ms > BUDGET_MS) throw new Error(`${what} took ${Math.round(ms)} ms, over the budget of ${BUDGET_MS} ms per input`);
}

/**
 * A glob matched the slow but obviously right way (the reference the code under test must agree
 * with): `*` is any run of characters, `?` one character when `question` is set (else itself),
 * everything else itself, compared without case when `ignoreCase` is set. Neither `*` nor `?`
 * spans a line break, as the regular expressions they were written as never did.
 */
export function referenceGlob(pattern: string, subject: string, options: { question: boolean; ignoreCase: boolean }): boolean {
  const fold = (c: string) => (options.ignoreCase ? c.toLowerCase() : c);
  const p = pattern.split('');
  const s = subject.split('');
  // matches[i][j]: p[i..] matches s[j..]; filled from the end, so each cell is visited once.
  const matches: boolean[][] = Array.from({ length: p.length + 1 }, () => Array<boolean>(s.length + 1).fill(false));
  matches[p.length]![s.length] = true;
  for (let i = p.length - 1; i >= 0; i--) {
    for (let j = s.length; j >= 0; j--) {
      const c = p[i]!;
      const here = s[j];
      const lineBreak = here === undefined || /[\n\r\u2028\u2029]/.test(here);
      if (c === '*') matches[i]![j] = matches[i + 1]![j]! || (!lineBreak && matches[i]![j + 1]!);
      else if (c === '?' && options.question) matches[i]![j] = !lineBreak && matches[i + 1]![j + 1]!;
      else matches[i]![j] = here !== undefined && fold(c) === fold(here) && matches[i + 1]![j + 1]!;
    }
  }
  return matches[0]![0]!;
}
