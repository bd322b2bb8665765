import { describe, expect, it } from 'vitest';
import { ByteCache } from '../../../server/storage/indexes/byte-cache.ts';

describe('the byte-bounded cache (records and parsed messages read lately)', () => {
  it('drops the least recently used once the bytes pass the bound, never keeps one larger than it, and empties on clear', () => {
    const cache = new ByteCache<string>(100);
    cache.set(1, 'a', 40);
    cache.set(2, 'b', 40);
    expect(cache.get(1)).toBe('a'); // 1 is now the most recently used
    cache.set(3, 'c', 40); // 120 > 100: 2 goes, not 1
    expect([cache.peek(1), cache.peek(2), cache.peek(3)]).toEqual(['a', undefined, 'c']);
    // Replacing an entry counts its new size, not both.
    cache.set(3, 'C', 60);
    expect([cache.peek(1), cache.peek(3)]).toEqual(['a', 'C']);
    // A thousand small ones within the bound stay; one past it pushes out the oldest.
    const many = new ByteCache<number>(1000);
    for (let i = 0; i < 1000; i++) many.set(i, i, 1);
    expect(many.peek(0)).toBe(0);
    many.set(1000, 1000, 1);
    expect([many.peek(0), many.peek(1), many.peek(1000)]).toEqual([undefined, 1, 1000]);
    // Larger than the whole bound: not kept, and an older copy of it goes too.
    cache.set(1, 'huge', 101);
    expect(cache.peek(1)).toBeUndefined();
    cache.clear();
    expect(cache.peek(3)).toBeUndefined();
    cache.set(4, 'd', 100);
    expect(cache.peek(4)).toBe('d');
  });
});
