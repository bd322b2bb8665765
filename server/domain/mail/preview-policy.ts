/**
 * The one Content-Security-Policy of an email preview, for the server's preview page (a response
 * header), the UI's srcdoc frames and the MCP app's nested frame (a meta tag the browser's own
 * parser puts first in the head). No imports, so the UI may share it (scripts/check-layers.mjs).
 */

/**
 * No scripts, plugins, forms or frames; images, media, styles and fonts from `self` only unless
 * remote content is asked for. `self` is what names this server (`'self' http://host:port`: a
 * sandboxed document has an opaque origin); null where no server is reachable (the MCP app in a
 * host's frame), so only `data:` loads. As a header it also makes the document sandboxed
 * (a meta policy cannot, and browsers warn about the directive there). For the render URL's
 * page (`{nonce}`, a header), the page's own one script runs and only the inbox may frame it;
 * the email, in a frame of it without `allow-scripts`, inherits the rest.
 */
export function previewPolicy(self: string | null, remote: boolean, delivery: 'header' | 'meta' | { nonce: string }): string {
  const sources = (...list: (string | null)[]) => list.filter((source) => source !== null).join(' ');
  const media = remote ? sources(self, 'data: http: https:') : sources(self, 'data:');
  const page = typeof delivery === 'object' ? delivery : null;
  const directives = [
    "default-src 'none'",
    page ? `script-src 'nonce-${page.nonce}'` : "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `img-src ${media}`,
    `media-src ${media}`,
    `font-src ${media}`,
    sources("style-src 'unsafe-inline'", self, remote ? 'http: https:' : null),
  ];
  if (delivery === 'header') directives.push('sandbox allow-popups allow-popups-to-escape-sandbox');
  if (page) directives.push("frame-ancestors 'self'");
  return directives.join('; ');
}
