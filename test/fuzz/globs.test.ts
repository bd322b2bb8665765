import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';
import { announceSeed, fuzzParameters, referenceGlob, timed, timedAsync } from './fuzz.ts';

/**
 * The globs users type that are matched against logged or live input: the request log's path
 * filter (GET /api/requests?path=, no login needed) and fault rules' routes and recipients.
 * Each must agree with the reference matcher and answer within the budget, whatever the
 * pattern: no pattern may make the matching backtrack.
 */
announceSeed('test/fuzz/globs.test.ts');

/** Patterns and subjects over small alphabets, so that stars, repeats and near-misses meet often. */
const pathChar = fc.constantFrom('/', 'v', '1', 'e', 'a', '.', '%', '#', '-', 'A', '[', '(', '\\', '^', '$', '+', '|');
/**
 * The shape that backtracks: many stars, each maybe beside a character the subject repeats, and
 * an end that misses. At most 11 stars and 24 characters, so a backtracking matcher fails the
 * budget within seconds rather than hours.
 */
const starry = (char: string, ends: string[]) =>
  fc
    .tuple(fc.array(fc.constantFrom('*', '*', '*', `*${char}`), { minLength: 5, maxLength: 11 }), fc.constantFrom(...ends))
    .map(([parts, end]) => parts.join('') + end);
const repeated = (unit: string) => fc.integer({ min: 0, max: Math.floor(24 / unit.length) }).map((n) => unit.repeat(n));
const pathGlob = fc.oneof(
  fc.array(fc.oneof({ arbitrary: fc.constant('*'), weight: 2 }, { arbitrary: pathChar, weight: 3 }), { maxLength: 14 }).map((a) => a.join('')),
  // No `?`: a logged path never has one (the query is apart), so what it means in a path glob is left open.
  starry('a', ['#', 'b', '']),
);
const path = fc.oneof(
  fc.array(pathChar, { maxLength: 24 }).map((a) => a.join('')),
  repeated('a'),
  repeated('/v1/email/'),
);

const addressChar = fc.constantFrom('a', 'B', 'x', '@', '.', '-', '+', '_', 'é', '1');
const recipientGlob = fc
  .oneof(
    fc
      .array(fc.oneof({ arbitrary: fc.constantFrom('*', '?'), weight: 2 }, { arbitrary: addressChar, weight: 3 }), { minLength: 1, maxLength: 14 })
      .map((a) => a.join('')),
    starry('a', ['#', 'b', '', '?']),
  )
  // `/.../` is a regular expression, not a glob.
  .filter((p) => !/^\/.+\/[a-z]*$/.test(p));
const asciiRecipientGlob = recipientGlob.filter((p) => !p.includes('é'));
const recipient = fc.oneof(
  fc.array(addressChar, { maxLength: 24 }).map((a) => a.join('')),
  repeated('a'),
  repeated('ab'),
);

/** Inputs these properties found on the backtracking globs (each took 2 to 12 s to answer, depending on the machine's load). */
const PATH_EXAMPLES: [string, string][] = [['************#', '/v1/email/send/abcde']];
// The same regular expression runs faster once V8 has compiled it (the path property runs it first), so one star more.
const ROUTE_EXAMPLES: [string, string][] = [['*************#', '/v1/email/send/abcde']];
const RECIPIENT_EXAMPLES: [string, string][] = [
  ['***********?#', 'abababababababababababab'],
  // FC_SEED=19, run 45: 2 s.
  ['*****a*****b', 'aaaaaaaaaaaaaaaaaaaaaa'],
];

describe('the request log path filter', () => {
  it('matches a glob as the reference does, within the budget', async ({ app }) => {
    const log = app.sandbox.requestLog;
    await fc.assert(
      fc.asyncProperty(pathGlob, path, async (glob, logged) => {
        await log.clear();
        log.record({
          at: '2026-11-25T00:00:00Z',
          durationMs: 1,
          method: 'GET',
          path: logged,
          query: {},
          route: null,
          sender: null,
          team: null,
          status: 404,
          fault: null,
          requestHeaders: {},
          requestBody: null,
          files: [],
          responseBody: null,
        });
        const page = await timedAsync(`path=${JSON.stringify(glob)} on ${JSON.stringify(logged)}`, () => log.page({ path: glob }, 0, 10));
        expect(page.total).toBe(referenceGlob(glob, logged, { question: false, ignoreCase: false }) ? 1 : 0);
      }),
      fuzzParameters(300, PATH_EXAMPLES),
    );
    await log.clear();
  });
});

describe('fault rule patterns', () => {
  it('match a recipient glob (* any run, ? one character, any case) as the reference does, within the budget', ({ app }) => {
    const faults = app.sandbox.faults;
    fc.assert(
      fc.property(asciiRecipientGlob, recipient, (pattern, address) => {
        const rule = faults.add({ id: 'fuzz', target: 'smtp', match: { recipient: pattern }, action: { type: 'drop' } });
        try {
          const fired = timed(`recipient ${JSON.stringify(pattern)} on ${JSON.stringify(address)}`, () =>
            faults.matchSmtp({ stage: 'rcpt', recipient: address }),
          );
          expect(fired?.rule ?? null).toBe(referenceGlob(pattern, address, { question: true, ignoreCase: true }) ? rule.id : null);
        } finally {
          faults.remove(rule.id);
        }
      }),
      fuzzParameters(300, RECIPIENT_EXAMPLES),
    );
  });

  it('never take long to add or match, whatever the characters', ({ app }) => {
    const faults = app.sandbox.faults;
    fc.assert(
      fc.property(recipientGlob, recipient, (pattern, address) => {
        const rule = faults.add({ id: 'fuzz', target: 'smtp', match: { recipient: pattern }, action: { type: 'drop' } });
        try {
          timed(`recipient ${JSON.stringify(pattern)} on ${JSON.stringify(address)}`, () => faults.matchSmtp({ stage: 'rcpt', recipient: address }));
        } finally {
          faults.remove(rule.id);
        }
      }),
      fuzzParameters(200),
    );
  });

  it('match an HTTP route glob (* any run, ? one character, case as written) as the reference does, within the budget', ({ app }) => {
    const faults = app.sandbox.faults;
    fc.assert(
      fc.property(
        pathGlob.filter((g) => g !== ''),
        path,
        (route, requested) => {
          const rule = faults.add({ id: 'fuzz', target: 'http', match: { route }, action: { type: 'status', status: 500 } });
          try {
            const fired = timed(`route ${JSON.stringify(route)} on ${JSON.stringify(requested)}`, () =>
              faults.matchHttp({ route: requested, method: 'POST', sender: null }),
            );
            expect(fired?.rule ?? null).toBe(referenceGlob(route, requested, { question: true, ignoreCase: false }) ? rule.id : null);
          } finally {
            faults.remove(rule.id);
          }
        },
      ),
      fuzzParameters(300, ROUTE_EXAMPLES),
    );
  });
});
