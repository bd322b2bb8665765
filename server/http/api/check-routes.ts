import { Readable } from 'node:stream';
import { z } from 'zod';
import type { CheckReport, LinkCheck, LinkEvent } from '../../../client/pigeonhole-client.ts';
import type { LinkTargetPolicy } from '../../domain/check/link-targets.ts';
import { LINK_DEFAULTS, type LinkResult } from '../../domain/check/links.ts';
import { PLATFORMS, type Platform } from '../../domain/check/platforms.ts';
import type { SpamdTarget } from '../../domain/check/spamd.ts';
import { lazy } from '../../domain/lazy.ts';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { notFound } from '../errors.ts';
import { detail, json, notFound as notFoundDoc } from '../openapi/route-doc.ts';
import { describedAs } from '../openapi/json-schema.ts';
import * as S from '../openapi/schemas.ts';
import { bodyString, optionalBodyString, text } from './input-fields.ts';
import { route, type ApiContext, type ApiRoute } from './route.ts';

const DRAFT_SPAM_NOTE = 'Drafts are not spam-checked: send the email to Pigeonhole and check the capture.';
const NDJSON = 'application/x-ndjson';
const tags = ['checks'];
const BAD_PLATFORM = `platform must be a comma-separated list of ${PLATFORMS.join(', ')}.`;

/** `?platform=desktop,web`: the clients of those platforms only (as Mailpit filters); absent: all. */
function readPlatforms(value: unknown, ctx: z.RefinementCtx): Platform[] {
  if (value === undefined || value === null) return [...PLATFORMS];
  const chosen =
    typeof value === 'string'
      ? value
          .split(',')
          .map((p) => p.trim().toLowerCase())
          .filter(Boolean)
      : [];
  if (chosen.length === 0 || chosen.some((p) => !(PLATFORMS as readonly string[]).includes(p))) {
    ctx.addIssue({ code: 'custom', message: BAD_PLATFORM });
    return z.NEVER;
  }
  return PLATFORMS.filter((p) => chosen.includes(p));
}
const PLATFORM_DOC = 'Comma-separated platforms whose clients are considered: desktop, web, mobile (default all), as Mailpit filters.';
const platformJson = { type: 'string', examples: ['desktop,web'] };

/** A link check's timeout per link: a whole number of milliseconds from 100 to 60000. */
const linkTimeout = describedAs(
  z
    .unknown()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === null || value === '') return LINK_DEFAULTS.timeoutMs;
      const n = typeof value === 'number' ? value : /^\d+$/.test(String(value).trim()) ? Number(value) : NaN;
      if (!Number.isInteger(n) || n < 100 || n > 60_000) {
        ctx.addIssue({ code: 'custom', message: 'timeout_ms must be a whole number from 100 to 60000.' });
        return z.NEVER;
      }
      return n;
    }),
  { type: 'integer', minimum: 100, maximum: 60_000, default: LINK_DEFAULTS.timeoutMs },
).describe('Per link, 100–60000, default 10000.');

/**
 * The designers' checks: a capture's compatibility, size, accessibility, dark mode, headers
 * and spam score (GET, cached), its links (POST, on request only: the one thing that makes
 * the sandbox reach out), and the same checks on a draft (POST /api/check).
 */
