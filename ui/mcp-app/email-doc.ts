/**
 * The email as a document for the nested frame: a real HTML parser (DOMParser, inert: nothing
 * loads or runs while it parses) reads it, a Content-Security-Policy goes first in its head
 * (no script, no remote content: images only as `data:`), and a dark mode is applied:
 *   styles: the email's own `prefers-color-scheme: dark` rules apply, as Apple Mail shows them;
 *   invert: colours forced by inversion with the hue kept, as the Gmail apps and Outlook.com do.
 * The frame has an empty `sandbox` too, and the host's own policy applies to it as well.
 */
import { previewPolicy } from '../../server/domain/mail/preview-policy.ts';

export type ColorMode = 'light' | 'styles' | 'invert';

/** The preview's one policy (server/domain/mail/preview-policy.ts): no server to name, so only `data:` loads. */
const POLICY = previewPolicy(null, false, 'meta');

const INVERT = `html { filter: invert(1) hue-rotate(180deg); background: #fff; }
img, picture, video, svg, [background], [style*="background-image"], [style*="url("] { filter: invert(1) hue-rotate(180deg); }`;

const DARK_QUERY = /prefers-color-scheme\s*:\s*dark/gi;
const LIGHT_QUERY = /prefers-color-scheme\s*:\s*light/gi;

export function emailDocument(html: string, mode: ColorMode): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  // Dark rules always or never apply: a frame cannot be told on its own to prefer dark.
  const [dark, light] = mode === 'styles' ? ['min-width: 0px', 'max-width: 0px'] : ['max-width: 0px', 'min-width: 0px'];
  for (const style of doc.querySelectorAll('style')) style.textContent = (style.textContent ?? '').replace(DARK_QUERY, dark).replace(LIGHT_QUERY, light);
  for (const element of doc.querySelectorAll('[media]')) element.setAttribute('media', (element.getAttribute('media') ?? '').replace(DARK_QUERY, dark).replace(LIGHT_QUERY, light));
  // Nothing that could reach out stays: frames, objects, prefetch hints, meta refreshes.
  for (const element of doc.querySelectorAll('iframe, frame, object, embed, link, meta[http-equiv], base')) element.remove();
  const policy = doc.createElement('meta');
  policy.httpEquiv = 'Content-Security-Policy';
  policy.content = POLICY;
  doc.head.prepend(policy);
  if (mode !== 'light') {
    const extra = doc.createElement('style');
    extra.textContent = mode === 'invert' ? INVERT : ':root { color-scheme: dark; } html { background-color: #1c1c1e; color: #f2f2f7; }';
    doc.head.append(extra);
  }
  return `<!DOCTYPE html>${doc.documentElement.outerHTML}`;
}

/** A plain-text mail, shown as the client would: preformatted, wrapped. */
export function textDocument(text: string, mode: ColorMode): string {
  const doc = document.implementation.createHTMLDocument('');
  const pre = doc.createElement('pre');
  pre.textContent = text;
  pre.style.cssText = 'white-space: pre-wrap; font: 14px/1.5 ui-monospace, monospace; margin: 16px;';
  doc.body.append(pre);
  return emailDocument(doc.documentElement.outerHTML, mode);
}
