import type { ScannedHtml } from './html-scan.ts';

/** A mistake of templating: a whole document inside the account template, a merge tag left unfilled. */
interface TemplateFinding {
  rule: 'nested-document' | 'merge-tag';
  severity: 'error' | 'warning';
  message: string;
  /** What to change. */
  fix: string;
  /** Which part it is in, and the line there (null: the message as a whole). */
  part: 'html' | 'text';
  line: number | null;
}

export interface TemplateReport {
  findings: TemplateFinding[];
}

/** Sources whose HTML went through the sender's account template (docs/api-contract.md §3, step 2). */
const TEMPLATED = new Set(['api', 'flow', 'draft']);
/** At most this many distinct unfilled tags are reported (each with its count). */
const MAX_TAGS = 20;
/** A merge tag is short: `{{ first_name }}`, `*|FNAME|*`, `%recipient.name%`. */
const MAX_TAG = 64;

/**
 * The template findings of an email: two documents in one (the most common template mistake:
 * a full document sent with `use_account_template` on, the default) and merge tags left
 * unfilled in either part. One linear pass over each part; no regular expression runs over the
 * mail itself.
 */
export function templateReport(html: string | null, text: string | null, scan: ScannedHtml | null, source: string): TemplateReport {
  const findings: TemplateFinding[] = [];
  if (scan !== null) {
    const nested = secondOf(scan, 'html') ?? secondOf(scan, 'body');
    if (nested !== null) {
      const templated = TEMPLATED.has(source);
      findings.push({
        rule: 'nested-document',
        severity: 'error',
        part: 'html',
        line: nested,
        message: templated
          ? 'A whole HTML document is inside another: the body sent was a full document (<!doctype>, <html>, <head>, <body>) and the account template wrapped it, so the email has two <html> and two <body>. Clients drop or mangle the inner head (its <style> and meta tags) and may show stray markup.'
          : 'The HTML holds two documents (two <html> or two <body>): clients drop or mangle the inner head (its <style> and meta tags) and may show stray markup.',
        fix: templated
          ? 'Send only the body (what goes inside <body>), or set use_account_template to false in the send.'
          : 'Send one document: keep a single <html>, <head> and <body>.',
      });
    }
  }
  if (html !== null) findings.push(...mergeTags(html, 'html', scan === null ? () => null : scan.lineOf));
  if (text !== null) findings.push(...mergeTags(text, 'text', lineCounter(text)));
  return { findings };
}

function secondOf(scan: ScannedHtml, name: string): number | null {
  let seen = 0;
  for (const e of scan.elements) if (e.name === name && ++seen === 2) return e.line;
  return null;
}

/** Unfilled merge tags of one part: each distinct tag once, with how often and its first line. */
function mergeTags(source: string, part: 'html' | 'text', lineOf: (offset: number) => number | null): TemplateFinding[] {
  const found = new Map<string, { count: number; offset: number }>();
  const note = (tag: string, offset: number) => {
    const entry = found.get(tag);
    if (entry) entry.count++;
    else if (found.size < MAX_TAGS) found.set(tag, { count: 1, offset });
  };
  const n = source.length;
  for (let at = 0; at < n; at++) {
    const c = source.charCodeAt(at);
    if (c === 123 /* { */ && source.charCodeAt(at + 1) === 123) {
      const end = closing(source, at + 2, '}}');
      if (end > 0 && isHandlebarsName(source.slice(at + 2, end))) {
        note(source.slice(at, end + 2), at);
        at = end + 1;
      }
    } else if (c === 42 /* * */ && source.charCodeAt(at + 1) === 124 /* | */) {
      const end = closing(source, at + 2, '|*');
      if (end > 0 && /^[A-Z][A-Z0-9_:]*$/i.test(source.slice(at + 2, end))) {
        note(source.slice(at, end + 2), at);
        at = end + 1;
      }
    } else if (c === 37 /* % */) {
      const end = closing(source, at + 1, '%');
      if (end > 0 && isPercentName(source.slice(at + 1, end))) {
        note(source.slice(at, end + 1), at);
        at = end;
      }
    }
  }
  return [...found].map(([tag, { count, offset }]) => ({
    rule: 'merge-tag' as const,
    severity: 'error' as const,
    part,
    line: lineOf(offset),
    message: `The merge tag ${tag} was left unfilled${count > 1 ? ` (${count} times)` : ''}: readers see it as written. /v1 sends do not fill merge tags; only flows fill {{first_name}}, {{last_name}} and {{email}}.`,
    fix: 'Fill it in your application before sending (or send through a flow, which fills the tags it knows), or remove it.',
  }));
}

/** Where `close` starts within MAX_TAG characters of `from`, on the same line; -1 if not. */
function closing(source: string, from: number, close: string): number {
  const limit = Math.min(source.length, from + MAX_TAG);
  for (let i = from; i < limit; i++) {
    const c = source[i]!;
    if (c === '\n' || c === '<' || c === '>') return -1;
    if (source.startsWith(close, i)) return i;
  }
  return -1;
}

/** `{{ first_name }}`, `{{#if x}}`, `{{ user.name }}`: a name, maybe with a helper sign, nothing else. */
function isHandlebarsName(inner: string): boolean {
  return /^\s*[#/^>&]?\s*[A-Za-z_][\w.-]*(\s+[\w.-]+)*\s*$/.test(inner);
}

/**
 * `%first_name%`, `%recipient.name%`: a name between percent signs. Not CSS or prose percentages
 * (`100%`, `50% off`: a digit or a space follows the first sign) nor URL escapes (`%E2%80%99`:
 * two hex digits).
 */
function isPercentName(inner: string): boolean {
  if (/^[0-9A-F]{2}$/i.test(inner)) return false;
  return /^[A-Za-z_][\w.-]*$/.test(inner) && /[a-z_]/i.test(inner) && inner.length >= 2;
}

function lineCounter(text: string): (offset: number) => number {
  return (offset) => {
    let line = 1;
    for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) line++;
    return line;
  };
}
