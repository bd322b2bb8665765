import { z } from 'zod';
import type { MessageDetail, SearchPage } from '../../../client/pigeonhole-client.ts';
import { FORCED_STATUSES, type MessageRecord } from '../../domain/entities.ts';
import { extract } from '../../domain/mail/extract.ts';
import { visibleFileName } from '../../domain/mail/file-name.ts';
import { type ColorMode, colorModeHtml } from '../../domain/mail/color-mode.ts';
import { CLIENT_VIEWS } from '../../domain/views/ids.ts';
import { hasRemoteContent, prepareHtml } from '../../domain/mail/html-preview.ts';
import { previewPolicy } from '../../domain/mail/preview-policy.ts';
import { textView } from '../../domain/mail/text-view.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { messageSummary } from '../../api-representations.ts';
import { detail, notFound } from '../errors.ts';
import { signedPath } from '../signed-reads.ts';
import { detail as detailDoc, json, noContent, notFound as notFoundDoc } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { oneOf, paging, present, requiredTrueFalse, text, trueFalse, wholeNumber } from './input-fields.ts';
import { attachmentPage, attachmentUrl, ATTACHMENTS_PAGE, readPart } from './capture-reads.ts';
import { capture, captureUrl, filters, messageFilter } from './capture-query.ts';
import { route, type ApiContext, type ApiRoute } from './route.ts';

const tags = ['messages'];
const COLOR_MODES = ['light', 'styles', 'invert'] as const satisfies readonly ColorMode[];
const params = { id: 'Message (capture) id.' };

/** The inbox's own filters, beside the common ones (GET /api/messages). */
const inboxFilters = {
  blocked: trueFalse('blocked', undefined).describe('true or false.'),
  redirected: trueFalse('redirected', undefined).describe('true or false.'),
  read: trueFalse('read', undefined).describe('true or false.'),
};

/**
 * The sandbox's own API over captured mail (no API key: it is the sandbox's, not the service's),
 * and the testing toolkit over it: the latest, search, links and codes, forcing a delivery
 * outcome (wait and expect: wait-routes.ts). Lists are newest first with limit/offset paging.
 * Latest and search come before /api/messages/:id so they are not read as ids.
 */
