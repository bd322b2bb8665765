import type { Context } from 'koa';

/**
 * The preview's Content-Security-Policy (docs/security.md): no scripts, plugins, forms or frames,
 * and images, styles and fonts from this server only unless remote content is asked for. The
 * inbox's preview frame (`/api/messages/{id}/html`) is also a sandboxed document (an opaque
 * origin) whose links may open in a new tab; the render URL (`/preview/{id}`) runs one script of
 * its own (`nonce`: it sizes the email's frame) and may be framed by the inbox only.
 */
export function previewPolicy(ctx: Context, remote: boolean, page: { nonce: string } | null = null): string {
  // A sandboxed document has an opaque origin, so this server is also named explicitly.
  const self = /^[A-Za-z0-9.:[\]-]+$/.test(ctx.host) ? `'self' ${ctx.protocol}://${ctx.host}` : "'self'";
  const media = remote ? `${self} data: http: https:` : `${self} data:`;
  return [
    "default-src 'none'",
    page ? `script-src 'nonce-${page.nonce}'` : "script-src 'none'",
    "object-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `img-src ${media}`,
    `media-src ${media}`,
    `font-src ${media}`,
    `style-src 'unsafe-inline' ${remote ? `${self} http: https:` : self}`,
    page ? "frame-ancestors 'self'" : 'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}
