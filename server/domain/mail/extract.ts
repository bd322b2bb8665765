import { collapseSpaces } from './whitespace.ts';
import * as linkify from 'linkifyjs';
import { HtmlParser } from './html-parser.ts';

/**
 * Links and one-time codes found in a captured email, so a test can follow the sign-up link or
 * type the code without parsing HTML itself. The HTML is read with htmlparser2 (as a browser
 * would tokenise it, entities decoded) and URLs written as text are found with linkifyjs; only
 * what a reader sees counts: no markup, attributes, styles, scripts, comments or hidden
 * elements. This is the one extraction: wait, latest, search, extract, the client, the MCP
 * tools and the inbox all get theirs from here.
 */

interface ExtractedLink {
  href: string;
  text: string;
}

export interface Extracted {
  links: ExtractedLink[];
  codes: string[];
}

/** The visible text of an HTML body, with where each `<a href>` sits in it. */
export interface VisibleHtml {
  /** Blocks (paragraphs, cells, list items, `<br>`) on their own lines; inline text joined. */
  text: string;
  anchors: { href: string; text: string; start: number; end: number }[];
  /** False when the "HTML" has no element at all: plain text posted into an HTML field. */
  tagged: boolean;
}

export function extract(html: string | null, text: string | null): Extracted {
  const visible = html === null ? null : readHtml(html);
  const links = new Map<string, ExtractedLink>();
  const add = (link: ExtractedLink) => {
    if (!links.has(link.href)) links.set(link.href, link);
  };
  const codes = new Set<string>();
  if (visible !== null) {
    const found = addressesIn(visible.text);
    for (const link of htmlLinks(visible, found)) add(link);
    for (const code of findCodes(visible.text, found)) codes.add(code);
  }
  if (text !== null) {
    const found = addressesIn(text);
    for (const link of urlsIn(found)) add({ href: link.href, text: link.text });
    for (const code of findCodes(text, found)) codes.add(code);
  }
  return { links: [...links.values()], codes: [...codes] };
}

/** Elements whose content is never shown. */
const NEVER_SHOWN = new Set(['script', 'style', 'head', 'title', 'template', 'noframes', 'object', 'iframe']);
/** Elements that start and end a line of their own. */
const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
]);
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)/i;

