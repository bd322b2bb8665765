/**
 * The real head of an HTML document, found in one linear pass: the server's preview
 * (html-preview.ts) puts its `<base target>` there. Nothing that keeps content out depends on it:
 * the preview's policy is a response header.
 */
/** Where the document's head content goes (see headPosition). */
export interface HeadPosition {
  /** Just after the real `<head ...>` tag, else after `<html ...>` or the doctype, else 0. */
  at: number;
  /** A real `<head>` start tag was found (not one in a comment, an attribute or later text). */
  head: boolean;
  /** A real `<html>` start tag comes before any content. */
  html: boolean;
}

const SPACE = new Set([' ', '\t', '\n', '\f', '\r']);

/**
 * Finds the real document head the way an HTML parser does before the body begins: whitespace,
 * comments, the doctype, `<?...>` and ignored end tags are skipped; `<html ...>` is read (quoted
 * attribute values may hold `>`); a `<head ...>` start tag is the head; anything else (text,
 * another tag, a tag cut off by the end) means the head is implied before it. A `<head` inside a
 * comment, an attribute or after the content starts is never taken (issue 19). One pass over
 * the start of the document only.
 */
export function headPosition(source: string): HeadPosition {
  let i = 0;
  let at = 0;
  let html = false;
  const n = source.length;
  while (i < n) {
    while (i < n && SPACE.has(source[i]!)) i++;
    if (i >= n || source[i] !== '<') break;
    const next = source[i + 1] ?? '';
    if (source.startsWith('<!--', i)) {
      // `<!-->` and `<!--->` are whole (empty) comments.
      if (source.startsWith('>', i + 4) || source.startsWith('->', i + 4)) {
        i = source.indexOf('>', i + 4) + 1;
        continue;
      }
      const end = source.indexOf('-->', i + 4);
      if (end < 0) break;
      i = end + 3;
    } else if (next === '!' || next === '?') {
      const end = source.indexOf('>', i + 2);
      if (end < 0) break;
      const doctype = /^<!doctype/i.test(source.slice(i, i + 9));
      i = end + 1;
      if (doctype) at = i;
    } else if (next === '/') {
      if (source[i + 2] === '>') {
        i += 3;
        continue;
      }
      if (!/[A-Za-z]/.test(source[i + 2] ?? '')) {
        const end = source.indexOf('>', i + 2);
        if (end < 0) break;
        i = end + 1;
        continue;
      }
      const name = tagName(source, i + 2);
      // These end tags imply the head; the parser ignores the others here.
      if (name === 'head' || name === 'body' || name === 'html' || name === 'br') break;
      const end = tagEnd(source, i + 2 + name.length);
      if (end < 0) break;
      i = end;
    } else if (/[A-Za-z]/.test(next)) {
      const name = tagName(source, i + 1);
      const end = tagEnd(source, i + 1 + name.length);
      if (end < 0 || (name !== 'html' && name !== 'head')) break;
      if (name === 'head') return { at: end, head: true, html };
      html = true;
      at = end;
      i = end;
    } else break;
  }
  return { at, head: false, html };
}

/** The tag name starting at `from`, lower case. */
function tagName(source: string, from: number): string {
  let end = from;
  while (end < source.length && !SPACE.has(source[end]!) && source[end] !== '/' && source[end] !== '>') end++;
  return source.slice(from, end).toLowerCase();
}

/** The index just after the `>` ending the tag whose attributes start at `from`, or -1 at the end. */
function tagEnd(source: string, from: number): number {
  let i = from;
  while (i < source.length) {
    const c = source[i]!;
    if (c === '>') return i + 1;
    if (c === '=') {
      i++;
      while (i < source.length && SPACE.has(source[i]!)) i++;
      const quote = source[i];
      if (quote === '"' || quote === "'") {
        const close = source.indexOf(quote, i + 1);
        if (close < 0) return -1;
        i = close + 1;
      }
      continue;
    }
    i++;
  }
  return -1;
}
