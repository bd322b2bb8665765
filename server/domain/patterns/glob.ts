/**
 * Globs matched without regular expressions, in time linear in the text for a pattern of
 * bounded length: no backtracking, whatever the pattern (issue 19: a glob of 18 `*` compiled to
 * a RegExp froze the process).
 */

/** Something that says whether a text matches (a RegExp is one too). */
export interface Matcher {
  test(text: string): boolean;
}

export interface GlobOptions {
  ignoreCase: boolean;
  /** `?` is any one character (fault rules); otherwise it is itself (request-log paths). */
  questionMark: boolean;
}

/**
 * A glob where `*` is any run of characters (none too) and, with `questionMark`, `?` is any one
 * character; every other character is itself. The pattern is cut at its `*`s into segments:
 * the first must start the text, the last end it, and the ones between are found left to right,
 * each at its leftmost place after the one before (the leftmost place leaves the most room for
 * the rest, so this never needs to try another). Each character of the text is looked at a
 * bounded number of times per segment.
 */
export function globMatcher(pattern: string, options: GlobOptions): Matcher {
  const fold = options.ignoreCase ? foldCase : (text: string) => text;
  const segments = fold(pattern).split('*');
  const wild = options.questionMark;
  if (segments.length === 1) {
    const only = segments[0]!;
    return { test: (raw) => raw.length === only.length && segmentAt(fold(raw), 0, only, wild) };
  }
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const middle = segments.slice(1, -1).filter((s) => s !== '');
  return {
    test(raw) {
      const text = fold(raw);
      const end = text.length - last.length;
      if (end < first.length || !segmentAt(text, 0, first, wild) || !segmentAt(text, end, last, wild)) return false;
      let at = first.length;
      for (const segment of middle) {
        const found = find(text, segment, at, end, wild);
        if (found < 0) return false;
        at = found + segment.length;
      }
      return true;
    },
  };
}

/** The segment matches the text at `at`. */
function segmentAt(text: string, at: number, segment: string, wild: boolean): boolean {
  if (!wild || !segment.includes('?')) return text.startsWith(segment, at);
  for (let i = 0; i < segment.length; i++) {
    const c = segment.charCodeAt(i);
    if (c !== QUESTION && c !== text.charCodeAt(at + i)) return false;
  }
  return true;
}

const QUESTION = 0x3f;

/** The leftmost place at or after `from` where the segment matches and ends by `end`, or -1. */
function find(text: string, segment: string, from: number, end: number, wild: boolean): number {
  if (!wild || !segment.includes('?')) {
    const found = text.indexOf(segment, from);
    return found >= 0 && found + segment.length <= end ? found : -1;
  }
  // With `?` in it, the segment's longest run without `?` is looked up with indexOf, and the
  // rest compared where it lands (at most the segment's length per place tried).
  const runs = segment.split('?');
  let key = '';
  let offset = 0;
  for (let i = 0, position = 0; i < runs.length; position += runs[i]!.length + 1, i++) {
    if (runs[i]!.length > key.length) {
      key = runs[i]!;
      offset = position;
    }
  }
  for (let at = from; at + segment.length <= end; at++) {
    if (key !== '') {
      const next = text.indexOf(key, at + offset);
      if (next < 0) return -1;
      at = next - offset;
      if (at + segment.length > end) return -1;
    }
    if (segmentAt(text, at, segment, true)) return at;
  }
  return -1;
}

/** Lower case, one UTF-16 unit for one (so `?` still counts characters as written). */
function foldCase(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, from NUL
  if (!/[^\x00-\x7f]/.test(text)) return text.toLowerCase();
  let out = '';
  for (const c of text.split('')) {
    const lower = c.toLowerCase();
    out += lower.length === 1 ? lower : c;
  }
  return out;
}
