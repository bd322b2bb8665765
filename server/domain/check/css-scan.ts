/** A small CSS reader for the checks: enough structure to find features and their lines. */

export interface CssDeclaration {
  property: string;
  value: string;
  important: boolean;
  /** Offset in the CSS text. */
  offset: number;
}

interface CssRule {
  /** The selector list as written (`a:hover, .btn`). */
  selector: string;
  offset: number;
  declarations: CssDeclaration[];
  /** The at-rule preludes this rule is nested in (`@media (prefers-color-scheme: dark)`). */
  within: string[];
}

interface CssAtRule {
  /** Lower case, without the @ (`media`, `font-face`). */
  name: string;
  prelude: string;
  offset: number;
}

export interface ParsedCss {
  rules: CssRule[];
  atRules: CssAtRule[];
  /** Declarations outside any rule (@font-face, @page bodies). */
  declarations: CssDeclaration[];
}

/** At-rules whose block holds rules; the others (font-face, page) hold declarations. */
const GROUPING = new Set(['media', 'supports', 'document', 'layer', 'container', 'scope']);

/**
 * Parses a style sheet into rules, at-rules and declarations, each with its offset. Comments
 * are blanked first (offsets stay right); unbalanced input ends where it ends, never throws.
 */
export function parseCss(source: string): ParsedCss {
  const css = blankComments(source);
  const result: ParsedCss = { rules: [], atRules: [], declarations: [] };
  parseBlock(css, 0, css.length, [], result);
  return result;
}

function parseBlock(css: string, from: number, to: number, within: string[], out: ParsedCss): void {
  let at = from;
  while (at < to) {
    while (at < to && /\s/.test(css[at]!)) at++;
    if (at >= to) return;
    const start = at;
    const stop = findAny(css, at, to, '{;}');
    const prelude = css.slice(start, stop).trim();
    if (stop >= to || css[stop] === '}') {
      at = stop + 1;
      continue;
    }
    if (css[stop] === ';') {
      if (prelude.startsWith('@')) out.atRules.push(atRule(prelude, start));
      at = stop + 1;
      continue;
    }
    const close = matching(css, stop, to);
    if (prelude.startsWith('@')) {
      const rule = atRule(prelude, start);
      out.atRules.push(rule);
      if (GROUPING.has(rule.name)) parseBlock(css, stop + 1, close, [...within, prelude], out);
      else if (rule.name.endsWith('keyframes')) parseBlock(css, stop + 1, close, [...within, prelude], { ...out, rules: [] });
      else out.declarations.push(...parseDeclarations(css.slice(stop + 1, close), stop + 1));
    } else {
      const declarations = parseDeclarations(css.slice(stop + 1, close), stop + 1);
      out.rules.push({ selector: prelude, offset: start, declarations, within });
    }
    at = close + 1;
  }
}

function atRule(prelude: string, offset: number): CssAtRule {
  const match = /^@([-\w]+)\s*([\s\S]*)$/.exec(prelude);
  return { name: (match?.[1] ?? '').toLowerCase(), prelude: match?.[2]?.trim() ?? '', offset };
}

/** `a: b; c: d !important` → declarations; offsets are `base` plus their place in `text`. */
export function parseDeclarations(text: string, base = 0): CssDeclaration[] {
  const declarations: CssDeclaration[] = [];
  let at = 0;
  while (at < text.length) {
    const end = findAny(text, at, text.length, ';');
    const part = text.slice(at, end);
    const colon = part.indexOf(':');
    if (colon > 0) {
      const property = part.slice(0, colon).trim().toLowerCase();
      let value = part.slice(colon + 1).trim();
      const important = /!\s*important\s*$/i.test(value);
      if (important) value = value.replace(/!\s*important\s*$/i, '').trim();
      if (/^-?-?[a-z][-a-z0-9]*$/i.test(property) || property.startsWith('--')) {
        declarations.push({ property, value, important, offset: base + at + (part.length - part.trimStart().length) });
      }
    }
    at = end + 1;
  }
  return declarations;
}

/** The first of `chars` at depth 0 (outside strings and parentheses), or `to`. */
function findAny(text: string, from: number, to: number, chars: string): number {
  let depth = 0;
  let quote = '';
  for (let at = from; at < to; at++) {
    const c = text[at]!;
    if (quote) {
      if (c === '\\') at++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && chars.includes(c)) return at;
  }
  return to;
}

/** The `}` closing the `{` at `open`, or `to`. */
function matching(text: string, open: number, to: number): number {
  let depth = 0;
  let quote = '';
  for (let at = open; at < to; at++) {
    const c = text[at]!;
    if (quote) {
      if (c === '\\') at++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return at;
  }
  return to;
}

function blankComments(css: string): string {
  return css.replace(/\/\*[\s\S]*?(\*\/|$)/g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/<!--|-->/g, '    ');
}