export function checkRoutes(sandbox: Sandbox, options: { spamd: SpamdTarget | null; linkTargets?: LinkTargetPolicy }): ApiRoute[] {
  // The checks' data and validators load with the first check, not with the server.
  const engine = lazy(() => import('../../domain/check/check.ts'));
  const messageChecks = lazy(async () => {
    const { MessageChecks } = await import('../../domain/check/message-checks.ts');
    return new MessageChecks(sandbox.messages, sandbox.events, { spamd: options.spamd });
  });
  const find = async (ctx: ApiContext) => {
    const record = await sandbox.messages.get(ctx.params.id!);
    if (!record) throw notFound();
    return record;
  };
  const params = { id: 'Message (capture) id.' };
  const badPlatform = detail('A bad platform.', BAD_PLATFORM);

  return [
    route({
      method: 'GET',
      path: '/api/messages/:id/check',
      query: z.object({ platform: describedAs(text().transform(readPlatforms), platformJson).describe(PLATFORM_DOC) }),
      doc: {
        summary: 'Check a capture',
        description:
          'Email-client compatibility (caniemail data, two scores), size and Gmail clipping, accessibility, dark mode, headers and, with --spamassassin, the SpamAssassin score. Computed from the stored message on the first request and cached until the message is deleted.',
        tags,
        params,
        responses: { 200: json('The check.', S.MessageCheck), 400: badPlatform, 404: notFoundDoc() },
      },
      async handle(ctx, { query }) {
        const record = await find(ctx);
        const checks = await messageChecks();
        ctx.body = { id: record.id, ...(await checks.check(record, query.platform)) } satisfies CheckReport & { id: string };
      },
    }),
    route({
      method: 'POST',
      path: '/api/messages/:id/check/links',
      body: z.object({ timeout_ms: linkTimeout }),
      bodyFromQuery: ['timeout_ms'],
      doc: {
        summary: 'Check the links and images of a capture',
        description:
          'Every absolute http(s) link and image (localhost too on a server listening on loopback; on any other address loopback, private and link-local targets, and redirects into them, are refused with the reason unless --link-check-private or --link-check-allow lets them), HEAD then GET when HEAD is refused, up to 5 redirects, 5 at a time, a timeout per link; other schemes are never requested. The only request in Pigeonhole that reaches out, and only when asked. With `Accept: application/x-ndjson` the results stream as JSON lines: {"type":"start",total,skipped}, one {"type":"link",...} per link as it is checked, {"type":"done",total,broken,skipped}. `timeout_ms` may also be given in the query string.',
        tags,
        params,
        bodyOptional: true,
        responses: {
          200: {
            description: 'Every link checked.',
            body: S.LinkCheck,
            content: { [NDJSON]: { type: 'string', description: 'One JSON object per line.' } },
          },
          400: detail('A bad timeout.', 'timeout_ms must be a whole number from 100 to 60000.'),
          404: notFoundDoc(),
        },
      },
      async handle(ctx, { body }) {
        const record = await find(ctx);
        const checks = await messageChecks();
        const { targets, skipped } = await checks.linkTargets(record);
        const results = checks.checkLinks(targets, { timeoutMs: body.timeout_ms, policy: options.linkTargets });
        if (wantsStream(ctx)) {
          ctx.type = NDJSON;
          ctx.set('Cache-Control', 'no-store');
          ctx.body = Readable.from(streamLines(targets.length, skipped, results));
          return;
        }
        const links: LinkResult[] = [];
        for await (const result of results) links.push(result);
        ctx.body = summary(
          targets.map((t) => links.find((l) => l.url === t.url)!),
          skipped,
        );
      },
    }),
    route({
      method: 'POST',
      path: '/api/check',
      body: z.object({
        html: bodyString('html'),
        text: optionalBodyString('text').describe('The plain-text part, if any.'),
        sender: optionalBodyString('sender', { blankIsAbsent: true })
          .transform((id, ctx) => {
            if (id === undefined) return undefined;
            const caller = sandbox.directory.sender(id);
            if (!caller) {
              ctx.addIssue({ code: 'custom', message: `Unknown sender "${id}".` });
              return z.NEVER;
            }
            return caller;
          })
          .describe('Sender id: wrap in its account template.'),
        platform: describedAs(z.unknown().optional().transform(readPlatforms), platformJson).describe(
          `${PLATFORM_DOC} The query parameter is read when the body has none.`,
        ),
      }),
      bodyFromQuery: ['platform'],
      doc: {
        summary: 'Check a draft',
        description:
          "The same compatibility, size, accessibility and dark-mode checks on an HTML body (the Templates page's live check), wrapped in a sender's account template (the version in use) when `sender` is given. No headers or spam check.",
        tags,
        bodyExample: { html: '<p>Hello</p>', sender: 'acme-main', platform: 'desktop,web' },
        responses: { 200: json('The check.', S.CheckReport), 400: detail('A bad body.', 'html must be a string.') },
      },
      async handle(ctx, { body }) {
        const html = body.sender ? wrapInTemplate(sandbox.templates.live(body.sender.sender.id)?.html ?? null, body.html) : body.html;
        const { analyse, report } = await engine();
        const analysis = analyse({ html, text: body.text ?? null, headers: null, messageBytes: null, attachmentSizes: [], source: 'draft' });
        ctx.body = report(analysis, body.platform, { report: null, note: DRAFT_SPAM_NOTE }) satisfies CheckReport;
      },
    }),
  ];
}

function wantsStream(ctx: ApiContext): boolean {
  return (ctx.get('Accept') ?? '').includes(NDJSON);
}

function summary(links: LinkResult[], skipped: number): LinkCheck {
  return { total: links.length, broken: links.filter((l) => !l.ok).length, skipped, links } satisfies LinkCheck;
}

/** One JSON line per event: start (how many), each link as it is checked, done (the summary). */
async function* streamLines(total: number, skipped: number, results: AsyncGenerator<LinkResult>): AsyncGenerator<string> {
  const line = (event: LinkEvent) => `${JSON.stringify(event)}\n`;
  yield line({ type: 'start', total, skipped });
  let broken = 0;
  for await (const result of results) {
    if (!result.ok) broken++;
    yield line({ type: 'link', ...result });
  }
  yield line({ type: 'done', total, broken, skipped });
}
