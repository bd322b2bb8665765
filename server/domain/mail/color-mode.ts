import { headPosition } from './html-head.ts';

/**
 * The render URL's modes (docs/inbox.md, "The render URL"), the same as the inbox preview's:
 *   light:    as a light client shows it: the email's dark styles never apply;
 *   dark:     the email's own `@media (prefers-color-scheme: dark)` rules apply (Apple Mail,
 *             iOS Mail), with a dark canvas when the email says it supports dark;
 *   inverted: colours forced by inversion with the hue kept and images turned back (the Gmail
 *             apps, Outlook.com).
 * The queries are rewritten to always or never match, so the mode does not depend on what the
 * viewing browser prefers. Each step is one pass over the HTML.
 */
export const COLOR_MODES = ['light', 'dark', 'inverted'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];

const DARK_QUERY = /prefers-color-scheme\s*:\s*dark/gi;
const LIGHT_QUERY = /prefers-color-scheme\s*:\s*light/gi;
const INVERT = `<style data-pigeonhole-dark>
html { filter: invert(1) hue-rotate(180deg); background: #fff; }
img, picture, video, svg, [background], [style*="background-image"], [style*="url("] { filter: invert(1) hue-rotate(180deg); }
</style>`;
const DARK_CANVAS = '<style data-pigeonhole-dark>:root { color-scheme: dark; } html { background-color: #1c1c1e; }</style>';

/** The email's HTML as a document in the given mode. */
export function inColorMode(html: string, mode: ColorMode): string {
  let out: string;
  let extra = '';
  if (mode === 'dark') {
    out = html.replace(DARK_QUERY, 'min-width: 0px').replace(LIGHT_QUERY, 'max-width: 0px');
    if (offersDark(html)) extra = DARK_CANVAS;
  } else {
    out = html.replace(DARK_QUERY, 'max-width: 0px').replace(LIGHT_QUERY, 'min-width: 0px');
    if (mode === 'inverted') extra = INVERT;
  }
  if (extra === '') return out;
  const head = headPosition(out);
  if (head.head) return `${out.slice(0, head.at)}${extra}${out.slice(head.at)}`;
  if (head.html) return `${out.slice(0, head.at)}<head>${extra}</head>${out.slice(head.at)}`;
  return `<!DOCTYPE html><html><head>${extra}</head><body>${out}</body></html>`;
}

/** The email offers dark: a color-scheme meta or property that names dark. Each tag and declaration is read once. */
function offersDark(html: string): boolean {
  const meta = /<meta\b/gi;
  for (let found = meta.exec(html); found; found = meta.exec(html)) {
    const end = html.indexOf('>', found.index);
    if (end < 0) break;
    const tag = html.slice(found.index, end);
    if (/name=["']?color-scheme["']?/i.test(tag) && /content=["'][^"']*dark/i.test(tag.slice(tag.search(/content=/i)))) return true;
    meta.lastIndex = end;
  }
  for (const match of html.matchAll(/color-scheme\s*:\s*([^;}"']*)/gi)) if (/dark/i.test(match[1]!)) return true;
  return false;
}
