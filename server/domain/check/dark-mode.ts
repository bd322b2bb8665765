import { parseCss, parseDeclarations, withoutPseudos, type CssBlock } from './css-scan.ts';
import { classesOf, type ScannedElement, type ScannedHtml } from './html-scan.ts';

interface DarkModeFinding {
  rule: 'color-scheme-meta' | 'no-dark-styles' | 'light-background';
  message: string;
  line: number | null;
}

export interface DarkModeReport {
  /** The content of `<meta name="color-scheme">`, or null. */
  color_scheme: string | null;
  /** The email has `@media (prefers-color-scheme: dark)` styles (what Apple Mail applies). */
  has_dark_styles: boolean;
  findings: DarkModeFinding[];
}

const NAMED_LIGHT = new Set([
  'white',
  'snow',
  'ivory',
  'whitesmoke',
  'ghostwhite',
  'floralwhite',
  'azure',
  'mintcream',
  'aliceblue',
  'seashell',
  'linen',
  'oldlace',
  'honeydew',
  'lavenderblush',
  'beige',
  'cornsilk',
  'lightyellow',
  'lightcyan',
  'lightgray',
  'lightgrey',
  'gainsboro',
]);
const MAX_FINDINGS = 20;
/**
 * Comparisons of a compound selector with an element allowed per element and rule of the email
 * (plus a floor): rules are looked up by their class, id or tag, so an email needs thousands of
 * rules sharing one class to come near it. Past it, the remaining elements are not compared
 * and a finding says so, rather than the check taking elements × rules (issue 19).
 */
const COMPARISONS_PER_ITEM = 32;
const MIN_COMPARISONS = 100_000;
const DARK_QUERY = /prefers-color-scheme\s*:\s*dark/i;

/**
 * How the email fares in the two dark modes clients have: its own `prefers-color-scheme: dark`
 * styles (Apple Mail) and forced inversion (Gmail apps, Outlook.com). Warns when the
 * color-scheme meta is missing and when light backgrounds are left as they are by the dark
 * styles (or there are none).
 */
export function darkModeReport(scan: ScannedHtml): DarkModeReport {
  const findings: DarkModeFinding[] = [];
  const meta = scan.elements.find((e) => e.name === 'meta' && (e.attribs.name ?? '').toLowerCase() === 'color-scheme');
  const colorScheme = meta?.attribs.content?.trim() ?? null;
  if (colorScheme === null || !/\bdark\b/i.test(colorScheme)) {
    findings.push({
      rule: 'color-scheme-meta',
      line: meta?.line ?? null,
      message:
        colorScheme === null
          ? 'No <meta name="color-scheme" content="light dark">: Apple Mail and iOS then decide the dark rendering themselves instead of using your dark styles.'
          : `<meta name="color-scheme" content="${colorScheme}"> does not offer dark: clients will not use your dark styles.`,
    });
  }
  const darkRules: { selector: string; important: boolean; restyles: boolean }[] = [];
  const darkBlock = new Map<CssBlock, boolean>();
  for (const style of scan.styles) {
    for (const rule of parseCss(style.css).rules) {
      if (inDarkBlock(rule.within, darkBlock) || /\[data-ogsc\]|\[data-ogsb\]/i.test(rule.selector)) {
        const backgrounds = rule.declarations.filter((d) => d.property === 'background' || d.property === 'background-color');
        darkRules.push({ selector: rule.selector, restyles: backgrounds.length > 0, important: backgrounds.some((d) => d.important) });
      }
    }
  }
  const light = scan.elements.map((e) => ({ element: e, background: lightBackground(e) })).filter((x) => x.background !== null);
  if (darkRules.length === 0) {
    if (light.length > 0) {
      findings.push({
        rule: 'no-dark-styles',
        line: light[0]!.element.line,
        message: `${light.length} element${light.length === 1 ? ' has' : 's have'} a light background and there are no @media (prefers-color-scheme: dark) styles: Apple Mail shows them as they are (bright at night), Gmail apps and Outlook.com invert them their own way.`,
      });
    }
    return { color_scheme: colorScheme, has_dark_styles: false, findings };
  }
  const index = new RestyleIndex(darkRules);
  let budget = Math.max(MIN_COMPARISONS, COMPARISONS_PER_ITEM * (scan.elements.length + darkRules.length));
  for (const { element, background } of light) {
    if (findings.length >= MAX_FINDINGS) break;
    const fromAttribute = background!.from === 'bgcolor';
    const found = index.lookup(element, !fromAttribute, budget);
    budget -= found.comparisons;
    if (found.restyled === null) {
      findings.push({
        rule: 'light-background',
        line: null,
        message: `Not every light background was compared with the dark styles: the email has too many of both (${light.length} light elements, ${darkRules.length} dark rules).`,
      });
      break;
    }
    if (!found.restyled) {
      findings.push({
        rule: 'light-background',
        line: element.line,
        message: `<${element.name}> keeps its light background ${background!.color} in dark mode: no dark style sets its background.`,
      });
    } else if (!fromAttribute && !found.important) {
      findings.push({
        rule: 'light-background',
        line: element.line,
        message: `<${element.name}>'s inline background ${background!.color} wins over the dark style: add !important to the dark background.`,
      });
    }
  }
  return { color_scheme: colorScheme, has_dark_styles: true, findings };
}

