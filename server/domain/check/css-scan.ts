/** A small CSS reader for the checks: enough structure to find features and their lines. */

export interface CssDeclaration {
  property: string;
  value: string;
  important: boolean;
  /** Offset in the CSS text. */
  offset: number;
}

/** A grouping at-rule's block (`@media ... {`), with the one it is nested in. */
export interface CssBlock {
  prelude: string;
  parent: CssBlock | null;
}

interface CssRule {
  /** The selector list as written (`a:hover, .btn`). */
  selector: string;
  offset: number;
  declarations: CssDeclaration[];
  /**
   * The innermost at-rule block this rule is nested in (`@media (prefers-color-scheme: dark)`),
   * whose parents are the outer ones; null at the top. A chain, not a list per rule: a list
   * would copy every outer prelude at every level of a deep nesting.
   */
  within: CssBlock | null;
}

interface CssAtRule {
  /** Lower case, without the @ (`media`, `font-face`). */
  name: string;
  prelude: string;
  offset: number;
  /** The innermost grouping block it is written in (as a rule's `within`); null at the top. */
  within: CssBlock | null;
}

export interface ParsedCss {
  rules: CssRule[];
  atRules: CssAtRule[];
  /** Declarations outside any rule (@font-face, @page bodies). */
  declarations: CssDeclaration[];
}

/** At-rules whose block holds rules; the others (font-face, page) hold declarations. */
export const GROUPING: ReadonlySet<string> = new Set(['media', 'supports', 'document', 'layer', 'container', 'scope']);

/**
 * Parses a style sheet into rules, at-rules and declarations, each with its offset. Comments
 * are blanked first (offsets stay right); read in one pass by walkCss, a grouping block
 * (`@media {`) as it comes; unbalanced input ends where it ends, never throws.
 */
export function parseCss(source: string): ParsedCss {
  const css = blankComments(source);
  const out: ParsedCss = { rules: [], atRules: [], declarations: [] };
  /** The open grouping blocks, innermost last; `rules` false inside keyframes (their rules are not rules). */
  const open: { block: CssBlock; rules: boolean }[] = [];
  walkCss(css, (step) => {
    const inner = open[open.length - 1];
    // The end of the innermost block (a stray one at the top is skipped).
    if (step.kind === 'end') {
      open.pop();
      return;
    }
    const within = inner?.block ?? null;
    if (step.kind === 'statement') {
      if (step.prelude.startsWith('@')) out.atRules.push(atRule(step.prelude, step.start, within));
      return;
    }
    const keepRules = inner?.rules ?? true;
    if (step.prelude.startsWith('@')) {
      const rule = atRule(step.prelude, step.start, within);
      out.atRules.push(rule);
      const keyframes = rule.name.endsWith('keyframes');
      if (GROUPING.has(rule.name) || keyframes) {
        open.push({ block: { prelude: step.prelude, parent: within }, rules: keepRules && !keyframes });
        return 'enter';
      }
      for (const d of parseDeclarations(css.slice(step.open + 1, step.close()), step.open + 1)) out.declarations.push(d);
      return;
    }
    const declarations = parseDeclarations(css.slice(step.open + 1, step.close()), step.open + 1);
    if (keepRules) out.rules.push({ selector: step.prelude, offset: step.start, declarations, within });
  });
  return out;
}

/**
 * One step of reading a style sheet (walkCss): a `}` (`end`: the end of the innermost block
 * entered, or a stray one); `prelude;` (`statement`: an at-rule statement such as
 * `@import url(x);`, or anything else up to a `;`); `prelude {` (`block`: a rule or an
 * at-rule's block, its `{` at `open`, and `close()` the `}` that closes it, or the end of the
 * text, found once). One object, filled anew for each step: read it before the next.
 */
export interface CssStep {
  kind: 'end' | 'statement' | 'block';
  /** The text before the `;` or `{`, trimmed ('' for `end`). */
  prelude: string;
  start: number;
  open: number;
  close(): number;
}

/**
 * Reads a style sheet (its comments blanked: blankComments) a step at a time, in one pass and
 * without recursion, for the check's reader (parseCss) and the client views' filter
 * (views/css-filter.ts). `visit` answers a block with 'enter' to read inside it as it comes
 * (its steps next, then its `end`): a grouping block such as `@media`; anything else is passed
 * whole, to its closing brace. Reading each block to its end before reading inside it cost the
 * depth times the length, and 100,000 nested blocks overflowed the stack (issue 19). Unbalanced
 * input ends where it ends; nothing throws.
 */
export function walkCss(css: string, visit: (step: CssStep) => 'enter' | undefined): void {
  const to = css.length;
  let closed = -1;
  // One step object for the whole sheet: a new one per step (and a closure for close) made
  // parsing a megabyte of nested blocks twice as slow as the loops each caller had before.
  const step: CssStep = {
    kind: 'end',
    prelude: '',
    start: 0,
    open: 0,
    close: () => (closed < 0 ? (closed = matching(css, step.open, to)) : closed),
  };
  let at = 0;
  while (at < to) {
    while (at < to && /\s/.test(css[at]!)) at++;
    if (at >= to) break;
    const start = at;
    const stop = findAny(css, at, to, '{;}');
    if (stop >= to) break;
    step.start = start;
    step.open = stop;
    closed = -1;
    if (css[stop] === '}') {
      step.kind = 'end';
      step.prelude = '';
      visit(step);
      at = stop + 1;
      continue;
    }
    step.prelude = css.slice(start, stop).trim();
    step.kind = css[stop] === ';' ? 'statement' : 'block';
    if (visit(step) === 'enter' || step.kind === 'statement') at = stop + 1;
    else at = step.close() + 1;
  }
}

function atRule(prelude: string, offset: number, within: CssBlock | null): CssAtRule {
  const match = /^@([-\w]+)\s*([\s\S]*)$/.exec(prelude);
  return { name: (match?.[1] ?? '').toLowerCase(), prelude: match?.[2]?.trim() ?? '', offset, within };
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

/**
 * A selector without its pseudo-classes and pseudo-elements (`a:hover` → `a`, `:not(.x)` →
 * ``): what `/::?[a-z-]+(\([^)]*\))?/gi` removed, in one pass (that expression searched to the
 * end of the text for every `(` left open).
 */
export function withoutPseudos(compound: string): string {
  let out = '';
  let at = 0;
  let close = -2;
  while (at < compound.length) {
    const colon = compound.indexOf(':', at);
    if (colon < 0) break;
    let end = colon + (compound[colon + 1] === ':' ? 2 : 1);
    const nameStart = end;
    while (end < compound.length && /[a-z-]/i.test(compound[end]!)) end++;
    if (end === nameStart) {
      out += compound.slice(at, colon + 1);
      at = colon + 1;
      continue;
    }
    if (compound[end] === '(') {
      // The next `)`, looked up again only once passed (-1: there is none ahead).
      if (close !== -1 && close < end) close = compound.indexOf(')', end);
      if (close >= 0) end = close + 1;
    }
    out += compound.slice(at, colon);
    at = end;
  }
  return out + compound.slice(at);
}

export function blankComments(css: string): string {
  return css.replace(/\/\*[\s\S]*?(\*\/|$)/g, (comment) => comment.replace(/[^\n]/g, ' ')).replace(/<!--|-->/g, '    ');
}
