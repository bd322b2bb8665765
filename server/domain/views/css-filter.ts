import { blankComments, GROUPING, parseDeclarations, walkCss, type CssDeclaration } from '../check/css-scan.ts';
import { atRuleFeatures, declarationFeatures, selectorFeatures } from '../check/features.ts';
import type { Removals } from './removals.ts';

/** How a view treats `prefers-color-scheme` queries that the client keeps. */
export type SchemeQueries = 'light' | 'dark';

export interface CssView {
  removals: Removals;
  /** Images are blocked: declarations that load an image go. */
  imagesOff: boolean;
  scheme: SchemeQueries;
  /** The line of an offset of the text being filtered. */
  lineAt(offset: number): number;
  /** Set when a `prefers-color-scheme: dark` block survives and applies (the email's own dark styles show). */
  darkApplied?: boolean;
}

const IMAGE_PROPERTY = /^(-(webkit|moz|ms|o)-)?(background|list-style|border-image|content|mask)/;
/** The notes of caniemail's `css-at-media` that the views apply. */
const NO_NESTED_MEDIA = 'Does not support nested media queries';
const NO_HEIGHT_MEDIA = 'Does not support height based media queries';

function slugsOf(collect: (add: (slug: string) => void) => void): string[] {
  const slugs: string[] = [];
  collect((slug) => {
    if (!slugs.includes(slug)) slugs.push(slug);
  });
  return slugs;
}

/** The declaration is kept in this view; if not, the removal is recorded. */
function keepDeclaration(d: CssDeclaration, line: number, view: CssView): boolean {
  if (view.imagesOff) {
    if (IMAGE_PROPERTY.test(d.property) && d.value.toLowerCase().includes('url(')) {
      view.removals.other('images-off', 'css', `${d.property}: ${short(d.value)}`, 'Images are blocked: background images do not load.', null, line);
      return false;
    }
    return true;
  }
  const slug = view.removals.firstUnsupported(slugsOf((add) => declarationFeatures(d, line, add)));
  if (slug === null) return true;
  view.removals.unsupportedFeature(slug, 'declaration', `${d.property}: ${short(d.value)}`, line);
  return false;
}

function declarationText(d: CssDeclaration): string {
  return `${d.property}: ${d.value}${d.important ? ' !important' : ''}`;
}

/** A `style` attribute's declarations as this view keeps them (null: all kept, leave it as written). */
export function filterStyleAttribute(style: string, line: number, view: CssView): string | null {
  const declarations = parseDeclarations(style);
  const kept = declarations.filter((d) => keepDeclaration(d, line, view));
  return kept.length === declarations.length ? null : kept.map(declarationText).join('; ');
}

/**
 * A `<style>` sheet as this view keeps it (null: unchanged, leave it as written): at-rule blocks, rules and declarations the client does
 * not support are dropped (and recorded), kept `prefers-color-scheme` queries are made to match
 * or not by the view's scheme. One pass, like the check's reader: a dropped block is skipped to
 * its closing brace, a kept grouping block is read as it comes.
 */
export function filterStylesheet(source: string, view: CssView): string | null {
  const css = blankComments(source);
  let changed = false;
  const out: string[] = [];
  /** Open grouping blocks (kept), innermost last. */
  let depth = 0;
  walkCss(css, (step) => {
    if (step.kind === 'end') {
      if (depth > 0) {
        depth--;
        out.push('}\n');
      }
      return;
    }
    const { prelude } = step;
    const line = view.lineAt(step.start);
    if (step.kind === 'statement') {
      if (prelude.startsWith('@') && keepAtRule(prelude, line, view, depth)) out.push(`${prelude};\n`);
      else changed = true;
      return;
    }
    if (prelude.startsWith('@')) {
      if (!keepAtRule(prelude, line, view, depth)) {
        changed = true;
        return;
      }
      // A kept grouping block is read as it comes (walkCss).
      if (GROUPING.has(atName(prelude))) {
        const query = schemeQuery(prelude, view);
        if (query !== prelude) changed = true;
        out.push(`${query} {\n`);
        depth++;
        return 'enter';
      }
      // @font-face, @keyframes, @page: kept as written.
      out.push(`${prelude} ${css.slice(step.open, step.close() + 1)}\n`);
      return;
    }
    const slug = view.imagesOff ? null : view.removals.firstUnsupported(slugsOf((add) => selectorFeatures(prelude, line, add)));
    if (slug !== null) {
      view.removals.unsupportedFeature(slug, 'selector', `${short(prelude)} { … }`, line);
      changed = true;
      return;
    }
    const declarations = parseDeclarations(css.slice(step.open + 1, step.close()), step.open + 1);
    const kept = declarations.filter((d) => keepDeclaration(d, view.lineAt(d.offset), view));
    if (kept.length < declarations.length) changed = true;
    if (kept.length > 0 || declarations.length === 0) out.push(`${prelude} { ${kept.map(declarationText).join('; ')} }\n`);
    return;
  });
  while (depth-- > 0) out.push('}\n');
  return changed ? out.join('') : null;
}

function keepAtRule(prelude: string, line: number, view: CssView, depth: number): boolean {
  if (view.imagesOff) return true;
  const name = atName(prelude);
  const query = prelude.slice(name.length + 1).trim();
  const slug = view.removals.firstUnsupported(slugsOf((add) => atRuleFeatures(name, query, line, add)));
  if (slug !== null) {
    view.removals.unsupportedFeature(slug, `at-rule ${name}`, `${short(prelude)}${name === 'import' ? '' : ' { … }'}`, line);
    return false;
  }
  if (name === 'media' && depth > 0 && view.removals.hasNote('css-at-media', NO_NESTED_MEDIA)) {
    view.removals.noted('css-at-media', 'nested', `${short(prelude)} { … } (nested)`, `Partial. ${NO_NESTED_MEDIA}.`, line);
    return false;
  }
  if (name === 'media' && /height/i.test(query) && view.removals.hasNote('css-at-media', NO_HEIGHT_MEDIA)) {
    view.removals.noted('css-at-media', 'height', `${short(prelude)} { … }`, `Partial. ${NO_HEIGHT_MEDIA}.`, line);
    return false;
  }
  return true;
}

function atName(prelude: string): string {
  let end = 1;
  while (end < prelude.length && /[-\w]/.test(prelude[end]!)) end++;
  return prelude.slice(1, end).toLowerCase();
}

/** A kept `prefers-color-scheme` query made to match (dark) or not (light), as the scheme shown. */
function schemeQuery(prelude: string, view: CssView): string {
  if (!prelude.toLowerCase().includes('prefers-color-scheme')) return prelude;
  const dark = view.scheme === 'dark';
  if (dark && /prefers-color-scheme\s*:\s*dark/i.test(prelude)) view.darkApplied = true;
  return prelude
    .replace(/prefers-color-scheme\s*:\s*dark/gi, dark ? 'min-width: 0px' : 'max-width: 0px')
    .replace(/prefers-color-scheme\s*:\s*light/gi, dark ? 'max-width: 0px' : 'min-width: 0px');
}

/** A value or selector cut to a readable length for the removals list. */
export function short(text: string): string {
  const flat = text.length > 200 ? text.slice(0, 200) : text;
  const one = flat.replace(/\s+/g, ' ').trim();
  return one.length > 60 ? `${one.slice(0, 57)}…` : one;
}
