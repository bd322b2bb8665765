import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { JSON_MAX_DEPTH, JSON_MAX_MEMBERS, jsonShapeProblem } from '../../server/http/json-shape.ts';
import { test as it } from '../support/fixtures.ts';
import { growth, LINEAR } from '../support/scale.ts';
import { announceSeed, fuzzParameters, timed } from './fuzz.ts';

/**
 * The pre-scan of JSON bodies (server/http/json-shape.ts) must agree with what JSON.parse
 * builds (depth, keys and array items) on any valid JSON, strings full of brackets, quotes and
 * backslashes included, and cost time linear in the body whatever it holds.
 */
announceSeed('test/fuzz/json-shape.test.ts');

/** Depth (a scalar is 0) and keys plus array items of a parsed value: the reference. */
function shape(value: unknown): { depth: number; members: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 };
  const children = Array.isArray(value) ? value : Object.values(value);
  let depth = 0;
  let members = children.length;
  for (const child of children) {
    const inner = shape(child);
    depth = Math.max(depth, inner.depth);
    members += inner.members;
  }
  return { depth: depth + 1, members };
}

const tricky = fc.constantFrom('[', ']', '{', '}', '"', '\\', ':', ',', 'a', ' ', '\\"', '\\\\');
const text = fc.array(tricky, { maxLength: 12 }).map((parts) => parts.join(''));
/** Values nested up to ~70 deep: either side of the limit. */
const nested = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(text, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const deep = fc.tuple(fc.integer({ min: 60, max: 70 }), nested).map(([levels, inner]) => {
  let value: unknown = inner;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { k: value };
  return value;
});

describe('JSON pre-scan', () => {
  it('agrees with JSON.parse on depth and width, whatever the strings hold', () => {
    fc.assert(
      fc.property(fc.oneof(nested, deep), (value) => {
        const body = Buffer.from(JSON.stringify(value) ?? 'null');
        const { depth, members } = shape(JSON.parse(body.toString('utf8')));
        const expected =
          depth > JSON_MAX_DEPTH
            ? `nested deeper than ${JSON_MAX_DEPTH} levels`
            : members > JSON_MAX_MEMBERS
              ? `more than ${JSON_MAX_MEMBERS} keys and array items`
              : null;
        expect(timed('jsonShapeProblem', () => jsonShapeProblem(body))).toBe(expected);
      }),
      fuzzParameters(400),
    );
  });

  it('counts keys and array items to the limit exactly', () => {
    const items = (n: number) => Buffer.from(`{"a": [${Array(n).fill(0).join(',')}]}`);
    // The key "a" and its items.
    expect(jsonShapeProblem(items(JSON_MAX_MEMBERS - 1))).toBeNull();
    expect(jsonShapeProblem(items(JSON_MAX_MEMBERS))).toBe(`more than ${JSON_MAX_MEMBERS} keys and array items`);
  });

  const shapes: [string, (size: number) => Buffer, number][] = [
    ['a string of escaped quotes', (n) => Buffer.from(`{"a": "${'\\"'.repeat(n)}"}`), 10_000],
    ['brackets just under the depth', (n) => Buffer.from(`[${`${'['.repeat(60)}${']'.repeat(60)},`.repeat(n)}0]`), 200],
    // Each quote has backslashes before it to count, and none closes the string.
    ['an unterminated string of escaped backslashes and quotes', (n) => Buffer.from(`{"a": "${'\\\\\\"'.repeat(n)}`), 10_000],
  ];
  for (const [name, make, size] of shapes) {
    it(`costs time linear in the body: ${name}`, async () => {
      const { ratio } = await growth(make, jsonShapeProblem, size, 3);
      expect(ratio).toBeLessThan(LINEAR);
    }, 60_000);
  }
});