/** The block or one it is nested in is `@media (prefers-color-scheme: dark)`; each block is tested once. */
function inDarkBlock(block: CssBlock | null, known: Map<CssBlock, boolean>): boolean {
  const unknown: CssBlock[] = [];
  let answer = false;
  for (let b = block; b !== null; b = b.parent) {
    const cached = known.get(b);
    if (cached !== undefined) {
      answer = cached;
      break;
    }
    unknown.push(b);
  }
  for (let i = unknown.length - 1; i >= 0; i--) {
    answer = answer || DARK_QUERY.test(unknown[i]!.prelude);
    known.set(unknown[i]!, answer);
  }
  return answer;
}

/** A compound selector, parsed once: what an element needs to match it. */
interface Compound {
  parts: string[];
  important: boolean;
}

/**
 * The dark rules that set a background, by the last compound of each selector, filed under its
 * first class, else its id, else its tag (else in a bucket every element looks in).
 */
class RestyleIndex {
  private readonly buckets = new Map<string, Compound[]>();

  constructor(rules: readonly { selector: string; important: boolean; restyles: boolean }[]) {
    const seen = new Map<string, Compound>();
    for (const rule of rules) {
      if (!rule.restyles) continue;
      for (const selector of rule.selector.split(',')) {
        const parts = compoundParts(withoutPseudos(lastCompound(selector)));
        if (parts.length === 0) continue;
        const key = parts.join('\u0000');
        const known = seen.get(key);
        if (known) {
          known.important ||= rule.important;
          continue;
        }
        const compound = { parts, important: rule.important };
        seen.set(key, compound);
        const bucket = bucketOf(parts);
        let list = this.buckets.get(bucket);
        if (!list) this.buckets.set(bucket, (list = []));
        list.push(compound);
      }
    }
  }

  /**
   * Whether a dark rule sets the element's background (`restyled`), and with !important; null
   * when the budget ran out first. Stops at the first important match (or the first match when
   * importance does not matter).
   */
  lookup(element: ScannedElement, wantImportant: boolean, budget: number): { restyled: boolean | null; important: boolean; comparisons: number } {
    const classes = classesOf(element);
    const keys = ['', ...classes.map((c) => `.${c}`), ...(element.attribs.id === undefined ? [] : [`#${element.attribs.id}`]), element.name];
    let restyled = false;
    let important = false;
    let comparisons = 0;
    for (const key of keys) {
      for (const compound of this.buckets.get(key) ?? []) {
        if (++comparisons > budget) return { restyled: null, important, comparisons };
        if (!matches(compound.parts, element, classes)) continue;
        restyled = true;
        important ||= compound.important;
        if (important || !wantImportant) return { restyled, important, comparisons };
      }
    }
    return { restyled, important, comparisons };
  }
}

