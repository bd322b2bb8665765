import { collapseSpaces } from '../mail/whitespace.ts';
import { createRequire } from 'node:module';
import type { HtmlValidate } from 'html-validate';
import { parseDeclarations } from './css-scan.ts';
import type { ScannedElement, ScannedHtml } from './html-scan.ts';

interface AccessibilityIssue {
  /** Our rule name (`img-alt`, `html-lang`, ...) or html-validate's rule id. */
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  /** Line in the HTML, or null for the message as a whole. */
  line: number | null;
  source: 'pigeonhole' | 'html-validate';
  url?: string;
}

export interface AccessibilityReport {
  issues: AccessibilityIssue[];
}

/** Link texts that say nothing out of context (WCAG 2.4.4). */
const VAGUE = new Set([
  'click here',
  'here',
  'click',
  'read more',
  'more',
  'learn more',
  'link',
  'this link',
  'this',
  'go',
  'details',
  'more info',
  'click this link',
  'tap here',
  'continue',
  'see more',
]);
/** html-validate rules our own email rules already cover (their message would say the same twice). */
const COVERED = new Set(['wcag/h37', 'heading-level']);
/** Inline text smaller than this (CSS px) is reported. */
const MIN_FONT_PX = 14;
/**
 * Past this, html-validate (about 1 ms per KB here, more on hostile markup) is not run: it would
 * hold the server for a second or more (issue 19). Gmail clips at 102 KB; real mail is smaller.
 */
const MAX_VALIDATED_BYTES = 256 * 1024;
/** Nested deeper than this, html-validate is not run either: it walks its tree recursively. */
const MAX_VALIDATED_DEPTH = 256;
/** Nor past this many elements: its a11y rules cost about 0.1 ms per element. */
const MAX_VALIDATED_ELEMENTS = 5000;

let validator: HtmlValidate | null = null;

/**
 * html-validate's accessibility preset (10.9, the last to run on Node 20) plus the rules that
 * matter for email: images without alt, no lang, layout tables without role="presentation",
 * links that say nothing, headings out of order, no plain-text part, small inline text.
 */
export function accessibilityReport(html: string | null, text: string | null, scan: ScannedHtml | null): AccessibilityReport {
  const issues: AccessibilityIssue[] = [];
  if (text === null || text.trim() === '') {
    issues.push({
      rule: 'text-alternative',
      severity: 'warning',
      line: null,
      source: 'pigeonhole',
      message: 'The message has no plain-text part: screen readers and text-only clients fall back to it, and spam filters expect one.',
    });
  }
  if (html === null || scan === null) return { issues };
  issues.push(...emailRules(scan));
  const skipped =
    html.length > MAX_VALIDATED_BYTES
      ? `The HTML is over ${MAX_VALIDATED_BYTES / 1024} KB: html-validate's accessibility rules were not run (Gmail clips at 102 KB anyway).`
      : scan.elements.length > MAX_VALIDATED_ELEMENTS
        ? `The HTML has over ${MAX_VALIDATED_ELEMENTS.toLocaleString('en')} elements: html-validate's accessibility rules were not run.`
        : deepest(scan) > MAX_VALIDATED_DEPTH
          ? `The HTML nests elements over ${MAX_VALIDATED_DEPTH} deep: html-validate's accessibility rules were not run.`
          : null;
  if (skipped !== null) {
    issues.push({ rule: 'not-validated', severity: 'warning', line: null, source: 'pigeonhole', message: skipped });
    return { issues: byLine(issues) };
  }
  // Loaded with the first check, not with the server: it is a sixth of start-up and 14 MB (its
  // CommonJS build, so the check stays synchronous).
  if (validator === null) {
    const { HtmlValidate } = createRequire(import.meta.url)('html-validate') as typeof import('html-validate');
    validator = new HtmlValidate({ extends: ['html-validate:a11y'] });
  }
  // Runs of spaces and tabs collapsed (lines stay where they are): html-validate's lexer takes
  // time quadratic in such a run (64 KB of spaces in a paragraph took 3.5 s, issue 19).
  const result = validator.validateStringSync(html.replace(/[ \t\f\r]{2,}/g, ' '));
  for (const m of result.results[0]?.messages ?? []) {
    if (COVERED.has(m.ruleId)) continue;
    issues.push({
      rule: m.ruleId,
      severity: m.severity === 2 ? 'error' : 'warning',
      message: m.message,
      line: m.line,
      source: 'html-validate',
      ...(m.ruleUrl ? { url: m.ruleUrl } : {}),
    });
  }
  return { issues: byLine(issues) };
}

