/**
 * The one Content-Security-Policy of an email preview, for the server's preview page (a response
 * header) and the UI's srcdoc frames (a meta tag the browser's own parser puts first in the head).
 * No imports, so the UI may share it (scripts/check-layers.mjs).
 */

/**
 * No scripts, plugins, forms or frames; images, media, styles and fonts from `self` only unless
 * remote content is asked for. `self` is what names this server (`'self' http://host:port`: a
 * sandboxed document has an opaque origin). As a header it also makes the document sandboxed
 * (a meta policy cannot, and browsers warn about the directive there).
 */
export function previewPolicy(self: string, remote: boolean, delivery: 'header' | 'meta'): string {
  const media = remote ? `${self} data: http: https:` : `${self} data:`;
  const directives = [
    "default-src 'none'",
    "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `img-src ${media}`,
    `media-src ${media}`,
    `font-src ${media}`,
    `style-src 'unsafe-inline' ${remote ? `${self} http: https:` : self}`,
  ];
  if (delivery === 'header') directives.push('sandbox allow-popups allow-popups-to-escape-sandbox');
  return directives.join('; ');
}
