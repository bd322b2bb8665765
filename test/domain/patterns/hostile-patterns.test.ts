import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { compilePattern, glob } from '../../../server/domain/patterns/fault-rule.ts';
import { globMatcher } from '../../../server/domain/patterns/glob.ts';
import { linearRegex } from '../../../server/domain/patterns/linear-regex.ts';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';
import { GROWTH, growth, LINEAR, longestHold } from '../../support/scale.ts';

/**
 * Patterns users give (request-log path globs, fault-rule routes and recipients) never become
 * a backtracking regular expression: the shapes that froze the process (issue 19) answer at
 * once, and 4× the text costs less than 5× the time.
 */

const addFault = async (url: string, rule: unknown) =>
  read(await fetch(`${url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rule) }));

describe('request-log path globs', () => {
  it('answers 18 stars and a # at once, the event loop never held', async ({ app, v1 }) => {
    // Any /v1 path is logged: a 20-character one, as in the report.
    await v1.get('/v1/aaaaaaaaaaaaaaaaaa/');
    let answer: Awaited<ReturnType<typeof read>> | undefined;
    const held = await longestHold(async () => {
      answer = await read(await fetch(`${app.url}/api/requests?path=${'*'.repeat(18)}%23`));
    });
    expect(answer!.status).toBe(200);
    expect(answer!.body).toMatchObject({ total: 0 });
    expect(held).toBeLessThan(1000);
    // Globs still mean what they meant.
    const total = async (path: string) =>
      ((await read(await fetch(`${app.url}/api/requests?path=${encodeURIComponent(path)}`))).body as { total: number }).total;
    expect(await total('/v1/aaaaaaaaaaaaaaaaaa/')).toBe(1);
    expect(await total('/v1/*')).toBeGreaterThanOrEqual(1);
    expect(await total('*aaa*aaa*/')).toBe(1);
    expect(await total('/v1/a?aaaaaaaaaaaaaaaaa/')).toBe(0);
    expect(await total('/V1/*')).toBe(0);
  });

  it('refuses a path filter longer than an HTTP request line holds', async ({ app }) => {
    const res = await read(await fetch(`${app.url}/api/requests?path=${'*'.repeat(2049)}`));
    expect(res.status).toBe(400);
    expect(res.text).toBe('{"detail":"path must be at most 2048 characters."}');
  });

  it(`matches in linear time: ${GROWTH}× the path costs < ${LINEAR}× the time`, async () => {
    // Each middle segment is looked for in the whole path, and the last one is missing.
    const pattern = globMatcher(`${'*a'.repeat(40)}*ab*#`, { ignoreCase: false, questionMark: false });
    const { ratio } = await growth(
      (size) => `${'a'.repeat(size)}#`,
      (path) => expect(pattern.test(path)).toBe(false),
      100_000,
    );
    expect(ratio).toBeLessThan(LINEAR);
  });

  it('means what the old regular expression meant, on generated globs and paths', () => {
    const asRegex = (glob: string, questionMark: boolean, ignoreCase: boolean) =>
      new RegExp(
        `^${glob
          .replace(questionMark ? /[.+^${}()|[\]\\]/g : /[.+?^${}()|[\]\\]/g, '\\$&')
          .replace(/\*/g, '.*')
          .replace(questionMark ? /\?/g : /(?!)/g, '.')}$`,
        ignoreCase ? 'i' : '',
      );
    const chars = (from: string[], max: number) => fc.array(fc.constantFrom(...from), { maxLength: max }).map((c) => c.join(''));
    fc.assert(
      fc.property(
        chars(['a', 'B', '*', '?', '.', '/'], 8),
        chars(['a', 'b', 'A', 'B', '?', '.', '/'], 10),
        fc.boolean(),
        fc.boolean(),
        (glob, text, questionMark, ignoreCase) => {
          expect(globMatcher(glob, { ignoreCase, questionMark }).test(text), `${glob} ${text}`).toBe(asRegex(glob, questionMark, ignoreCase).test(text));
        },
      ),
      { numRuns: 5000, seed: 19 },
    );
  });

  it('means what the old regular expression meant', () => {
    const cases: [string, string, boolean][] = [
      ['/v1/email/*', '/v1/email/send/', true],
      ['/v1/email/*', '/v1/emails', false],
      ['*', '', true],
      ['', '', true],
      ['a*b*c', 'abc', true],
      ['a*b*c', 'aXbYbZc', true],
      ['a*b*c', 'acb', false],
      ['*ab*ab', 'abab', true],
      ['*ab*ab', 'aba', false],
      ['a?c', 'a?c', true],
      ['a?c', 'abc', false],
      ['x.*', 'xyz', false],
      ['x.*', 'x.yz', true],
    ];
    for (const [pattern, text, expected] of cases)
      expect(globMatcher(pattern, { ignoreCase: false, questionMark: false }).test(text), `${pattern} ${text}`).toBe(expected);
  });
});

