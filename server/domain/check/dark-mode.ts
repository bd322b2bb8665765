import { parseCss, parseDeclarations, type CssDeclaration } from './css-scan.ts';
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
  const darkRules: { selector: string; declarations: CssDeclaration[] }[] = [];
  for (const style of scan.styles) {
    for (const rule of parseCss(style.css).rules) {
      if (rule.within.some((w) => /prefers-color-scheme\s*:\s*dark/i.test(w)) || /\[data-ogsc\]|\[data-ogsb\]/i.test(rule.selector)) darkRules.push(rule);
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
  for (const { element, background } of light) {
    if (findings.length >= MAX_FINDINGS) break;
    const matching = darkRules.filter((rule) => rule.selector.split(',').some((s) => matches(lastCompound(s), element)));
    const restyles = matching.flatMap((r) => r.declarations).filter((d) => d.property === 'background' || d.property === 'background-color');
    const fromAttribute = background!.from === 'bgcolor';
    if (restyles.length === 0) {
      findings.push({
        rule: 'light-background',
        line: element.line,
        message: `<${element.name}> keeps its light background ${background!.color} in dark mode: no dark style sets its background.`,
      });
    } else if (!fromAttribute && !restyles.some((d) => d.important)) {
      findings.push({
        rule: 'light-background',
        line: element.line,
        message: `<${element.name}>'s inline background ${background!.color} wins over the dark style: add !important to the dark background.`,
      });
    }
  }
  return { color_scheme: colorScheme, has_dark_styles: true, findings };
}

function lightBackground(element: ScannedElement): { color: string; from: 'bgcolor' | 'style' } | null {
  let found: { color: string; from: 'bgcolor' | 'style' } | null = null;
  if (element.attribs.bgcolor && isLight(element.attribs.bgcolor)) found = { color: element.attribs.bgcolor, from: 'bgcolor' };
  if (element.attribs.style && /background/i.test(element.attribs.style)) {
    for (const d of parseDeclarations(element.attribs.style)) {
      if (d.property !== 'background' && d.property !== 'background-color') continue;
      const color = /#[0-9a-f]{3,8}\b|rgba?\([^)]*\)|\b[a-z]+\b/i.exec(d.value)?.[0];
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

/** A compound selector (`td.card`, `#main`, `.btn`) matches the element. */
function matches(compound: string, element: ScannedElement): boolean {
  const parts = compound.replace(/::?[a-z-]+(\([^)]*\))?/gi, '').match(/^[a-z][\w-]*|[.#][\w-]+|\[[^\]]*\]|\*/gi);
  if (!parts || parts.length === 0) return false;
  const classes = classesOf(element);
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
