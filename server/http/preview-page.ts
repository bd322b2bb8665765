import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { type ColorMode, colorModeHtml } from '../domain/mail/color-mode.ts';
import { prepareHtml } from '../domain/mail/html-preview.ts';
import { previewPolicy } from '../domain/mail/preview-policy.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import { CLIENT_VIEWS, type ClientViewId, type RenderMode } from '../domain/views/ids.ts';
import { attachmentUrl } from './api/capture-reads.ts';
import { previewSelf } from './api/message-routes.ts';
import { detail, notFound } from './errors.ts';
import { signedPath } from './signed-reads.ts';

/** The named widths, as the inbox's preview has them; desktop is the whole window. */
const WIDTHS: Record<string, number | null> = { phone: 375, tablet: 768, desktop: null };
/** The render URL's modes, and the preview's colour mode each is (domain/mail/color-mode.ts). */
const MODES: Record<RenderMode, ColorMode> = { light: 'light', dark: 'styles', inverted: 'invert' };
const MIN_WIDTH = 200;
const MAX_WIDTH = 4000;

/** What the render URL was asked for, checked. */
interface RenderQuery {
  width: number | null;
  mode: RenderMode;
  /** A client view (docs/checks.md, "Client views"), or null: the email as sent. */
  client: ClientViewId | null;
  remote: boolean;
}

/** The render URL's query: each value checked, a bad one refused naming what is allowed. */
function renderQuery(search: URLSearchParams): RenderQuery {
  const widthText = (search.get('width') ?? 'desktop').trim().toLowerCase();
  let width: number | null;
  if (Object.hasOwn(WIDTHS, widthText)) width = WIDTHS[widthText]!;
  else if (/^\d{1,5}$/.test(widthText) && Number(widthText) >= MIN_WIDTH && Number(widthText) <= MAX_WIDTH) width = Number(widthText);
  else throw detail(400, `width must be phone, tablet, desktop or a number of pixels from ${MIN_WIDTH} to ${MAX_WIDTH}.`);
  const modeName = (search.get('mode') ?? 'light').trim().toLowerCase();
  if (!Object.hasOwn(MODES, modeName)) throw detail(400, `mode must be one of ${Object.keys(MODES).join(', ')}.`);
  // As GET /api/messages/{id}/render takes it, and refused in its words.
  const clientName = search.get('client')?.trim() ?? '';
  const client = clientName === '' ? null : (CLIENT_VIEWS as readonly string[]).includes(clientName) ? (clientName as ClientViewId) : undefined;
  if (client === undefined) throw detail(400, `client must be one of ${CLIENT_VIEWS.join(', ')}.`);
  const remote = search.get('remote');
  return { width, mode: modeName as RenderMode, client, remote: remote === '1' || remote === 'true' };
}

/**
 * The chrome-less render URL, `/preview/{id}?width=phone|tablet|desktop|<px>&mode=light|dark|inverted&client=<id>`
 * (docs/inbox.md): the email alone, for screenshots and visual-regression tools; with `client`,
 * the client view of GET /api/messages/{id}/render (which applies the mode as that client would). The email is
 * laid out in a frame exactly `width` pixels wide (its media queries see that width), sized to
 * the email's whole height by one script of the page's own, under the preview's policy: the
 * email runs no script, loads nothing remote unless `remote=1`, and only the inbox may frame
 * the page; another site can neither frame it nor open it (the browser guard).
 */
export function previewPage(sandbox: Sandbox) {
  return async (ctx: Context) => {
    const query = renderQuery(ctx.URL.searchParams);
    const record = await sandbox.messages.get(ctx.params.id as string);
    if (!record) throw notFound();
    const html = await sandbox.messages.html(record);
    if (html === null) throw detail(404, 'This capture has no HTML body.');
    const attachment = (index: number) => signedPath(attachmentUrl(record, index));
    const email = query.client
      ? prepareHtml((await import('../domain/views/render.ts')).renderClientView(html, query.client, query.mode).html, record.attachments, attachment, {
          local: !query.remote,
        }).html
      : colorModeHtml(prepareHtml(html, record.attachments, attachment, { local: !query.remote }).html, MODES[query.mode]);
    const nonce = randomBytes(16).toString('base64');
    ctx.set('Content-Security-Policy', previewPolicy(previewSelf(ctx as Parameters<typeof previewSelf>[0]), query.remote, { nonce }));
    ctx.set('X-Frame-Options', 'SAMEORIGIN');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(record.subject, email, query.width, nonce);
  };
}

/** The page: no margin, the email's frame at the width asked for, grown to the email's height. */
function page(subject: string, email: string, width: number | null, nonce: string): string {
  const frameWidth = width === null ? '100%' : `${width}px`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title>
<style>html,body{margin:0;padding:0}iframe{display:block;border:0;width:${frameWidth};height:0}</style></head>
<body><iframe title="${escapeHtml(subject)}" sandbox="allow-same-origin allow-popups allow-popups-to-escape-sandbox" srcdoc="${escapeHtml(email)}"></iframe>
<script nonce="${nonce}">
const frame = document.querySelector('iframe');
const fit = () => { const root = frame.contentDocument && frame.contentDocument.documentElement; if (root) frame.style.height = root.scrollHeight + 'px'; };
frame.addEventListener('load', () => { fit(); new ResizeObserver(fit).observe(frame.contentDocument.documentElement); });
</script></body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
