import { describe, expect, it } from 'vitest';
import { SearchTexts } from '../../../server/storage/indexes/search-texts.ts';
import { growth, LINEAR } from '../../support/scale.ts';

/** A small deterministic generator (tests must not depend on chance). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ALPHABET = ['a', 'b', 'c', 'é', '中', '😀', '@', '.', ' '];

function word(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return out;
}

/** A text shaped as message-index.ts's searchText: addresses, then fields. */
function text(random: () => number): string {
  const addresses = Array.from({ length: 1 + Math.floor(random() * 3) }, () => word(random, 3 + Math.floor(random() * 6)));
  const fields = Array.from({ length: 4 }, () => word(random, Math.floor(random() * 40)));
  return `\u0001${addresses.join('\u0001')}\u0001\u0002${fields.join('\u0002')}`;
}

/** What a test of the string itself says (the semantics the chunks must keep). */
function expected(value: string, words: string[], subject?: string): boolean {
  if (!words.every((w) => value.includes(w))) return false;
  if (subject === undefined || subject === '') return true;
  const start = value.indexOf('\u0002') + 1;
  const end = value.indexOf('\u0002', start);
  return value.slice(start, end < 0 ? value.length : end).includes(subject);
}

const bytes = (value: string) => Buffer.from(value, 'utf8');

