import { parseCss, parseDeclarations, withoutPseudos, type CssDeclaration } from './css-scan.ts';
import { enhancementBlocks, HOVER, isEnhancementQuery } from './enhancements.ts';
import { replaceGroups } from './groups.ts';
import type { ScannedElement, ScannedHtml } from './html-scan.ts';

/**
 * Which caniemail features an email uses, and on which lines. The mapping from markup to the
 * data's feature slugs is ours (the caniemail package's matcher is not used, see
 * docs/checks.md); it follows the tests Mailpit runs, with every CSS declaration read from
 * both `style` attributes and `<style>` blocks.
 */
interface FeatureUse {
  /** How many times the feature occurs. */
  count: number;
  /** The lines it occurs on, ascending, without repeats (the first 200). */
  lines: number[];
  /**
   * How many of those occurrences are inside an enhancement (a `prefers-color-scheme`,
   * `prefers-reduced-motion` or `hover` media query, that query itself, or a `:hover` rule): a
   * client without support for it never applies them, without harm (docs/checks.md, "The two scores").
   */
  enhancement?: number;
}

export type FeatureUses = Map<string, FeatureUse>;

const MAX_LINES = 200;

export const TAGS: Record<string, string> = {
  object: 'html-object',
  embed: 'html-object',
  link: 'html-link',
  hr: 'html-hr',
  dialog: 'html-dialog',
  picture: 'html-picture',
  svg: 'html-svg',
  progress: 'html-progress',
  meter: 'html-meter',
  audio: 'html-audio',
  video: 'html-video',
  form: 'html-form',
  base: 'html-base',
  select: 'html-select',
  textarea: 'html-textarea',
  style: 'html-style',
  map: 'html-image-maps',
  marquee: 'html-marquee',
  ruby: 'html-ruby',
  rt: 'html-rt',
  rp: 'html-rp',
  bdi: 'html-bdi',
  dfn: 'html-dfn',
  abbr: 'html-abbr',
  acronym: 'html-acronym',
  body: 'html-body',
  ...Object.fromEntries(
    ['article', 'aside', 'details', 'figcaption', 'figure', 'footer', 'header', 'main', 'mark', 'nav', 'section', 'summary', 'time'].map((t) => [
      t,
      'html-semantics',
    ]),
  ),
};

export const ATTRIBUTES: Record<string, string> = {
  srcset: 'html-srcset',
  required: 'html-required',
  usemap: 'html-image-maps',
  loading: 'html-loading-attribute',
  popover: 'html-popover',
  hidden: 'html-hidden',
  background: 'html-background',
  cellpadding: 'html-cellpadding',
  cellspacing: 'html-cellspacing',
  valign: 'html-valign',
  align: 'html-align',
  width: 'html-width',
  height: 'html-height',
};

export const INPUT_TYPES: Record<string, string> = {
  checkbox: 'html-input-checkbox',
  radio: 'html-input-radio',
  hidden: 'html-input-hidden',
  text: 'html-input-text',
  submit: 'html-input-submit',
  reset: 'html-input-reset',
};

const IMAGE_TYPES: [RegExp, string][] = [
  [/\.apng$/i, 'image-apng'],
  [/\.avif$/i, 'image-avif'],
  [/\.bmp$/i, 'image-bmp'],
  [/\.gif$/i, 'image-gif'],
  [/\.hdr$/i, 'image-hdr'],
  [/\.heic$|\.heif$/i, 'image-heif'],
  [/\.ico$/i, 'image-ico'],
  [/\.mp4$/i, 'image-mp4'],
  [/\.svg$/i, 'image-svg'],
  [/\.tiff?$/i, 'image-tiff'],
  [/\.webp$/i, 'image-webp'],
];