function bucketOf(parts: string[]): string {
  return parts.find((p) => p.startsWith('.')) ?? parts.find((p) => p.startsWith('#')) ?? parts.find((p) => /^[a-z]/i.test(p))?.toLowerCase() ?? '';
}

function lightBackground(element: ScannedElement): { color: string; from: 'bgcolor' | 'style' } | null {
  let found: { color: string; from: 'bgcolor' | 'style' } | null = null;
  if (element.attribs.bgcolor && isLight(element.attribs.bgcolor)) found = { color: element.attribs.bgcolor, from: 'bgcolor' };
  if (element.attribs.style && /background/i.test(element.attribs.style)) {
    for (const d of parseDeclarations(element.attribs.style)) {
      if (d.property !== 'background' && d.property !== 'background-color') continue;
      // `[^()]*`, not `[^)]*`: each try stops at the next parenthesis (linear on `rgb(rgb(rgb(`).
      const color = /#[0-9a-f]{3,8}\b|rgba?\([^()]*\)|\b[a-z]+\b/i.exec(d.value)?.[0];
      if (color && isLight(color)) found = { color, from: 'style' };
      else if (color) found = null;
    }
  }
  return found;
}

/** A colour whose relative luminance is high (a light background). */
export function isLight(color: string): boolean {
  const c = color.trim().toLowerCase();
  if (NAMED_LIGHT.has(c)) return true;
  let rgb: number[] | null = null;
  const hex = /^#?([0-9a-f]{3}|[0-9a-f]{6})([0-9a-f]{2})?$/.exec(c)?.[1];
  if (hex) rgb = hex.length === 3 ? [...hex].map((d) => parseInt(d + d, 16)) : [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const fn = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/.exec(c);
  if (fn) rgb = [Number(fn[1]), Number(fn[2]), Number(fn[3])];
  if (!rgb) return false;
  const [r, g, b] = rgb.map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.6;
}

function lastCompound(selector: string): string {
  const parts = selector.trim().split(/\s*[>+~]\s*|\s+/);
  return parts[parts.length - 1] ?? '';
}

/**
 * The parts of a compound selector (`td.card#main[x]` → `td`, `.card`, `#main`, `[x]`), as
 * `/^[a-z][\w-]*|[.#][\w-]+|\[[^\]]*\]|\*\/gi` found them, in one pass.
 */
function compoundParts(compound: string): string[] {
  const parts: string[] = [];
  const word = (from: number) => {
    let end = from;
    while (end < compound.length && /[\w-]/.test(compound[end]!)) end++;
    return end;
  };
  let at = 0;
  let close = -2;
  if (/[a-z]/i.test(compound[0] ?? '')) {
    at = word(1);
    parts.push(compound.slice(0, at));
  }
  while (at < compound.length) {
    const c = compound[at]!;
    if ((c === '.' || c === '#') && /[\w-]/.test(compound[at + 1] ?? '')) {
      const end = word(at + 1);
      parts.push(compound.slice(at, end));
      at = end;
    } else if (c === '[') {
      if (close !== -1 && close < at) close = compound.indexOf(']', at);
      if (close < 0) {
        at++;
        continue;
      }
      parts.push(compound.slice(at, close + 1));
      at = close + 1;
    } else {
      if (c === '*') parts.push('*');
      at++;
    }
  }
  return parts;
}

/** A compound selector's parts (`td.card`, `#main`, `.btn`) match the element. */
function matches(parts: string[], element: ScannedElement, classes: string[]): boolean {
  return parts.every((part) => {
    if (part === '*') return true;
    if (part.startsWith('.')) return classes.includes(part.slice(1));
    if (part.startsWith('#')) return element.attribs.id === part.slice(1);
    if (part.startsWith('[')) {
      const name = /^\[\s*([\w-]+)/.exec(part)?.[1]?.toLowerCase();
      return name !== undefined && (name === 'data-ogsc' || name === 'data-ogsb' || element.attribs[name] !== undefined);
    }
    return element.name === part.toLowerCase();
  });
}
