import Sqids from 'sqids';
import { describe, expect, it } from 'vitest';
import { decodeId, encodeId } from '../../server/domain/ids.ts';

/** Sqids itself, set up as ids.ts sets it up: what every id must be, byte for byte. */
const reference = new Sqids({ minLength: 3 });
/** The same without a blocklist: where the two differ, the blocklist re-encoded the id. */
const unblocked = new Sqids({ minLength: 3, blocklist: new Set() });

describe('email ids and recipient sqids', () => {
  it('encode every number as Sqids does: the first 100,000, every power of two and a spread of large ones', () => {
    const numbers = [...Array.from({ length: 100_000 }, (_, n) => n), ...Array.from({ length: 53 }, (_, k) => 2 ** k), Number.MAX_SAFE_INTEGER];
    // A deterministic spread up to 2^53 (multiplicative steps), where ids run to 9 or 10 characters.
    for (let n = 100_001, step = 1.0001; n < Number.MAX_SAFE_INTEGER; n = Math.floor(n * step) + 7, step += 0.00001) numbers.push(n);
    let blocked = 0;
    for (const n of numbers) {
      const id = reference.encode([n]);
      if (encodeId(n) !== id) expect.fail(`encodeId(${n}) is ${encodeId(n)}, Sqids gives ${id}`);
      // Ids the blocklist changed (re-encoded with the next offset) are among them.
      if (id !== unblocked.encode([n])) blocked++;
    }
    expect(blocked).toBeGreaterThan(0);
    for (const n of numbers.filter((_, i) => i % 97 === 0)) expect(decodeId(encodeId(n))).toBe(n);
  });

  it('refuses what Sqids refuses', () => {
    expect(() => encodeId(-1)).toThrow();
    expect(() => encodeId(2 ** 60)).toThrow();
  });
});
