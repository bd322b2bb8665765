/**
 * Links and one-time codes found in a captured email, so a test can follow the sign-up link or
 * type the code without parsing HTML itself. Plain string scanning, no HTML library: emails are
 * small and the rules below are what tests need.
 */

export interface ExtractedLink {
  href: string;
  text: string;
}

export interface Extracted {
  links: ExtractedLink[];
  codes: string[];
}

const KEYWORD = /\b(?:codes?|otp|pin|passcode|pass code|verification|verify|verifying|one[- ]time|2fa|security|confirmation|token)\b/i;
const CANDIDATE = /(?<![A-Za-z0-9_])(?:\d{3,4}[ -]\d{3,4}|[A-Za-z0-9]{4,8})(?![A-Za-z0-9_])/g;
const MONTHS = /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s*$/i;

export function extract(html: string | null, text: string | null): Extracted {
  const links = [...(html === null ? [] : htmlLinks(html)), ...(text === null ? [] : textLinks(text))];
  const seen = new Set<string>();
  const unique = links.filter((link) => {
    const key = `${link.href}\u0000${link.text}`;
    if (seen.has(key) || (link.text === link.href && [...seen].some((k) => k.startsWith(`${link.href}\u0000`)))) return false;
    seen.add(key);
    return true;
  });
  const codes = new Set<string>();
  for (const body of [html === null ? null : visibleText(html), text]) {
    if (body !== null) for (const code of findCodes(body)) codes.add(code);
  }
  return { links: unique, codes: [...codes] };
}

/** Every `<a href>` with its visible text, in document order. */
function htmlLinks(html: string): ExtractedLink[] {
  const out: ExtractedLink[] = [];
  const anchor = /<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi;
  for (const match of withoutHidden(html).matchAll(anchor)) {
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(match[1]!);
    const value = href ? decodeEntities((href[1] ?? href[2] ?? href[3] ?? '').trim()) : '';
    if (value === '' || value.startsWith('#')) continue;
    out.push({ href: value, text: collapse(decodeEntities(match[2]!.replace(/<[^>]*>/g, ' '))) });
  }
  return out;
}

/** Bare http(s) URLs in the plain-text part; the text of such a link is the URL itself. */
function textLinks(text: string): ExtractedLink[] {
  return [...text.matchAll(/\bhttps?:\/\/[^\s<>"'()]+[^\s<>"'().,;:!?]/g)].map((m) => ({ href: m[0], text: m[0] }));
}

/** The text a reader sees: no scripts, styles or comments; blocks become lines. */
export function visibleText(html: string): string {
  const blocks = withoutHidden(html)
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/?(?:p|div|tr|td|th|li|ul|ol|table|h[1-6]|section|header|footer|blockquote|pre|center)\b[^>]*>/gi, '\n')
    // Inline tags join their text as the reader sees it: <span>48</span><span>2913</span> is 482913.
    .replace(/<[^>]*>/g, '');
  return decodeEntities(blocks);
}

function withoutHidden(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<(script|style|head|title)\b[\s\S]*?<\/\1\s*>/gi, ' ');
}

/**
 * One-time codes: 4–8 digits, or 4–8 capital letters and digits with at least one digit
 * ("123456", "A1B2C3"), also as two groups ("123 456", "123-456" → "123456"), in a sentence
 * that has a word like code, OTP, PIN, verification or passcode, or on the line after one
 * (a heading "Your code" above the code in its own block). Not codes: anything inside a URL
 * or an email address, amounts ($12.50, 1,000), years in dates or a copyright line, numbers
 * after # (order numbers), percentages.
 */
export function findCodes(text: string): string[] {
  const lines = text
    .replace(/\bhttps?:\/\/\S+|\bwww\.\S+|\S+@\S+\.\S+/gi, ' ')
    .split(/\n/)
    .map(collapse)
    .filter((line) => line !== '');
  const found: string[] = [];
  lines.forEach((line, index) => {
    const sentences = line.split(/(?<=[.!?])\s+(?=[A-Z0-9])/);
    let keywordWithoutCode = false;
    for (const sentence of sentences) {
      if (!KEYWORD.test(sentence)) continue;
      const codes = candidates(sentence);
      found.push(...codes);
      if (codes.length === 0) keywordWithoutCode = true;
    }
    // "Your verification code:" on one line, the code alone on the next.
    const next = lines[index + 1];
    if (keywordWithoutCode && next !== undefined && next.length <= 24) found.push(...candidates(next));
  });
  return [...new Set(found)];
}

function candidates(sentence: string): string[] {
  const out: string[] = [];
  for (const match of sentence.matchAll(CANDIDATE)) {
    const token = match[0];
    const before = sentence.slice(0, match.index);
    const after = sentence.slice(match.index + token.length);
    if (/[$€£¥#]\s*$|\d[.,:]$|[./]$/.test(before) || /^(?:[.,:/]\d|\s*%|[.,]?\s*(?:usd|eur|gbp)\b)/i.test(after)) continue;
    const code = /^\d{3,4}[ -]\d{3,4}$/.test(token) ? token.replace(/[ -]/, '') : token;
    if (!/\d/.test(code) || !/^(?:\d+|[A-Z0-9]+)$/.test(code)) continue;
    if (/^(?:19|20)\d\d$/.test(code) && isYear(before, after)) continue;
    out.push(code);
  }
  return out;
}

/** A four-digit 19xx/20xx that reads as a year: in a date, or after ©, "copyright" or "since". */
function isYear(before: string, after: string): boolean {
  return /(?:©|\(c\)|copyright|since|in|of|year)\s*$/i.test(before) || MONTHS.test(before) || /^[-/]\d/.test(after) || /\d[-/]$/.test(before) || /^,?\s*(?:all rights|inc|ltd)/i.test(after);
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', middot: '·', copy: '©', reg: '®', hellip: '…', mdash: '—', ndash: '–' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