describe('fault-rule patterns', () => {
  it('runs globs with ? and * and regexes without backtracking', () => {
    expect(glob('/v1/*/send/', false).test('/v1/email/send/')).toBe(true);
    expect(glob('/v1/?????/send/', false).test('/v1/email/send/')).toBe(true);
    expect(glob('/v1/????/send/', false).test('/v1/email/send/')).toBe(false);
    expect(compilePattern('*@Example.COM')!.test('ada@example.com')).toBe(true);
    expect(compilePattern('a?a*@x')!.test('aXa@x')).toBe(true);
    expect(compilePattern('/^vip\\+\\d+@/i')!.test('VIP+12@example.com')).toBe(true);
    expect(compilePattern('/^vip\\+\\d+@/i')!.test('vip+x@example.com')).toBe(false);
    // Exponential for a backtracking engine, one pass here.
    expect(compilePattern('/(a+)+$/')!.test(`${'a'.repeat(50_000)}b`)).toBe(false);
    expect(compilePattern('/(a+)+b$/')!.test(`${'a'.repeat(50_000)}b`)).toBe(true);
    expect(compilePattern('/^(a+)+$/')!.test(`${'a'.repeat(50_000)}b`)).toBe(false);
    expect(compilePattern('/(?=a)/')).toBeNull();
  });

  it("answers as JavaScript's engine does on generated patterns and texts", () => {
    const atom = fc.constantFrom('a', 'b', '.', '[ab]', '[^a]', '[A-b]', '[^\\d_]', '\\d', '\\W', '\\S', '\\s', '\\b', '\\B', '^', '$', 'A', '(?:a|)');
    const quantifier = fc.constantFrom('', '', '*', '+', '?', '{1,2}', '{2}', '*?');
    const piece = fc.tuple(atom, quantifier).map(([a, q]) => (/^[\^$]|\\[bB]/.test(a) ? a : a + q));
    const sequence = fc.array(piece, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
    const pattern = fc.oneof(
      sequence,
      fc.tuple(sequence, sequence).map(([x, y]) => `${x}|${y}`),
      fc.tuple(sequence, fc.constantFrom('*', '+', '?', '{0,2}'), sequence).map(([x, q, y]) => `(${x})${q}${y}`),
    );
    const text = fc.array(fc.constantFrom('a', 'b', 'A', '1', ' ', '\n', '_'), { maxLength: 12 }).map((c) => c.join(''));
    fc.assert(
      fc.property(pattern, fc.constantFrom('', 'i', 'm', 's', 'im', 'is'), text, (source, flags, input) => {
        expect(linearRegex(source, flags).test(input), `/${source}/${flags} on ${JSON.stringify(input)}`).toBe(new RegExp(source, flags).test(input));
      }),
      { numRuns: 5000, seed: 19 },
    );
  });

  it(`scales linearly: a glob of many ? and * and a nested regex, on ${GROWTH}× the text`, async () => {
    const globbed = compilePattern(`${'*?a'.repeat(20)}*#`)!;
    const nested = compilePattern('/^(a|aa)+(b+)*$/')!;
    const { ratio } = await growth(
      (size) => 'a'.repeat(size),
      (text) => {
        expect(globbed.test(text)).toBe(false);
        expect(nested.test(`${text}c`)).toBe(false);
      },
      50_000,
    );
    expect(ratio).toBeLessThan(LINEAR);
  });

  it('refuses lookaround, backreferences and over-long patterns with a 400 that says why', async ({ app }) => {
    const bad: [unknown, string][] = [
      [
        { recipient: '/(?=vip)v/' },
        'match.recipient: not supported in a /regular expression/: lookahead and lookbehind need backtracking (patterns run in linear time)',
      ],
      [{ recipient: '/(a)\\1/' }, 'match.recipient: not supported in a /regular expression/: backreferences need backtracking (patterns run in linear time)'],
      [{ recipient: '*'.repeat(257) }, 'match.recipient: at most 256 characters'],
      [{ route: `/v1/${'?'.repeat(300)}` }, 'match.route: at most 256 characters'],
    ];
    for (const [match, message] of bad) {
      const res = await addFault(app.url, { target: 'http', match, action: { type: 'drop' } });
      expect(res.status, message).toBe(400);
      expect(res.body, message).toEqual({ detail: message });
    }
  });

  it('a hostile regex rule answers a send at once', async ({ app, v1 }) => {
    const added = await addFault(app.url, { id: 'nested', target: 'http', match: { recipient: '/^(a+)+$/' }, action: { type: 'status', status: 500 } });
    expect(added.status).toBe(201);
    let status = 0;
    const held = await longestHold(async () => {
      status = (await v1.post('/v1/email/send/', { recipient: `${'a'.repeat(60)}@example.com`, subject: 's', body: 'b' })).status;
    });
    expect(status).toBe(200);
    expect(held).toBeLessThan(1000);
    await fetch(`${app.url}/api/faults/nested`, { method: 'DELETE' });
  });
});
