/**
 * The two dark modes big clients have, applied to an email's HTML for the preview, by the
 * server's preview page (`?mode=`) and the UI's Templates page:
 *   styles: the email's own `@media (prefers-color-scheme: dark)` rules apply (Apple Mail,
 *           iOS Mail): the queries are rewritten to always match, since a sandboxed frame
 *           cannot be told to prefer dark on its own.
 *   invert: colours are forced: the page is inverted with its hue kept and images turned back
 *           (Gmail's apps, Outlook.com).
 *   light:  a light client: the email's dark rules never apply, whatever the system prefers.
 * No imports, so the UI may share it (scripts/check-layers.mjs). Every step is one pass.
 */

export type ColorMode = 'light' | 'styles' | 'invert';

const INVERT = `<style data-pigeonhole-dark>
:root { filter: invert(1) hue-rotate(180deg); }
:where(html) { background: #fff; }
img, picture, video, svg, [background], [style*="background-image"], [style*="url("] { filter: invert(1) hue-rotate(180deg); }
</style>`;

// Zero specificity: an email's own `html { background }` still wins, as in a client.
const DARK_CANVAS = '<style data-pigeonhole-dark>:where(:root) { color-scheme: dark; } :where(html) { background-color: #1c1c1e; }</style>';

/**
 * The email's HTML as a client in `mode` shows it. The styles a mode adds come after the email
 * (a style element applies wherever it stands), so no head has to be found for them: what
 * keeps remote content out is the preview's policy, never where a tag lands.
 */
export function colorModeHtml(html: string, mode: ColorMode): string {
  if (mode === 'styles') {
    const out = html.replace(/prefers-color-scheme\s*:\s*dark/gi, 'min-width: 0px').replace(/prefers-color-scheme\s*:\s*light/gi, 'max-width: 0px');
    // A client that honours color-scheme gives the email a dark canvas and default text.
    return offersDark(html) ? out + DARK_CANVAS : out;
  }
  // A light client, or one that inverts instead of reading prefers-color-scheme (Gmail's apps,
  // Outlook.com): the email's dark styles never apply, whatever the system prefers.
  const out = html.replace(/prefers-color-scheme\s*:\s*dark/gi, 'max-width: 0px').replace(/prefers-color-scheme\s*:\s*light/gi, 'min-width: 0px');
  return mode === 'invert' ? out + INVERT : out;
}

/**
 * The email offers dark: `<meta name="color-scheme" content="... dark">`, or a `color-scheme`
 * property with dark. Each tag and each declaration is read once.
 */
function offersDark(html: string): boolean {
  for (let at = html.search(/<meta/i); at >= 0; ) {
    const end = html.indexOf('>', at);
    if (end < 0) break;
    const tag = html.slice(at, end);
    if (/name=["']?color-scheme["']?/i.test(tag) && /content=["'][^"']*dark/i.test(tag.slice(tag.search(/content=/i)))) return true;
    const next = html.slice(end).search(/<meta/i);
    at = next < 0 ? -1 : end + next;
  }
  // The property, not the `prefers-color-scheme` media feature.
  for (const match of html.matchAll(/(?<![\w-])color-scheme\s*:\s*([^;}"']*)/gi)) if (/dark/i.test(match[1]!)) return true;
  return false;
}