describe('search texts in shared chunks', () => {
  it('restores a run of texts with one copy per chunk (addAll) as adding them one by one would', () => {
    const random = generator(7);
    // Past a chunk's mebibyte, and one text larger than a chunk, so the run is split.
    const values = [...Array.from({ length: 30_000 }, () => text(random)), 'x'.repeat(1_100_000), ...Array.from({ length: 100 }, () => text(random))];
    const encoded = values.map(bytes);
    const source = Buffer.concat([Buffer.from('head'), ...encoded]);
    const lengths = Uint32Array.from(encoded, (b) => b.length);
    const one = new SearchTexts();
    one.add('before');
    const all = new SearchTexts();
    all.add('before');
    const places = new Float64Array(values.length + 2);
    all.addAll(source, 4, lengths, values.length, places, 2);
    values.forEach((value, i) => {
      expect(one.add(value)).toBe(places[i + 2]);
      expect(all.bytes(places[i + 2]!).toString('utf8')).toBe(value);
    });
    // The matcher reads the restored chunks as it reads added ones.
    const needle = values.at(-1)!.slice(1, 4);
    const match = all.matcher([bytes(needle)]);
    expect(values.filter((_, i) => match(places[i + 2]!)).length).toBe(values.filter((v) => v.includes(needle)).length);
  });

  it('answers as a substring test of each text would, read a chunk at a time or one entry at a time, across chunks, removals and a rewrite', () => {
    const random = generator(7);
    const texts = new SearchTexts();
    const values: string[] = [];
    const places = new Float64Array(30_000);
    // Enough to fill several 1 MiB chunks, with one text larger than a chunk among them.
    for (let i = 0; i < 30_000; i++) {
      const value = i === 12_345 ? `\u0001big\u0001\u0002${'ab'.repeat(700_000)}\u0002x` : text(random);
      values.push(value);
      places[i] = texts.add(value);
    }
    const live = values.map(() => true);
    for (let i = 0; i < 30_000; i += 3) {
      texts.remove(places[i]!);
      live[i] = false;
    }
    const check = (label: string) => {
      for (let q = 0; q < 40; q++) {
        // Whole characters (code points): a query is well-formed text (see SearchTexts on lone surrogates).
        const source = Array.from(values[Math.floor(random() * values.length)]!);
        const at = Math.floor(random() * source.length);
        const piece = source.slice(at, at + 1 + Math.floor(random() * 4)).join('');
        const words = q % 4 === 0 ? [word(random, 2)] : [piece.replaceAll('\u0001', '').replaceAll('\u0002', '')];
        if (q % 3 === 0) words.push(word(random, 1));
        const subject = q % 5 === 0 ? word(random, 1) : undefined;
        const all = texts.matcher(words.map(bytes), subject === undefined ? undefined : bytes(subject));
        const few = texts.matcher(words.map(bytes), subject === undefined ? undefined : bytes(subject));
        const wrong: number[] = [];
        let asked = 0;
        let matched = 0;
        for (let i = values.length - 1; i >= 0; i--) {
          if (!live[i]) continue;
          const want = expected(values[i]!, words.filter(Boolean), subject);
          asked++;
          if (want) matched++;
          if (all(places[i]!) !== want) wrong.push(i);
          // Every 997th only: this matcher answers one entry at a time.
          if (i % 997 === 0 && few(places[i]!) !== want) wrong.push(i);
        }
        expect(wrong, `${label}: ${JSON.stringify(words)} ${subject}`).toEqual([]);
        expect(asked).toBe(live.filter(Boolean).length);
        if (q === 0) expect(matched).toBeGreaterThan(0);
      }
    };
    check('before the rewrite');
    expect(texts.wasteful).toBe(false);
    for (let i = 1; i < 30_000; i += 3) {
      texts.remove(places[i]!);
      live[i] = false;
    }
    expect(texts.wasteful).toBe(true);
    texts.rewrite(places, values.length, (i) => live[i]!);
    expect(texts.wasteful).toBe(false);
    check('after the rewrite');
    for (let i = 0; i < values.length; i++) if (live[i]) expect(texts.bytes(places[i]!).toString('utf8')).toBe(values[i]);
  });

  it('tests a prefix, and keeps answering for texts added after a matcher read their chunk', () => {
    const texts = new SearchTexts();
    const first = Array.from({ length: 100 }, (_, i) => texts.add(`\u0001user${i}@example.com\u0001\u0002subject ${i}\u0002`));
    expect(texts.startsWith(first[7]!, bytes('\u0001user7@example.com\u0001'))).toBe(true);
    expect(texts.startsWith(first[7]!, bytes('\u0001user70@example.com\u0001'))).toBe(false);
    const match = texts.matcher([bytes('user4')]);
    expect(first.filter((place) => match(place)).length).toBe(11);
    const later = texts.add('\u0001user4000@example.com\u0001\u0002late\u0002');
    expect(match(later)).toBe(true);
    expect(match(texts.add('\u0001other@example.com\u0001\u0002user4 in the subject\u0002'))).toBe(true);
    expect(match(texts.add('\u0001other@example.com\u0001\u0002none\u0002'))).toBe(false);
  });

  it('drops a chunk once nothing in it is live: its texts are never found again', () => {
    const texts = new SearchTexts();
    const places = Array.from({ length: 20_000 }, (_, i) => texts.add(`\u0001u${i}@example.com\u0001\u0002${'x'.repeat(100)}\u0002`));
    const match = texts.matcher([bytes('xxxx')]);
    expect(places.every((place) => match(place))).toBe(true);
    for (const place of places.slice(0, 15_000)) texts.remove(place);
    const dropped = places.filter((place) => {
      try {
        texts.bytes(place);
        return false;
      } catch {
        return true;
      }
    });
    // About 125 bytes a text, 8,000-odd to a 1 MiB chunk: the first chunk went, the second is still partly live.
    expect(dropped[0]).toBe(places[0]);
    expect(dropped.length).toBeGreaterThan(8000);
    expect(dropped.length).toBeLessThan(15_000);
    const again = texts.matcher([bytes('xxxx')]);
    expect(dropped.some((place) => again(place))).toBe(false);
    expect(places.slice(15_000).every((place) => again(place))).toBe(true);
  });

  // Hostile input: the native search reads each chunk once, whatever the text and the query.
  it.each([
    ['a run of one letter, a needle that almost matches', (n: number) => 'a'.repeat(n), (n: number) => `${'a'.repeat(n / 200)}b`],
    ['a periodic text, a periodic needle that fails at its end', (n: number) => 'ab'.repeat(n / 2), (n: number) => `${'ab'.repeat(n / 400)}c`],
    ['short entries that each hold the needle', (n: number) => 'aab'.repeat(n / 3), () => 'aab'],
  ])('costs linear time: %s', async (_label, body, needle) => {
    const make = (n: number) => {
      const texts = new SearchTexts();
      const places: number[] = [];
      // Entries of 2,000 bytes, the way a chunk holds many captures.
      for (let at = 0; at < n; at += 2000) places.push(texts.add(`\u0001a\u0001\u0002${body(2000)}`));
      return { texts, places, needle: bytes(needle(n)) };
    };
    const { ratio } = await growth(
      make,
      ({ texts, places, needle }) => {
        const match = texts.matcher([needle], needle);
        let found = 0;
        for (const place of places) if (match(place)) found++;
        return found;
      },
      200_000,
    );
    expect(ratio).toBeLessThan(LINEAR);
  });
});
