import { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { LINK_DEFAULTS, type LinkResult } from '../../domain/check/links.ts';
import { PLATFORMS, type Platform } from '../../domain/check/platforms.ts';
import type { SpamdTarget } from '../../domain/check/spamd.ts';
import { lazy } from '../../domain/lazy.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { ParsedBody } from '../body.ts';
import { detail } from '../errors.ts';
import { findMessage } from './message-query.ts';
import { apiBody, stringField, text } from './params.ts';

export const DRAFT_SPAM_NOTE = 'Drafts are not spam-checked: send the email to Pigeonhole and check the capture.';
const NDJSON = 'application/x-ndjson';

/**
 * The designers' checks: a capture's compatibility, size, accessibility, dark mode, headers
 * and spam score (GET, cached), its links (POST, on request only: the one thing that makes
 * the sandbox reach out), and the same checks on a draft (POST /api/check).
 */
export function mountCheckRoutes(router: Router, sandbox: Sandbox, parseV1Body: Middleware, options: { spamd: SpamdTarget | null }): void {
  const parseBody = apiBody(parseV1Body);
  // The checks' data and validators load with the first check, not with the server.
  const engine = lazy(() => import('../../domain/check/check.ts'));
  const messageChecks = lazy(async () => {
    const { MessageChecks } = await import('../../domain/check/message-checks.ts');
    return new MessageChecks(sandbox.messages, sandbox.events, { spamd: options.spamd });
  });

  router.get('/api/messages/:id/check', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const checks = await messageChecks();
    ctx.body = { id: record.id, ...(await checks.check(record, platforms(text(ctx, 'platform')))) };
  });

  router.post('/api/messages/:id/check/links', parseBody, async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const timeoutMs = timeout((ctx.state.body as ParsedBody).data.timeout_ms ?? text(ctx, 'timeout_ms'));
    const checks = await messageChecks();
    const { targets, skipped } = await checks.linkTargets(record);
    const results = checks.checkLinks(targets, { timeoutMs });
    if (wantsStream(ctx)) {
      ctx.type = NDJSON;
      ctx.set('Cache-Control', 'no-store');
      ctx.body = Readable.from(streamLines(targets.length, skipped, results));
      return;
    }
    const links: LinkResult[] = [];
    for await (const result of results) links.push(result);
    ctx.body = summary(targets.map((t) => links.find((l) => l.url === t.url)!), skipped);
  });

  router.post('/api/check', parseBody, async (ctx) => {
    const data = (ctx.state.body as ParsedBody).data;
    const html = stringField(data, 'html');
    const textPart = data.text === undefined || data.text === null ? null : stringField(data, 'text');
    const senderId = data.sender === undefined || data.sender === null || data.sender === '' ? undefined : stringField(data, 'sender');
    const caller = senderId === undefined ? undefined : sandbox.directory.sender(senderId);
    if (senderId !== undefined && !caller) throw detail(400, `Unknown sender "${senderId}".`);
    const body = caller ? wrapInTemplate(caller.sender.accountTemplate, html) : html;
    const filter = platforms(typeof data.platform === 'string' ? data.platform : text(ctx, 'platform'));
    const { analyse, report } = await engine();
    const analysis = analyse({ html: body, text: textPart, headers: null, messageBytes: null, attachmentSizes: [], source: 'draft' });
    ctx.body = report(analysis, filter, { report: null, note: DRAFT_SPAM_NOTE });
  });
}

/** `?platform=desktop,web`: the clients of those platforms only (as Mailpit filters). */
function platforms(value: string | undefined): Platform[] {
  if (value === undefined) return [...PLATFORMS];
  const chosen = value.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean);
  if (chosen.length === 0 || chosen.some((p) => !(PLATFORMS as readonly string[]).includes(p))) {
    throw detail(400, `platform must be a comma-separated list of ${PLATFORMS.join(', ')}.`);
  }
  return PLATFORMS.filter((p) => chosen.includes(p));
}

function timeout(value: unknown): number {
  if (value === undefined || value === null || value === '') return LINK_DEFAULTS.timeoutMs;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value).trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < 100 || n > 60_000) throw detail(400, 'timeout_ms must be a whole number from 100 to 60000.');
  return n;
}

function wantsStream(ctx: Context): boolean {
  return (ctx.get('Accept') ?? '').includes(NDJSON);
}

function summary(links: LinkResult[], skipped: number) {
  return { total: links.length, broken: links.filter((l) => !l.ok).length, skipped, links };
}

/** One JSON line per event: start (how many), each link as it is checked, done (the summary). */
async function* streamLines(total: number, skipped: number, results: AsyncGenerator<LinkResult>): AsyncGenerator<string> {
  yield `${JSON.stringify({ type: 'start', total, skipped })}\n`;
  let broken = 0;
  for await (const result of results) {
    if (!result.ok) broken++;
    yield `${JSON.stringify({ type: 'link', ...result })}\n`;
  }
  yield `${JSON.stringify({ type: 'done', total, broken, skipped })}\n`;
}
