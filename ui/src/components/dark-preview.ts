/**
 * The two dark modes big clients have, applied to an email's HTML for the preview frame:
 *   styles: the email's own `@media (prefers-color-scheme: dark)` rules apply (Apple Mail,
 *           iOS Mail): the queries are rewritten to always or never match, since a sandboxed
 *           frame cannot be told to prefer dark on its own.
 *   invert: colours are forced: the page is inverted with its hue kept and images turned back
 *           (Gmail's apps, Outlook.com).
 */
export type ColorMode = 'light' | 'styles' | 'invert';

/** The system prefers dark: a plain frame would apply the email's dark styles. */
export function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
}

export const COLOR_MODES: { id: ColorMode; label: string; title: string }[] = [
  { id: 'light', label: 'Light', title: 'As sent, in a light client' },
  { id: 'styles', label: 'Dark: own styles', title: "The email's prefers-color-scheme: dark styles, as Apple Mail shows it" },
  { id: 'invert', label: 'Dark: inverted', title: 'Colours forced dark by inversion, as the Gmail apps and Outlook.com do' },
];

const INVERT = `<style data-pigeonhole-dark>
html { filter: invert(1) hue-rotate(180deg); background: #fff; }
img, picture, video, svg, [background], [style*="background-image"], [style*="url("] { filter: invert(1) hue-rotate(180deg); }
</style>`;

/** The email as a document for a srcdoc frame in the given mode; `policy` is put first as a CSP meta. */
export function colorModeDocument(html: string, mode: ColorMode, policy: string): string {
  let out = html;
  let extra = `<meta http-equiv="Content-Security-Policy" content="${policy.replace(/"/g, '&quot;')}">`;
  if (mode === 'light' || mode === 'invert') {
    // A light client, or one that inverts instead of reading prefers-color-scheme (Gmail's
    // apps, Outlook.com): the email's dark styles never apply, whatever the system prefers.
    out = out.replace(/prefers-color-scheme\s*:\s*dark/gi, 'max-width: 0px').replace(/prefers-color-scheme\s*:\s*light/gi, 'min-width: 0px');
  } else if (mode === 'styles') {
    out = out.replace(/prefers-color-scheme\s*:\s*dark/gi, 'min-width: 0px').replace(/prefers-color-scheme\s*:\s*light/gi, 'max-width: 0px');
    // A client that honours color-scheme gives the email a dark canvas and default text.
    if (/<meta[^>]+name=["']?color-scheme["']?[^>]*content=["'][^"']*dark/i.test(html) || /color-scheme\s*:\s*[^;}"']*dark/i.test(html))
      extra += '<style data-pigeonhole-dark>:root { color-scheme: dark; } html { background-color: #1c1c1e; }</style>';
  }
  if (mode === 'invert') extra += INVERT;
  const head = /<head\b[^>]*>/i.exec(out);
  if (head) return `${out.slice(0, head.index + head[0].length)}${extra}${out.slice(head.index + head[0].length)}`;
  const root = /<html\b[^>]*>/i.exec(out);
  if (root) return `${out.slice(0, root.index + root[0].length)}<head>${extra}</head>${out.slice(root.index + root[0].length)}`;
  return `<!DOCTYPE html><html><head>${extra}</head><body>${out}</body></html>`;
}

/** The preview's policy for a srcdoc frame (as the server's for /html): no scripts; remote content only when asked. */
export function previewPolicy(origin: string, remote: boolean): string {
  const media = remote ? `${origin} data: http: https:` : `${origin} data:`;
  return [
    "default-src 'none'",
    "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `img-src ${media}`,
    `media-src ${media}`,
    `font-src ${media}`,
    `style-src 'unsafe-inline' ${remote ? `${origin} http: https:` : origin}`,
  ].join('; ');
}