/** Issues of the message as a whole first, then by line (a stable sort keeps each line's order). */
function byLine(issues: AccessibilityIssue[]): AccessibilityIssue[] {
  return issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function emailRules(scan: ScannedHtml): AccessibilityIssue[] {
  const issues: AccessibilityIssue[] = [];
  const push = (rule: string, severity: 'error' | 'warning', line: number | null, message: string) =>
    issues.push({ rule, severity, line, message, source: 'pigeonhole' });
  const { elements } = scan;
  const root = elements.find((e) => e.name === 'html');
  if (!root)
    push(
      'html-lang',
      'warning',
      1,
      'There is no <html lang="..."> element: screen readers cannot tell the language and may read the email with the wrong voice.',
    );
  else if (!root.attribs.lang?.trim()) push('html-lang', 'warning', root.line, '<html> has no lang attribute: screen readers cannot tell the language.');

  const dataTables = new Set<number>();
  elements.forEach((e) => {
    if (e.name !== 'th' && !(e.name === 'caption')) return;
    const table = ancestor(elements, e, 'table');
    if (table >= 0) dataTables.add(table);
  });
  let lastHeading = 0;
  elements.forEach((e, index) => {
    if (e.name === 'img' && e.attribs.alt === undefined) {
      push(
        'img-alt',
        'error',
        e.line,
        `<img src="${shorten(e.attribs.src ?? '')}"> has no alt attribute: screen readers read the file name. Use alt="" for a decorative image.`,
      );
    }
    if (e.name === 'table' && !dataTables.has(index)) {
      const role = (e.attribs.role ?? '').toLowerCase();
      if (role !== 'presentation' && role !== 'none')
        push('layout-table', 'warning', e.line, 'A layout table (no <th>) without role="presentation": screen readers announce its rows and columns.');
    }
    const heading = /^h([1-6])$/.exec(e.name);
    if (heading) {
      const level = Number(heading[1]);
      if (lastHeading > 0 && level > lastHeading + 1)
        push('heading-order', 'warning', e.line, `<h${level}> follows <h${lastHeading}>: a heading level is skipped.`);
      else if (lastHeading === 0 && level > 2) push('heading-order', 'warning', e.line, `The first heading is <h${level}>: start with <h1> or <h2>.`);
      lastHeading = level;
    }
    if (e.attribs.style && /font(-size)?\s*:/i.test(e.attribs.style)) {
      for (const d of parseDeclarations(e.attribs.style)) {
        if (d.property !== 'font-size') continue;
        const px = cssPixels(d.value);
        if (px !== null && px > 0 && px < MIN_FONT_PX)
          push(
            'small-text',
            'warning',
            e.line,
            `Text at font-size ${d.value} (${Math.round(px * 10) / 10}px) is below ${MIN_FONT_PX}px: hard to read on a phone.`,
          );
      }
    }
  });
  for (const link of scan.links) {
    if (/^(mailto|tel):/i.test(link.href)) continue;
    const words = collapseSpaces(link.text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ')).trim();
    if (link.text === '')
      push('link-text', 'error', link.line, `A link to ${shorten(link.href)} has no text (and no image with alt text): screen readers read the URL.`);
    else if (VAGUE.has(words)) push('link-text', 'warning', link.line, `Link text "${link.text}" says nothing out of context: name where it goes.`);
    else if (/^(https?:\/\/|www\.)\S+$/i.test(link.text))
      push('link-text', 'warning', link.line, `The link text is a bare URL (${shorten(link.text)}): screen readers spell it out. Name where it goes.`);
  }
  return issues;
}

/** The deepest nesting of the scanned elements (parents come before their children). */
function deepest(scan: ScannedHtml): number {
  const depths = new Int32Array(scan.elements.length);
  let max = 0;
  scan.elements.forEach((e, i) => {
    depths[i] = e.parent < 0 ? 1 : depths[e.parent]! + 1;
    if (depths[i]! > max) max = depths[i]!;
  });
  return max;
}

function ancestor(elements: ScannedElement[], element: ScannedElement, name: string): number {
  for (let at = element.parent; at >= 0; at = elements[at]!.parent) if (elements[at]!.name === name) return at;
  return -1;
}

/** A font size in CSS pixels (px, pt); null for relative units, which depend on the client. */
function cssPixels(value: string): number | null {
  // `\d+(?:\.\d+)?|\.\d+`, not `\d*\.?\d+`: that splits a run of digits every way (issue 19).
  const match = /^(\d+(?:\.\d+)?|\.\d+)\s*(px|pt)?$/i.exec(value.replace(/!important/i, '').trim());
  if (!match) return null;
  const n = Number(match[1]);
  return match[2]?.toLowerCase() === 'pt' ? (n * 4) / 3 : n;
}

function shorten(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