/** Properties whose feature is not simply `css-<property>`. */
const PROPERTY_FEATURES: [RegExp, string][] = [
  [/^animation(-|$)/, 'css-animation'],
  [/^transition(-|$)/, 'css-transition'],
  [/^border-(top|right|bottom|left)(-(width|style|color))?$|^border-(width|style|color)$/, 'css-border'],
  [/^border-(top|bottom)-(left|right)-radius$/, 'css-border-radius'],
  [/^border-(start|end)-(start|end)-radius$/, 'css-border-radius-logical'],
  [/^border-(inline|block)$/, 'css-border-inline-block'],
  [/^border-(inline|block)-(start|end)$/, 'css-border-inline-block-individual'],
  [/^border-(inline|block)(-(start|end))?-(width|style|color)$/, 'css-border-inline-block-longhand'],
  [/^block-size$/, 'css-block-inline-size'],
  [/^(columns|column-(width|rule.*|span|fill))$/, 'css-column-layout-properties'],
  [/^grid-template(-|$)/, 'css-grid-template'],
  [/^(left|right|top|bottom)$/, 'css-left-right-top-bottom'],
  [/^margin-(top|right|bottom|left)$/, 'css-margin'],
  [/^padding-(top|right|bottom|left)$/, 'css-padding'],
  [/^margin-(block|inline)-(start|end)$/, 'css-margin-$1-start-end'],
  [/^padding-(block|inline)-(start|end)$/, 'css-padding-$1-start-end'],
  [/^margin-(inline|block)$/, 'css-margin-inline-block'],
  [/^padding-(inline|block)$/, 'css-padding-inline-block'],
  [/^outline-(width|style|color)$/, 'css-outline'],
  [/^overflow-[xy]$/, 'css-overflow'],
  [/^scroll-snap-/, 'css-scroll-snap'],
  [/^text-emphasis-(style|color)$/, 'css-text-emphasis'],
];

/** Properties that are a feature under their own name, but also carry a more telling one. */
const NOT_PLAIN = new Set(['display', 'font-family']);

