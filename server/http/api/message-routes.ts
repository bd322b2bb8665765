import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { extract } from '../../domain/mail/extract.ts';
import { hasRemoteContent, prepareHtml } from '../../domain/mail/html-preview.ts';
import { textView } from '../../domain/mail/text-view.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { DeliveryStatus, MessageRecord, Source } from '../../storage/records.ts';
import { detail, notFound } from '../errors.ts';
import { filterFrom, findMessage } from './message-query.ts';
import { bool, paging } from './params.ts';
import { messageSummary } from './wire.ts';


/**
 * The sandbox's own API over captured mail (no API key: it is the sandbox's, not the
 * service's). Lists are newest first with limit/offset paging.
 */
export function mountMessageRoutes(router: Router, sandbox: Sandbox, parseBody: Middleware): void {
  const { messages } = sandbox;

  router.get('/api/messages', async (ctx) => {
    const { offset, limit } = paging(ctx);
    const { total, items } = await messages.page(filterFrom(ctx, sandbox), offset, limit);
    ctx.body = { total, offset, limit, messages: items.map(messageSummary) };
  });

  router.delete('/api/messages', async (ctx) => {
    await messages.clear();
    ctx.status = 204;
  });

  router.get('/api/messages/:id', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const [html, text, headers] = await Promise.all([messages.html(record), messages.text(record), messages.headers(record)]);
    const view = await textView(html, text);
    ctx.body = {
      ...messageSummary(record),
      first_name: record.firstName,
      last_name: record.lastName,
      flags: record.flags,
      used_template: record.usedTemplate,
      ses_id: record.sesId,
      encrypted: record.encrypted,
      flow: record.flow,
      html,
      text: view.text,
      text_derived: view.derived,
      ...extract(html, text),
      has_remote_content: html !== null && hasRemoteContent(html),
      headers,
      raw_url: `/api/messages/${record.id}/raw`,
      html_url: html === null ? null : `/api/messages/${record.id}/html`,
      text_url: view.text === null ? null : `/api/messages/${record.id}/text`,
      attachments: record.attachments.map((a, index) => ({
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        content_id: a.contentId ?? null,
        url: attachmentUrl(record, index),
      })),
    };
  });

  router.patch('/api/messages/:id', parseBody, async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const read = bool(ctx.state.body!.data.read, 'read', undefined);
    if (read === undefined) throw detail(400, 'read must be true or false.');
    await messages.setRead(record, read);
    ctx.body = messageSummary(record);
  });

  router.delete('/api/messages/:id', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    await messages.remove([record.seq]);
    ctx.status = 204;
  });

  router.get('/api/messages/:id/html', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const html = await messages.html(record);
    if (html === null) throw detail(404, 'This capture has no HTML body.');
    const remote = ctx.query.remote === '1' || ctx.query.remote === 'true';
    ctx.set('Content-Security-Policy', previewPolicy(ctx, remote));
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = prepareHtml(html, record.attachments, (index) => attachmentUrl(record, index)).html;
  });

  router.get('/api/messages/:id/text', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const view = await textView(await messages.html(record), await messages.text(record));
    if (view.text === null) throw detail(404, 'This capture has no text body.');
    ctx.set('X-Content-Type-Options', 'nosniff');
    // Whether this is the HTML rendered as text (the capture has no plain part).
    ctx.set('X-Pigeonhole-Text-Derived', String(view.derived));
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = view.text;
  });

  router.get('/api/messages/:id/raw', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    ctx.type = 'message/rfc822';
    ctx.attachment(`${record.id}.eml`, { type: ctx.query.download !== undefined ? 'attachment' : 'inline' });
    ctx.body = await messages.raw(record);
  });

  router.get('/api/messages/:id/attachments/:index', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const attachment = /^\d+$/.test(ctx.params.index!) ? record.attachments[Number(ctx.params.index)] : undefined;
    if (!attachment) throw notFound();
    ctx.type = attachment.contentType;
    ctx.attachment(attachment.filename, { type: ctx.query.download !== undefined ? 'attachment' : 'inline' });
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
    ctx.body = await messages.attachment(record, attachment);
  });
}

/**
 * The preview frame's policy: no scripts, plugins, forms or frames, a sandboxed document
 * (opaque origin), and images, styles and fonts from this server only unless remote content
 * is asked for. Links may open in a new tab.
 */
function previewPolicy(ctx: Context, remote: boolean): string {
  // A sandboxed document has an opaque origin, so this server is also named explicitly.
  const self = /^[A-Za-z0-9.:[\]-]+$/.test(ctx.host) ? `'self' ${ctx.protocol}://${ctx.host}` : "'self'";
  const media = remote ? `${self} data: http: https:` : `${self} data:`;
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
    `style-src 'unsafe-inline' ${remote ? `${self} http: https:` : self}`,
    'sandbox allow-popups allow-popups-to-escape-sandbox',
  ].join('; ');
}

function attachmentUrl(record: MessageRecord, index: number): string {
  return `/api/messages/${record.id}/attachments/${index}`;
}