/** Reads an HTML body the way a reader sees it (see VisibleHtml). */
export function readHtml(html: string): VisibleHtml {
  // The text is kept as a list of pieces (with its length and last character) rather than one
  // growing string: an anchor's text is then joined from its own pieces, where slicing the
  // whole text at every `</a>` cost the length of everything before it (20,000 anchors were
  // quadratic, issue 19).
  const pieces: string[] = [];
  let length = 0;
  let last = '';
  const append = (piece: string) => {
    if (piece === '') return;
    pieces.push(piece);
    length += piece.length;
    last = piece[piece.length - 1]!;
  };
  let tagged = false;
  /** Per open element: whether it hides its content, and whether it is a `<pre>`. */
  const stack: { hidden: boolean; pre: boolean }[] = [];
  let hiddenDepth = 0;
  let preDepth = 0;
  const anchors: VisibleHtml['anchors'] = [];
  let anchor: { href: string | null; start: number; piece: number; alt: string[] } | null = null;
  let anchorDepth = -1;
  const newline = () => {
    if (length > 0 && last !== '\n') append('\n');
  };
  const parser = new HtmlParser(
    {
      onopentag(name, attributes) {
        tagged = true;
        const hidden = NEVER_SHOWN.has(name) || 'hidden' in attributes || HIDDEN_STYLE.test(attributes.style ?? '');
        stack.push({ hidden, pre: name === 'pre' });
        if (hidden) hiddenDepth++;
        if (name === 'pre') preDepth++;
        if (hiddenDepth > 0) return;
        if (BLOCKS.has(name)) newline();
        if (name === 'br') append('\n');
        if (name === 'img' && anchor && attributes.alt) anchor.alt.push(attributes.alt);
        if (name === 'a' && anchor === null) {
          anchor = { href: attributes.href?.trim() ?? null, start: length, piece: pieces.length, alt: [] };
          anchorDepth = stack.length;
        }
      },
      ontext(data) {
        if (hiddenDepth > 0) return;
        append(preDepth > 0 || !tagged ? data : collapseSpaces(data));
      },
      onclosetag(name) {
        const open = stack.pop();
        if (open?.hidden) hiddenDepth--;
        if (open?.pre) preDepth--;
        if (hiddenDepth > 0 || !open || open.hidden) return;
        if (anchor && name === 'a' && stack.length === anchorDepth - 1) {
          const text = collapse(pieces.slice(anchor.piece).join('')) || collapse(anchor.alt.join(' '));
          if (anchor.href) anchors.push({ href: anchor.href, text, start: anchor.start, end: length });
          anchor = null;
        }
        if (BLOCKS.has(name)) newline();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { text: pieces.join(''), anchors, tagged };
}

/**
 * Every `<a href>` with its text, and every URL written as text, in reading order. An anchor
 * whose text is another URL than its href (a tracking redirect) gives both: the href (where a
 * click goes) and the URL the reader sees.
 */
function htmlLinks(visible: VisibleHtml, addresses: Found[]): ExtractedLink[] {
  const found: { at: number; link: ExtractedLink }[] = [];
  for (const a of visible.anchors) {
    if (isFollowable(a.href)) found.push({ at: a.start, link: { href: a.href, text: a.text } });
  }
  // Anchors never overlap and come in reading order, as do the URLs: one walk over both finds
  // the anchor each URL sits in (a search per URL was quadratic, issue 19).
  const anchors = visible.anchors;
  let next = 0;
  for (const url of urlsIn(addresses)) {
    while (next < anchors.length && anchors[next]!.end < url.end) next++;
    const around = anchors[next];
    const inside = around !== undefined && url.start >= around.start && url.end <= around.end ? around : undefined;
    if (inside && inside.href === url.href) continue;
    found.push({ at: url.start, link: { href: url.href, text: url.text } });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.link);
}

/** Whether a link goes somewhere: not empty, not a fragment, not a script or data URL. */
function isFollowable(href: string): boolean {
  const url = asBrowsersRead(href);
  return url !== '' && !url.startsWith('#') && !isScriptUrl(href);
}

/**
 * Whether a URL runs a script or shows inline data when followed (`javascript:`, `vbscript:`,
 * `data:`), read as a browser reads it (the URL standard): entities already decoded (the HTML
 * parser did), leading control characters and spaces dropped, tabs and line breaks anywhere
 * removed, so `java&#9;script:` and `jav&#x0A;ascript:` are scripts too (issue 19).
 */
export function isScriptUrl(href: string): boolean {
  return /^(?:javascript|vbscript|data):/i.test(asBrowsersRead(href));
}

function asBrowsersRead(href: string): string {
  return href.replace(/[\t\n\r]/g, '').replace(LEADING_CONTROLS, '');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the URL standard strips C0 controls and spaces
const LEADING_CONTROLS = /^[\x00-\x20]+/;

/** A URL or an email address linkifyjs found, at its place in the text. */
type Found = ReturnType<typeof linkify.find>[number];

/** Could this line hold a URL or an address? Lines without one skip linkifyjs (most of a mail). */
const MAYBE_ADDRESS = /[a-z0-9-]\.[a-z]{2,}|:\/\/|www\./i;

/** Every URL and email address written in the text, with positions in the whole text. */
function addressesIn(text: string): Found[] {
  const out: Found[] = [];
  let at = 0;
  for (const line of text.split('\n')) {
    if (MAYBE_ADDRESS.test(line))
      for (const match of linkify.find(withoutHugeWords(line))) out.push({ ...match, start: match.start + at, end: match.end + at });
    at += line.length + 1;
  }
  return out;
}

/** Longer than this, a run of characters without whitespace is not read for URLs. */
const MAX_WORD = 16 * 1024;

/**
 * The line with every run of non-whitespace longer than MAX_WORD blanked (same length, so
 * positions stay): linkifyjs's time grows faster than the length of one token (a 1 MB URL took
 * 5-7× the time of a 256 KB one), and no one follows a 16 KB URL written as text.
 */
function withoutHugeWords(line: string): string {
  if (line.length <= MAX_WORD) return line;
  const parts: string[] = [];
  let from = 0;
  let run = 0;
  for (let i = 0; i <= line.length; i++) {
    if (i < line.length && !/\s/.test(line[i]!)) continue;
    if (i - run > MAX_WORD) {
      parts.push(line.slice(from, run), ' '.repeat(i - run));
      from = i;
    }
    run = i + 1;
  }
  if (from === 0) return line;
  parts.push(line.slice(from));
  return parts.join('');
}

/**
 * URLs written as text: with a scheme, or starting `www.`; a bare domain only with a path
 * ("acme.com/reset?t=1"), since "Acme.Inc" or "report.zip" read as words, not links.
 * Punctuation that ends the sentence is not part of the URL. The text of such a link is the
 * URL as written.
 */
function urlsIn(addresses: Found[]): { href: string; text: string; start: number; end: number }[] {
  const out: { href: string; text: string; start: number; end: number }[] = [];
  for (const match of addresses) {
    if (match.type !== 'url') continue;
    const written = withoutTrailing(match.value, `.,;:!?'"*`);
    const schemed = /^[a-z][a-z0-9+.-]*:/i.test(written);
    if (!schemed && !/^www\./i.test(written) && !/^[^/?#]+[/?#]./.test(written)) continue;
    const href = schemed ? written : `http://${written}`;
    out.push({ href, text: written, start: match.start, end: match.start + written.length });
  }
  return out;
}

/** The text without its trailing characters from `chars` (a loop: `/[.,]+$/` retries from every run, issue 19). */
function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}

const KEYWORD = /\b(?:codes?|otp|pin|passcode|pass code|verification|verify|verifying|one[- ]time|2fa|security|confirmation|token)\b/i;
const CANDIDATE = /(?<![A-Za-z0-9_])(?:\d{3,4}[ -]\d{3,4}|[A-Za-z0-9]{4,8})(?![A-Za-z0-9_])/g;
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
/** "March ", "12 March ", "March 12, ": a year follows. */
const DATE_BEFORE = new RegExp(`\\b${MONTH}\\s*(?:\\d{1,2}(?:st|nd|rd|th)?,?\\s*)?$`, 'i');
/** Words after which a number is an identifier of something else, not a code. */
const IDENTIFIER_BEFORE =
  /\b(?:order|invoice|receipt|ticket|booking|reservation|ref|reference|account|acct|customer|case|tracking|phone|tel|fax|zip|postcode|postal code|room|flight|seat)\s*(?:no\.?|number|nr\.?|id)?\s*[:#]?\s*$/i;

/**
 * One-time codes: 4–8 digits, or 4–8 capital letters and digits with at least one digit
 * ("123456", "A1B2C3"), also as two groups ("123 456", "123-456" → "123456"), in a sentence
 * that has a word like code, OTP, PIN, verification or passcode, or on the line after one
 * (a heading "Your code" above the code in its own block). Not codes: anything inside a URL
 * or an email address, amounts ($12.50, 1,000), years in dates or a copyright line, numbers
 * after # or after a word such as order, invoice or ticket, percentages.
 */
export function findCodes(text: string, addresses: Found[] = addressesIn(text)): string[] {
  const lines = withoutAddresses(text, addresses)
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

/** The text with every URL (tracking links too) and email address blanked out. */
function withoutAddresses(text: string, addresses: Found[]): string {
  let out = '';
  let at = 0;
  for (const match of addresses) {
    out += text.slice(at, match.start) + ' '.repeat(match.end - match.start);
    at = match.end;
  }
  return out + text.slice(at);
}

/**
 * How much of the text around a candidate the tests below read. Lines are collapsed (one space
 * between words), so the longest thing they look for ("reservation number #", "September 12th,")
 * is well inside; reading the whole sentence before each candidate made a sentence of N tokens
 * cost N² (issue 19).
 */
const CONTEXT = 64;

function candidates(sentence: string): string[] {
  const out: string[] = [];
  for (const match of sentence.matchAll(CANDIDATE)) {
    const token = match[0];
    const before = sentence.slice(Math.max(0, match.index - CONTEXT), match.index);
    const after = sentence.slice(match.index + token.length, match.index + token.length + CONTEXT);
    if (/[$€£¥#]\s*$|\d[.,:]$|[./]$/.test(before) || /^(?:[.,:/]\d|\s*%|[.,]?\s*(?:usd|eur|gbp)\b)/i.test(after)) continue;
    if (IDENTIFIER_BEFORE.test(before)) continue;
    const code = /^\d{3,4}[ -]\d{3,4}$/.test(token) ? token.replace(/[ -]/, '') : token;
    if (!/\d/.test(code) || !/^(?:\d+|[A-Z0-9]+)$/.test(code)) continue;
    if (/^(?:19|20)\d\d$/.test(code) && isYear(before, after)) continue;
    out.push(code);
  }
  return out;
}

/** A four-digit 19xx/20xx that reads as a year: in a date, or after ©, "copyright" or "since". */
function isYear(before: string, after: string): boolean {
  return (
    /(?:©|\(c\)|copyright|since|in|of|year)\s*$/i.test(before) ||
    DATE_BEFORE.test(before) ||
    /^[-/]\d/.test(after) ||
    /\d[-/]$/.test(before) ||
    /^,?\s*(?:all rights|inc|ltd)/i.test(after)
  );
}

function collapse(text: string): string {
  return collapseSpaces(text).trim();
}
