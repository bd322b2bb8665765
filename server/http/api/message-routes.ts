import { z } from 'zod';
import type { Capture, ExpectFailure, ExpectResult, MessageDetail, SearchPage } from '../../../client/pigeonhole-client.ts';
import { DELIVERY_STATUSES, FORCED_STATUSES, SOURCES, type MessageRecord } from '../../domain/entities.ts';
import { extract } from '../../domain/mail/extract.ts';
import { visibleFileName } from '../../domain/mail/file-name.ts';
import { type ColorMode, colorModeHtml } from '../../domain/mail/color-mode.ts';
import { hasRemoteContent, prepareHtml } from '../../domain/mail/html-preview.ts';
import { previewPolicy } from '../../domain/mail/preview-policy.ts';
import { textView } from '../../domain/mail/text-view.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import { expectMessages, waitForMessage } from '../../domain/messages/message-wait.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { messageSummary } from '../../wire.ts';
import { detail, HttpError, notFound } from '../errors.ts';
import { signedPath } from '../signed-reads.ts';
import { detail as detailDoc, json, noContent, notFound as notFoundDoc } from '../openapi/docs.ts';
import * as S from '../openapi/schemas.ts';
import {
  captureId,
  namespace,
  oneOf,
  paging,
  present,
  requiredTrueFalse,
  requiredWholeNumber,
  sender,
  since,
  team,
  text,
  trueFalse,
  wholeNumber,
} from './fields.ts';
import { attachmentPage, attachmentUrl, ATTACHMENTS_PAGE, readPart } from './capture-reads.ts';
import { refusalBody } from './refusals.ts';
import { route, type ApiContext, type ApiRoute } from './route.ts';

const WAIT_DEFAULT_MS = 10_000;
const WAIT_MAX_MS = 120_000;
/** expect: how long no further match may arrive once exactly `count` matched (capped by `within`). */
const SETTLE_DEFAULT_MS = 250;
/**
 * expect with count 0 ("expect none"): `within` unless given. Short, because a passing check
 * waits all of it (a count of 1 or more answers as soon as the mail is there, so its longer
 * default costs a passing test nothing): docs/testing.md, "Expecting no email".
 */
const EXPECT_NONE_DEFAULT_MS = 1000;
const SETTLE_MAX_MS = 10_000;
const EXPECT_MAX_COUNT = 1000;

const tags = ['messages'];
const COLOR_MODES = ['light', 'styles', 'invert'] as const satisfies readonly ColorMode[];
const params = { id: 'Message (capture) id.' };

/**
 * The filters every capture list and lookup takes (the inbox list, search, latest, wait-for),
 * in the order they are checked.
 */
function filters(sandbox: Sandbox) {
  return {
    since: since().describe('Only captures created at or after this ISO-8601 time.'),
    after: captureId('after').describe('Only captures after the capture with this id (newer).'),
    namespace: namespace().describe('Only captures of this namespace: the `+tag` of an address (docs/testing.md), any case.'),
    recipient: text().describe('Any address on the capture: original recipient, To, Cc or Bcc (any case).'),
    subject: text().describe('Case-insensitive substring of the subject.'),
    q: text().describe("Words, each found in the subject, an address, the From, the sender id or the body's text (its first 1,000 characters)."),
    sender: sender(sandbox).describe('Sender id, or an API key (resolved to its sender).'),
    team: team(sandbox).describe('Team id.'),
    source: oneOf('source', SOURCES).describe('How it arrived.'),
    status: oneOf('status', DELIVERY_STATUSES).describe('Delivery status.'),
  };
}

/** The inbox's own filters, beside the common ones (GET /api/messages). */
const inboxFilters = {
  blocked: trueFalse('blocked', undefined).describe('true or false.'),
  redirected: trueFalse('redirected', undefined).describe('true or false.'),
  read: trueFalse('read', undefined).describe('true or false.'),
};