const VALUE_FEATURES: [RegExp, string][] = [
  [/(^|[^-\w])rgb\(/i, 'css-rgb'],
  [/(^|[^-\w])rgba\(/i, 'css-rgba'],
  [/(^|[^-\w])calc\(/i, 'css-unit-calc'],
  [/(^|[^-\w])(repeating-)?linear-gradient\(/i, 'css-linear-gradient'],
  [/(^|[^-\w])(repeating-)?radial-gradient\(/i, 'css-radial-gradient'],
  [/(^|[^-\w])(repeating-)?conic-gradient\(/i, 'css-conic-gradient'],
  [/(^|[^-\w])clamp\(/i, 'css-function-clamp'],
  [/(^|[^-\w])min\(/i, 'css-function-min'],
  [/(^|[^-\w])max\(/i, 'css-function-max'],
  [/(^|[^-\w])light-dark\(/i, 'css-function-light-dark'],
  [/(^|[^-\w])var\(/i, 'css-variables'],
  [/(^|[^-\w])(ok)?(lch|lab)\(/i, 'css-modern-color'],
  [/(^|[^-\w])initial($|[^-\w])/i, 'css-unit-initial'],
];

const UNITS: Record<string, string> = {
  px: 'css-unit-px',
  em: 'css-unit-em',
  rem: 'css-unit-rem',
  ex: 'css-unit-ex',
  ch: 'css-unit-ch',
  vh: 'css-unit-vh',
  vw: 'css-unit-vw',
  vmin: 'css-unit-vmin',
  vmax: 'css-unit-vmax',
  cm: 'css-unit-cm',
  mm: 'css-unit-mm',
  in: 'css-unit-in',
  pt: 'css-unit-pt',
  pc: 'css-unit-pc',
  '%': 'css-unit-percent',
};
// `\d+(?:\.\d*)?`, not `\d+\.?\d*`: the latter splits a run of digits every way before failing
// (a 100 KB number in a <style> took 14 s, issue 19).
const UNIT = /(?<![\w#.-])-?(?:\d+(?:\.\d*)?|\.\d+)(px|rem|em|ex|ch|vh|vw|vmin|vmax|cm|mm|in|pt|pc|%)(?![\w-])/gi;

const PSEUDO_ELEMENTS: Record<string, string> = {
  before: 'css-pseudo-element-before',
  after: 'css-pseudo-element-after',
  'first-letter': 'css-pseudo-element-first-letter',
  'first-line': 'css-pseudo-element-first-line',
  marker: 'css-pseudo-element-marker',
  placeholder: 'css-pseudo-element-placeholder',
};

/** Every caniemail feature the HTML uses, with its lines. `known` is the data's slugs. */
export function findFeatures(scan: ScannedHtml, known: ReadonlySet<string>): FeatureUses {
  const uses: FeatureUses = new Map();
  const record = (slug: string, line: number, enhancement: boolean) => {
    if (!known.has(slug)) return;
    let use = uses.get(slug);
    if (!use) uses.set(slug, (use = { count: 0, lines: [], enhancement: 0 }));
    use.count++;
    if (enhancement) use.enhancement = (use.enhancement ?? 0) + 1;
    const last = use.lines[use.lines.length - 1];
    if (last !== line && use.lines.length < MAX_LINES) {
      if (last === undefined || line > last) use.lines.push(line);
      else if (!use.lines.includes(line)) use.lines.splice(sortedIndex(use.lines, line), 0, line);
    }
  };

  const add = (slug: string, line: number) => record(slug, line, false);
  const addEnhancement = (slug: string, line: number) => record(slug, line, true);
  for (const element of scan.elements) elementFeatures(element, scan.hasBody, add);
  for (const style of scan.styles) {
    const css = parseCss(style.css);
    const lineAt = (offset: number) => scan.lineOf(style.offset + offset);
    const enhancing = enhancementBlocks();
    for (const rule of css.atRules)
      atRuleFeatures(
        rule.name,
        rule.prelude,
        lineAt(rule.offset),
        enhancing(rule.within) || (rule.name === 'media' && isEnhancementQuery(rule.prelude)) ? addEnhancement : add,
      );
    for (const rule of css.rules) {
      // A rule inside an enhancement query, or one that applies on hover only, is an enhancement as a whole.
      const to = enhancing(rule.within) || HOVER.test(rule.selector) ? addEnhancement : add;
      selectorFeatures(rule.selector, lineAt(rule.offset), to);
      for (const d of rule.declarations) declarationFeatures(d, lineAt(d.offset), to);
    }
    for (const d of css.declarations) declarationFeatures(d, lineAt(d.offset), add);
  }
  return uses;
}

export type Add = (slug: string, line: number) => void;

export function elementFeatures(element: ScannedElement, hasBody: boolean, add: Add): void {
  const { name, attribs, line } = element;
  const tag = TAGS[name];
  if (tag && (name !== 'body' || hasBody)) add(tag, line);
  if (name === 'input') add(INPUT_TYPES[(attribs.type ?? 'text').toLowerCase()] ?? '', line);
  if (name === 'button') {
    const type = (attribs.type ?? '').toLowerCase();
    if (type === 'reset') add('html-button-reset', line);
    if (type === 'submit') add('html-button-submit', line);
  }
  if (name === 'meta' && (attribs.name ?? '').toLowerCase() === 'color-scheme') add('html-meta-color-scheme', line);
  for (const attribute of Object.keys(attribs)) {
    const feature = ATTRIBUTES[attribute];
    if (feature) add(feature, line);
  }
  const href = attribs.href?.trim();
  if (name === 'a' && href !== undefined) {
    if (href.startsWith('#')) add('html-anchor-links', line);
    else if (/^mailto:/i.test(href)) add('html-mailto-links', line);
  }
  if (name === 'img' && attribs.src) {
    const src = attribs.src.trim();
    if (/^data:image\//i.test(src)) add('image-base64', line);
    else {
      const path = src.replace(/[?#].*$/, '');
      for (const [pattern, slug] of IMAGE_TYPES) if (pattern.test(path)) add(slug, line);
    }
  }
  if (attribs.style) for (const d of parseDeclarations(attribs.style)) declarationFeatures(d, line, add);
}

export function declarationFeatures(d: CssDeclaration, line: number, add: Add): void {
  if (d.property.startsWith('--')) {
    add('css-variables', line);
    return;
  }
  const property = d.property.replace(/^-(webkit|moz|ms|o)-/, '');
  if (property.startsWith('mso-')) return;
  const value = d.value.toLowerCase();
  if (!NOT_PLAIN.has(property)) add(`css-${property}`, line);
  for (const [pattern, slug] of PROPERTY_FEATURES) {
    const match = pattern.exec(property);
    if (match)
      add(
        slug.replace(/\$(\d)/g, (_, n: string) => match[Number(n)] ?? ''),
        line,
      );
  }
  if (property === 'display') {
    add('css-display', line);
    if (/^(inline-)?flex$/.test(value)) add('css-display-flex', line);
    if (/^(inline-)?grid$/.test(value)) add('css-display-grid', line);
    if (value === 'none') add('css-display-none', line);
  }
  if ((property === 'font-family' || property === 'font') && /(^|[\s,'"])(system-ui|ui-serif|ui-sans-serif|ui-rounded|ui-monospace)\b/.test(value))
    add('css-sytem-ui', line);
  if (d.important) add('css-important', line);
  for (const [pattern, slug] of VALUE_FEATURES) if (pattern.test(value)) add(slug, line);
  if (/\d/.test(value)) {
    const seen = new Set<string>();
    for (const match of value.matchAll(UNIT)) {
      const slug = UNITS[match[1]!.toLowerCase()];
      if (slug && !seen.has(slug)) {
        seen.add(slug);
        add(slug, line);
      }
    }
  }
}

export function atRuleFeatures(name: string, prelude: string, line: number, add: Add): void {
  const text = prelude.toLowerCase();
  if (name === 'media') {
    add('css-at-media', line);
    if (text.includes('prefers-color-scheme')) add('css-at-media-prefers-color-scheme', line);
    if (text.includes('prefers-reduced-motion')) add('css-at-media-prefers-reduced-motion', line);
    if (/\borientation\b/.test(text)) add('css-at-media-orientation', line);
    if (/\(\s*(any-)?hover\b/.test(text)) add('css-at-media-hover', line);
    if (/device-pixel-ratio|\bresolution\b/.test(text)) add('css-at-media-device-pixel-ratio', line);
  } else if (name === 'font-face') add('css-at-font-face', line);
  else if (name === 'import') add('css-at-import', line);
  else if (name.endsWith('keyframes')) add('css-at-keyframes', line);
  else if (name === 'supports') add('css-at-supports', line);
}

export function selectorFeatures(selectorList: string, line: number, add: Add): void {
  const selectors = splitTop(
    replaceGroups(
      replaceGroups(selectorList, '[', ']', () => '[]'),
      '(',
      ')',
      (group) => group.replace(/[\s>+~,]/g, ''),
    ),
  );
  if (selectors.length > 1) add('css-selector-grouping', line);
  for (const selector of selectors) {
    if (selector.includes('&')) add('css-nesting', line);
    for (const match of selector.matchAll(/::?([a-z-]+)/gi)) {
      const name = match[1]!.toLowerCase();
      const element = PSEUDO_ELEMENTS[name];
      if (element && (match[0].startsWith('::') || ['before', 'after', 'first-letter', 'first-line'].includes(name))) add(element, line);
      else if (!match[0].startsWith('::')) add(`css-pseudo-class-${name}`, line);
    }
    const plain = withoutPseudos(selector);
    if (plain.includes('>')) add('css-selector-child', line);
    if (plain.includes('+')) add('css-selector-adjacent-sibling', line);
    if (plain.includes('~')) add('css-selector-general-sibling', line);
    const compounds = plain.split(/\s*[>+~]\s*|\s+/).filter(Boolean);
    if (compounds.length > 1 && /[^\s>+~]\s+[^\s>+~]/.test(plain)) add('css-selector-descendant', line);
    for (const compound of compounds) {
      const parts = compound.match(/^[a-z][\w-]*|^\*|[.#][\w-]+|\[\]|&/gi) ?? [];
      if (parts.length > 1) add('css-selector-chaining', line);
      for (const part of parts) {
        if (part === '*') add('css-selector-universal', line);
        else if (part.startsWith('.')) add('css-selector-class', line);
        else if (part.startsWith('#')) add('css-selector-id', line);
        else if (part === '[]') add('css-selector-attribute', line);
        else if (part !== '&') add('css-selector-type', line);
      }
    }
  }
}

function splitTop(list: string): string[] {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function sortedIndex(lines: number[], line: number): number {
  let low = 0;
  let high = lines.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (lines[mid]! < line) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The slugs this matcher can report (a test checks each exists in the shipped data). */
export function mappedSlugs(): string[] {
  return [
    ...Object.values(TAGS),
    ...Object.values(ATTRIBUTES),
    ...Object.values(INPUT_TYPES),
    ...IMAGE_TYPES.map(([, slug]) => slug),
    ...VALUE_FEATURES.map(([, slug]) => slug),
    ...Object.values(UNITS),
    ...Object.values(PSEUDO_ELEMENTS),
    'image-base64',
    'html-anchor-links',
    'html-mailto-links',
    'html-button-reset',
    'html-button-submit',
    'html-meta-color-scheme',
  ];
}
