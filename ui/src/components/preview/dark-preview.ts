/**
 * The two dark modes big clients have, applied to an email's HTML for the preview frame:
 *   styles: the email's own `@media (prefers-color-scheme: dark)` rules apply (Apple Mail,
 *           iOS Mail): the queries are rewritten to always or never match, since a sandboxed
 *           frame cannot be told to prefer dark on its own.
 *   invert: colours are forced: the page is inverted with its hue kept and images turned back
 *           (Gmail's apps, Outlook.com).
 */
import { headPosition } from '../../../../server/domain/mail/html-head.ts';
import type { ColorMode } from '../../state/view-url.ts';

export { systemPrefersDark, type ColorMode } from '../../state/view-url.ts';

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
    if (offersDark(html)) extra += '<style data-pigeonhole-dark>:root { color-scheme: dark; } html { background-color: #1c1c1e; }</style>';
  }
  if (mode === 'invert') extra += INVERT;
  // The policy must land in the real head: a `<head` in a comment or an attribute is not it, and
  // a meta policy outside the head is ignored by the browser (issue 19).
  const head = headPosition(out);
  if (head.head) return `${out.slice(0, head.at)}${extra}${out.slice(head.at)}`;
  if (head.html) return `${out.slice(0, head.at)}<head>${extra}</head>${out.slice(head.at)}`;
  return `<!DOCTYPE html><html><head>${extra}</head><body>${out}</body></html>`;
}

/**
 * The email offers dark: `<meta name="color-scheme" content="... dark">`, or a `color-scheme`
 * property with dark. Each tag and each declaration is read once (the regular expressions this
 * replaces searched to the end of the text for every `<meta` left open: quadratic).
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
  for (const match of html.matchAll(/color-scheme\s*:\s*([^;}"']*)/gi)) if (/dark/i.test(match[1]!)) return true;
  return false;
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