type FilterQuery = {
  since?: Date;
  after?: string;
  namespace?: string;
  recipient?: string;
  subject?: string;
  q?: string;
  sender?: string;
  team?: string;
} & Pick<MessageFilter, 'source' | 'status' | 'blocked' | 'redirected' | 'read'>;

function messageFilter({ since: sinceDate, after, ...rest }: FilterQuery): MessageFilter {
  return { ...rest, since: sinceDate, afterId: after };
}

/**
 * The sandbox's own API over captured mail (no API key: it is the sandbox's, not the service's),
 * and the testing toolkit over it: wait for one, the latest, search, links and codes, forcing a
 * delivery outcome. Lists are newest first with limit/offset paging. Wait, latest and search come
 * before /api/messages/:id so they are not read as ids.
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
      path: '/api/messages/wait',
      query: z.object({
        ...filters(sandbox),
        timeout: wholeNumber('timeout', WAIT_DEFAULT_MS, 0, WAIT_MAX_MS).describe(`Milliseconds to wait, 0–${WAIT_MAX_MS}, default ${WAIT_DEFAULT_MS}.`),
      }),
      doc: {
        summary: 'Wait for a capture',
        description:
          'Holds the request until a capture matching the filters exists, then answers with it (the newest match). A match already stored answers at once, so add `after=<id>` or `since=<time>` (or reset first) to wait only for new mail. No polling: the server is told of each capture as it is stored.',
        tags,
        responses: {
          200: json('The capture, with links and codes.', S.Capture),
          400: detailDoc('A filter or the timeout has a bad value.', 'timeout must be a whole number from 0 to 120000.'),
          408: json(
            'Nothing matched within the timeout; `refused` lists sends that would have matched but were refused (from the request log).',
            S.WaitFailure,
            {
              detail:
                'No message matching the filters arrived within 10000 ms. 1 send that would have matched was refused: 429 daily limit (Daily limit of 100 emails has been reached), request 12 to ada@example.com at 2026-02-17T12:00:00.000Z.',
            },
          ),
        },
      },
      async handle(ctx, { query: { timeout: timeoutMs, ...filter } }) {
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        const wanted = messageFilter(filter);
        const record = await waitForMessage(messages, sandbox.events, wanted, { timeoutMs, signal: gone.signal });
        if (!record) {
          if (gone.signal.aborted) return;
          throw new HttpError(408, await refusalBody(sandbox, wanted, `No message matching the filters arrived within ${timeoutMs} ms.`));
        }
        ctx.body = await capture(sandbox, record);
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/expect',
      query: z.object({
        ...filters(sandbox),
        count: requiredWholeNumber('count', 0, EXPECT_MAX_COUNT).describe(`Required: how many captures must match, 0–${EXPECT_MAX_COUNT} (0: none may).`),
        within: wholeNumber('within', WAIT_DEFAULT_MS, 0, WAIT_MAX_MS).describe(
          `Milliseconds to wait for them, 0–${WAIT_MAX_MS}, default ${WAIT_DEFAULT_MS}; with count 0, default ${EXPECT_NONE_DEFAULT_MS} (a passing "none" waits all of it).`,
        ),
        settle: wholeNumber('settle', SETTLE_DEFAULT_MS, 0, SETTLE_MAX_MS).describe(
          `Once exactly count match, milliseconds in which no further one may arrive, 0–${SETTLE_MAX_MS}, default ${SETTLE_DEFAULT_MS}, at most within.`,
        ),
      }),
      doc: {
        summary: 'Expect an exact number of captures',
        description:
          "Counts the captures matching the filters, those stored and those that arrive while it waits (no polling). 200 once exactly `count` match and no further one arrived within `settle` ms (count 0: none matched by the end of `within`); 409 as soon as more than `count` match; 408 when fewer than `count` matched by the end of `within`. Scope it with `namespace` (or `after`/`since`) so only this test's mail counts. Every answer lists the matches, newest first (at most 50), with bodies, links and codes.",
        tags,
        responses: {
          200: json('Exactly count matched.', S.ExpectResult, { count: 0, messages: [] }),
          400: detailDoc('A filter, count, within or settle has a bad value.', 'count is required: a whole number from 0 to 1000.'),
          408: json('Fewer than count matched by the end of within.', S.ExpectFailure, {
            detail: 'Expected 2 messages matching the filters within 10000 ms; 1 matched.',
            count: 1,
            messages: [],
          }),
          409: json('More than count matched.', S.ExpectFailure, { detail: 'Expected no message matching the filters; 1 matched.', count: 1, messages: [] }),
        },
      },
      async handle(ctx, { query: { count, within: given, settle, ...filter } }) {
        const within = count === 0 && ctx.query.within === undefined ? EXPECT_NONE_DEFAULT_MS : given;
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        const wanted = messageFilter(filter);
        const result = await expectMessages(messages, sandbox.events, wanted, {
          count,
          withinMs: within,
          settleMs: settle,
          signal: gone.signal,
        });
        if (!result) return;
        const listed = await Promise.all(result.records.map((record) => capture(sandbox, record)));
        if (result.outcome === 'exact') {
          ctx.body = { count: result.count, messages: listed } satisfies ExpectResult;
          return;
        }
        const expected = count === 0 ? 'no message' : `${count} message${count === 1 ? '' : 's'}`;
        const message =
          result.outcome === 'more'
            ? `Expected ${expected} matching the filters; ${result.count} matched.`
            : `Expected ${expected} matching the filters within ${within} ms; ${result.count} matched.`;
        if (result.outcome === 'more') throw new HttpError(409, { detail: message, count: result.count, messages: listed } satisfies ExpectFailure);
        throw new HttpError(408, { ...(await refusalBody(sandbox, wanted, message)), count: result.count, messages: listed } satisfies ExpectFailure);
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
        description: `Summary plus names, flags, template flag, SES id, bodies, \`text_derived\` (true when \`text\` is the HTML rendered as text because there is no plain part), links and codes, headers, raw_url and attachments (${ATTACHMENTS_PAGE} at most from \`attachments_from\`; \`attachment_count\` has them all). Links, codes, a derived text and \`has_remote_content\` are read from the first 256 KB of each body.`,
        tags,
        params,
        responses: { 200: json('The capture.', S.MessageDetail), 404: notFoundDoc() },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        const [html, text, headers] = await Promise.all([messages.html(record), messages.text(record), messages.headers(record)]);
        const [readHtml, readText] = [readPart(html), readPart(text)];
        // A plain part is served whole; one rendered from the HTML comes from its first 256 KB.
        const view = await textView(readHtml, text);
        ctx.body = {
          ...messageSummary(record, sandbox.blocks),
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
        const prepared = prepareHtml(html, record.attachments, (index) => signedPath(attachmentUrl(record, index)), { local: !query.remote }).html;
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

/**
 * A capture with its bodies and what was extracted from them: one call gives a test everything.
 * `text` is the plain part, or the HTML rendered as text when there is none (`text_derived`).
 */
async function capture(sandbox: Sandbox, record: MessageRecord): Promise<Capture> {
  const [html, body] = await Promise.all([sandbox.messages.html(record), sandbox.messages.text(record)]);
  const view = await textView(readPart(html), body);
  return {
    ...messageSummary(record, sandbox.blocks),
    html,
    text: view.text,
    text_derived: view.derived,
    ...extract(readPart(html), readPart(body)),
    url: captureUrl(record),
  } satisfies Capture;
}

/** What names this server in the preview's policy: a sandboxed document has an opaque origin, so `'self'` alone is not enough. */
function previewSelf(ctx: ApiContext): string {
  return /^[A-Za-z0-9.:[\]-]+$/.test(ctx.host) ? `'self' ${ctx.protocol}://${ctx.host}` : "'self'";
}

function captureUrl(record: MessageRecord): string {
  return `/api/messages/${record.id}`;
}

function raise(error: Error): never {
  throw error;
}