export function messageRoutes(sandbox: Sandbox): ApiRoute[] {
  const { messages } = sandbox;
  const find = async (ctx: ApiContext): Promise<MessageRecord> => (await messages.get(ctx.params.id!)) ?? raise(notFound());

  return [
    route({
      method: 'GET',
      path: '/api/messages',
      query: z.object({ ...paging(), ...filters(sandbox), ...inboxFilters }),
      doc: {
        summary: 'List captures',
        description: 'Newest first, summaries only (search adds links and codes).',
        tags,
        responses: { 200: json('A page.', S.MessageList), 400: detailDoc('A query parameter has a bad value.', 'limit must be a whole number from 1 to 500.') },
      },
      async handle(ctx, { query: { limit, offset, ...filter } }) {
        const { total, items } = await messages.page(messageFilter(filter), offset, limit);
        ctx.body = { total, offset, limit, messages: items.map((record) => messageSummary(record, sandbox.blocks)) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/messages',
      destructive: true,
      doc: { summary: 'Delete every capture', description: 'Captures and their files.', tags, responses: { 204: noContent() } },
      async handle(ctx) {
        await messages.clear();
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/latest',
      query: z.object(filters(sandbox)),
      doc: {
        summary: 'Latest capture',
        description: 'The newest capture matching the filters, with its bodies, links and codes.',
        tags,
        responses: {
          200: json('The capture.', S.Capture),
          400: detailDoc('A filter has a bad value.', 'source must be one of api, smtp, flow.'),
          404: detailDoc('Nothing matches.', 'No message matches the filters.'),
        },
      },
      async handle(ctx, { query }) {
        const record = (await messages.page(messageFilter(query), 0, 1)).items[0];
        if (!record) throw detail(404, 'No message matches the filters.');
        ctx.body = await capture(sandbox, record);
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/search',
      query: z.object({ ...filters(sandbox), ...paging() }),
      doc: {
        summary: 'Search captures',
        description: 'Newest first, with the same filters as wait; each result carries its links and codes (bodies: GET its url).',
        tags,
        responses: {
          200: json('A page.', S.CaptureSearch),
          400: detailDoc('A query parameter has a bad value.', 'limit must be a whole number from 1 to 500.'),
        },
      },
      async handle(ctx, { query: { limit, offset, ...filter } }) {
        const { total, items } = await messages.page(messageFilter(filter), offset, limit);
        const results = await Promise.all(
          items.map(async (record) => {
            const [html, body] = await Promise.all([messages.html(record), messages.text(record)]);
            return { ...messageSummary(record, sandbox.blocks), ...extract(readPart(html), readPart(body)), url: captureUrl(record) };
          }),
        );
        ctx.body = { total, offset, limit, messages: results } satisfies SearchPage;
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id',
      query: z.object({
        attachments_from: wholeNumber('attachments_from', 0, 0, Number.MAX_SAFE_INTEGER).describe(
          `The first attachment listed (default 0); ${ATTACHMENTS_PAGE} are listed at most.`,
        ),
      }),
      doc: {
        summary: 'One capture',
        description: `Summary plus names, flags, template flag, the body before the account template (\`unwrapped_html\`), SES id, bodies, \`text_derived\` (true when \`text\` is the HTML rendered as text because there is no plain part), links and codes, headers, raw_url and attachments (${ATTACHMENTS_PAGE} at most from \`attachments_from\`; \`attachment_count\` has them all). Links, codes, a derived text and \`has_remote_content\` are read from the first 256 KB of each body.`,
        tags,
        params,
        responses: { 200: json('The capture.', S.MessageDetail), 404: notFoundDoc() },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        const [html, text, headers, unwrapped] = await Promise.all([
          messages.html(record),
          messages.text(record),
          messages.headers(record),
          messages.unwrappedHtml(record),
        ]);
        const [readHtml, readText] = [readPart(html), readPart(text)];
        // A plain part is served whole; one rendered from the HTML comes from its first 256 KB.
        const view = await textView(readHtml, text);
        ctx.body = {
          ...messageSummary(record, sandbox.blocks),
          first_name: record.firstName,
          last_name: record.lastName,
          flags: record.flags,
          used_template: record.usedTemplate,
          unwrapped_html: unwrapped,
          ses_id: record.sesId,
          encrypted: record.encrypted,
          flow: record.flow,
          html,
          text: view.text,
          text_derived: view.derived,
          ...extract(readHtml, readText),
          has_remote_content: readHtml !== null && hasRemoteContent(readHtml),
          headers,
          raw_url: `/api/messages/${record.id}/raw`,
          html_url: html === null ? null : `/api/messages/${record.id}/html`,
          text_url: view.text === null ? null : `/api/messages/${record.id}/text`,
          attachments: attachmentPage(record, query.attachments_from),
        } satisfies MessageDetail;
      },
    }),
    route({
      method: 'PATCH',
      path: '/api/messages/:id',
      body: z.object({ read: requiredTrueFalse('read') }),
      doc: {
        summary: 'Mark read or unread',
        tags,
        params,
        bodyExample: { read: true },
        responses: { 200: json('The summary.', S.MessageSummary), 400: detailDoc('Bad body.', 'read must be true or false.'), 404: notFoundDoc() },
      },
      async handle(ctx, { body }) {
        const record = await find(ctx);
        await messages.setRead(record, body.read);
        ctx.body = messageSummary(record, sandbox.blocks);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/messages/:id',
      destructive: true,
      doc: { summary: 'Delete a capture', description: 'The capture and its files.', tags, params, responses: { 204: noContent(), 404: notFoundDoc() } },
      async handle(ctx) {
        const record = await find(ctx);
        await messages.remove([record.seq]);
        ctx.status = 204;
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id/html',
      query: z.object({
        remote: text()
          .transform((value) => value === '1' || value === 'true')
          .describe('1 (or true) to allow remote images, styles and fonts.'),
        mode: oneOf('mode', COLOR_MODES).describe(
          "A client's colour scheme: light (the email's dark rules never apply), styles (they always do, as Apple Mail in dark mode), invert (colours forced dark, as the Gmail apps); absent: as sent.",
        ),
        client: oneOf('client', CLIENT_VIEWS).describe(
          'A client view (docs/checks.md, "Client views"): the HTML as that client would show it, approximately; with it, `mode` styles is the client\'s own dark mode. The same view as GET /api/messages/{id}/render, served as the preview page.',
        ),
      }),
      doc: {
        summary: 'HTML for the preview',
        description:
          'cid: references rewritten, scripts forbidden by CSP, remote images blocked unless `?remote=1` (and then frames, objects, embeds and `<link>` elements made inert: they reach a host past the policy).',
        tags,
        params,
        responses: {
          200: { description: 'text/html', content: { 'text/html': { type: 'string' } } },
          404: detailDoc('No such capture, or it has no HTML body.', 'This capture has no HTML body.'),
        },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        const html = await messages.html(record);
        if (html === null) throw detail(404, 'This capture has no HTML body.');
        ctx.set('Content-Security-Policy', previewPolicy(previewSelf(ctx), query.remote, 'header'));
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.type = 'text/html; charset=utf-8';
        // Signed: the sandboxed frame's image requests are cross-site and carry no session cookie.
        const attachment = (index: number) => signedPath(attachmentUrl(record, index));
        if (query.client) {
          // A client view: the view applies the mode as that client would (views/render.ts).
          const { renderClientView } = await import('../../domain/views/render.ts');
          const view = renderClientView(html, query.client, query.mode === 'invert' ? 'inverted' : query.mode === 'styles' ? 'dark' : 'light');
          ctx.body = prepareHtml(view.html, record.attachments, attachment, { local: !query.remote }).html;
          return;
        }
        const prepared = prepareHtml(html, record.attachments, attachment, { local: !query.remote }).html;
        ctx.body = query.mode ? colorModeHtml(prepared, query.mode) : prepared;
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id/text',
      doc: {
        summary: 'Text body',
        description: 'The plain part; when the capture has none, its HTML rendered as text. `X-Pigeonhole-Text-Derived: true` says which.',
        tags,
        params,
        responses: {
          200: {
            description: 'text/plain',
            headers: {
              'X-Pigeonhole-Text-Derived': {
                description: 'true: rendered from the HTML (no plain part); false: the plain part.',
                schema: { type: 'string', enum: ['true', 'false'] },
              },
            },
            content: { 'text/plain': { type: 'string' } },
          },
          404: detailDoc('No such capture, or it has neither a plain nor an HTML part.', 'This capture has no text body.'),
        },
      },
      async handle(ctx) {
        const record = await find(ctx);
        const view = await textView(readPart(await messages.html(record)), await messages.text(record));
        if (view.text === null) throw detail(404, 'This capture has no text body.');
        ctx.set('X-Content-Type-Options', 'nosniff');
        // Whether this is the HTML rendered as text (the capture has no plain part).
        ctx.set('X-Pigeonhole-Text-Derived', String(view.derived));
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = view.text;
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id/raw',
      query: z.object({ download: present().describe('Present: Content-Disposition attachment (save it).') }),
      doc: {
        summary: 'The .eml',
        description: 'RFC 5322 message; `?download` to save it.',
        tags,
        params,
        responses: { 200: { description: 'message/rfc822', content: { 'message/rfc822': { type: 'string' } } }, 404: notFoundDoc() },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        ctx.type = 'message/rfc822';
        ctx.attachment(`${record.id}.eml`, { type: query.download ? 'attachment' : 'inline' });
        // The sender's bytes: never sniffed as another type, never a document that runs anything.
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
        ctx.body = await messages.raw(record);
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id/attachments/:index',
      query: z.object({ download: present().describe('Present: save it.') }),
      doc: {
        summary: 'An attachment',
        description:
          'Its bytes, as a download (`Content-Disposition: attachment`); PNG, JPEG, GIF and WebP images are shown inline unless `?download`. A type that a browser could run or render as a document (HTML, XML, SVG, scripts) is served as application/octet-stream.',
        tags,
        params: { ...params, index: 'The attachment, from 0.' },
        responses: {
          200: { description: 'The attachment.', content: { 'application/octet-stream': { type: 'string', format: 'binary' } } },
          404: notFoundDoc(),
        },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        const attachment = /^\d+$/.test(ctx.params.index!) ? record.attachments[Number(ctx.params.index)] : undefined;
        if (!attachment) throw notFound();
        const type = servedType(attachment.contentType);
        // The sender chose the bytes and the type: a download, unless an image a browser only decodes.
        const inline = INLINE_IMAGES.has(type) && !query.download;
        // Bidirectional controls as visible escapes: the saved name reads as the bytes say.
        ctx.set(
          'Content-Disposition',
          contentDisposition(inline ? 'inline' : 'attachment', visibleFileName(attachment.filename) || `attachment-${ctx.params.index}`),
        );
        ctx.type = type;
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
        ctx.body = await messages.attachment(record, attachment);
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/:id/extract',
      doc: {
        summary: 'Links and one-time codes',
        description:
          'Links: every `<a href>` with its visible text and every URL written as text in the HTML or the plain part (`www.` forms; bare domains only with a path), de-duplicated by href in reading order, entities decoded, sentence punctuation left out; an anchor whose text is another URL (a tracking redirect) gives both. Codes, from visible text only: 4–8 digits or capital letters and digits (one digit at least), also "123 456", in a sentence with code/OTP/PIN/verification/passcode (or on the line after one); not amounts, years in dates, numbers in URLs or after # or a word like order or invoice.',
        tags,
        params,
        responses: {
          200: json('Extracted.', S.Extracted, { links: [{ href: 'https://app.example/verify?t=abc', text: 'Verify' }], codes: ['482913'] }),
          404: notFoundDoc(),
        },
      },
      async handle(ctx) {
        const record = await find(ctx);
        const [html, body] = await Promise.all([messages.html(record), messages.text(record)]);
        ctx.body = extract(readPart(html), readPart(body));
      },
    }),
    route({
      method: 'POST',
      path: '/api/messages/:id/status',
      body: z.object({ status: oneOf('status', FORCED_STATUSES, { required: true }) }),
      doc: {
        summary: 'Force the delivery status',
        description: 'A bounce or complaint blocks the original recipient for later sends of the team (docs/api-contract.md §6). Announced as message.status.',
        tags,
        params,
        bodyExample: { status: 'bounced' },
        responses: {
          200: json('The summary with its new status.', S.MessageSummary),
          400: detailDoc('Bad status.', 'status must be one of delivered, bounced, complained, failed.'),
          404: notFoundDoc(),
        },
      },
      async handle(ctx, { body }) {
        const record = await find(ctx);
        ctx.body = messageSummary(await messages.setStatus(record, body.status!), sandbox.blocks);
      },
    }),
  ];
}

/** Images served inline (the preview shows them): decoded by the browser, never run. SVG is not one: it can carry scripts. */
const INLINE_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Types a browser may run or render as a document, whatever the disposition: never served under them. */
const ACTIVE_TYPE = /script|html|xml|svg|xsl|css|x-mixed-replace/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** An attachment's type as served: the sender's media type (no parameters) unless it is malformed or could run. */
function servedType(contentType: string): string {
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(essence) && !ACTIVE_TYPE.test(essence) ? essence : 'application/octet-stream';
}

/**
 * RFC 6266: `filename` in plain ASCII (other characters as `?`), and the name itself in
 * `filename*` (UTF-8, percent-encoded) when it is not plain ASCII.
 */
function contentDisposition(type: 'inline' | 'attachment', filename: string): string {
  const fallback = `"${filename.replace(/[^\x20-\x7e]/g, '?').replace(/[\\"]/g, '\\$&')}"`;
  if (/^[\x20-\x7e]*$/.test(filename)) return `${type}; filename=${fallback}`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${type}; filename=${fallback}; filename*=UTF-8''${encoded}`;
}

/** What names this server in the preview's policy: a sandboxed document has an opaque origin, so `'self'` alone is not enough. */
export function previewSelf(ctx: ApiContext): string {
  return /^[A-Za-z0-9.:[\]-]+$/.test(ctx.host) ? `'self' ${ctx.protocol}://${ctx.host}` : "'self'";
}

function raise(error: Error): never {
  throw error;
}
